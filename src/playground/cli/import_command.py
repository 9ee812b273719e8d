"""`redis-playground import monitor FILE [--setup CMD ...] [-o LESSON] [--clients-from FILE]`:
a MONITOR capture made a lesson (scenario/monitor_import.py does the work; this is the
command line: its options, a progress bar on a terminal, and the lesson written at once
or not at all). No Textual here."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from playground.engine.exit_signals import install_exit_signals
from playground.engine.playground import Playground
from playground.errors import ScenarioError, ServerError
from playground.history import write_failure
from playground.i18n import tr
from playground.resp.cli_lines import RepeatError, SplitError, parse_line
from playground.scenario.loader import load_scenario
from playground.scenario.monitor_clients import CaptureError, survey_capture
from playground.scenario.monitor_import import CaptureReplay, assemble, lesson_header
from playground.scenario.setup_rules import setup_problem
from playground.scenario.source import MAX_FILE_BYTES
from playground.topology_kinds import SINGLE


class Progress:
    """A progress bar on stderr while a file is read, only when stderr is a terminal."""

    WIDTH = 30

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.total = total
        self.done = 0
        self._shown = -1
        try:
            self.on = total > 0 and self.stream.isatty()
        except (AttributeError, ValueError):
            self.on = False

    def __call__(self, count: int) -> None:
        """`count` more bytes were read."""
        self.done += count
        if not self.on:
            return
        percent = min(100, self.done * 100 // self.total)
        if percent != self._shown:
            self._shown = percent
            filled = self.WIDTH * percent // 100
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {percent:3d}%")
            self.stream.flush()

    def end(self) -> None:
        """Take the bar off the screen."""
        if self.on and self._shown >= 0:
            self.stream.write("\r" + " " * (len(self.label) + self.WIDTH + 8) + "\r")
            self.stream.flush()


def _setup(lines: list[str]) -> list[tuple[bytes, ...]]:
    """The --setup commands as argv (ValueError: one line)."""
    argvs = []
    for line in lines:
        try:
            parsed = parse_line(line)
        except (SplitError, RepeatError):
            parsed = None
        if parsed is None or parsed.repeat != 1:
            raise ValueError(tr("--setup {command!r}: not a command as redis-cli reads one", command=line))
        argvs.append(tuple(parsed.argv))
    problem = setup_problem(argvs)
    if problem:
        raise ValueError(tr("--setup {command!r}: {problem}", command=lines[problem[0] - 1], problem=problem[1]))
    return argvs


def cmd_import(args) -> int:
    """Run `import monitor`; one line on stderr for what goes wrong."""
    if args.url or args.topology != SINGLE.name:
        print("redis-playground: " + tr("import replays the capture on a private server of its own: no --url or "
                                        "--topology"), file=sys.stderr)
        return 2
    try:
        setup = _setup(args.setup)
        summary = _import(args, setup)
    except (CaptureError, ScenarioError, ValueError) as exc:
        print(f"redis-playground: {exc}", file=sys.stderr)
        return 2
    except (ServerError, OSError) as exc:
        print(f"redis-playground: {exc}", file=sys.stderr)
        return 1
    print(summary, file=sys.stderr)
    return 0


def _import(args, setup: list[tuple[bytes, ...]]) -> str:
    capture = Path(args.capture)
    try:
        size = capture.stat().st_size
    except OSError:
        size = 0
    bar = Progress(tr("reading"), size)
    try:
        survey = survey_capture(capture, Path(args.clients_from) if args.clients_from else None, bar)
    finally:
        bar.end()
    output = Path(args.output) if args.output else None
    directory = output.parent if output is not None else None
    try:  # (beside the lesson: one rename puts it in place)
        workplace = tempfile.TemporaryDirectory(prefix=".playground-import-", dir=directory)
    except OSError as exc:
        where = output if output is not None else tempfile.gettempdir()   # (no --output: the system's)
        raise ValueError(write_failure(where, OSError(exc.errno, exc.strerror))) from None
    with tempfile.TemporaryFile("w+", encoding="utf-8") as records, workplace as work:
        result = _replay(args, survey, setup, records)
        lesson = Path(work) / ((output.stem if output is not None else "lesson") + ".toml")
        _write(survey, result, args.setup, records, lesson)
        if output is not None:
            os.replace(lesson, output)
        else:
            with open(lesson, encoding="utf-8") as f:
                shutil.copyfileobj(f, sys.stdout)
            sys.stdout.flush()
    steps = result.steps - len(result.dropped)
    shown = str(output) if output is not None else tr("the lesson (stdout)")
    summary = tr("{lesson}: {steps} steps of {clients} from {commands} commands ({handshakes} handshake lines left "
                 "out, {saved} written values as saved replies, {literals} kept as captured, {sleeps} sleeps)",
                 lesson=shown, steps=steps, clients=", ".join(survey.names), commands=survey.commands,
                 handshakes=survey.handshakes, saved=result.substituted, literals=result.literals,
                 sleeps=result.sleeps)
    if output is not None:
        opening = f"{output}" + ("" if survey.names == ("A", "B") else f" --clients {','.join(survey.names)}")
        summary += "\n" + tr("next: redis-playground check {path} (on each server), open {opening}, explore {path}",
                             path=output, opening=opening)
    return summary


def _replay(args, survey, setup, records):
    pg = Playground.create(server_choice=args.server, clients=survey.names)
    install_exit_signals()
    bar = Progress(tr("replaying"), survey.size)

    async def replay():
        async with pg:
            return await CaptureReplay(pg, survey, setup, records).run(bar)

    try:
        return asyncio.run(replay())
    finally:
        bar.end()


def _write(survey, result, setup_display: list[str], records, lesson: Path) -> None:
    """The lesson's file, whole and loadable, or CaptureError."""
    records.seek(0)
    fd = os.open(lesson, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        assemble(lesson_header(survey, result, setup_display), records, result, out)
    size = lesson.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CaptureError(tr("{file}: the lesson would be {mb:.1f} MB, more than a scenario file may be ({most} MB): "
                              "import a shorter capture", file=survey.path, mb=size / 2**20,
                              most=MAX_FILE_BYTES // 2**20))
    try:
        load_scenario(lesson)
    except ScenarioError as exc:  # (a bug: what was written must load)
        raise CaptureError(tr("{file}: the lesson made of it does not load: {error}", file=survey.path,
                              error=exc)) from None
