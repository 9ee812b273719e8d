"""The headless scenario commands: `list`, `run`, `check` (no Textual here)."""

from __future__ import annotations

import asyncio
import sys

from playground.cells import pad, width as cells
from playground.engine.executor import Executor
from playground.engine.exit_signals import install_exit_signals
from playground.engine.playground import Playground
from playground.i18n import tr
from playground.scenario import transcript as report
from playground.scenario.library import (course_order, is_recording, recordings_dir, resolve, scenario_files,
                                         scenarios_in)
from playground.scenario.loader import load_scenario
from playground.scenario.model import Scenario, ScenarioError
from playground.scenario.runner import Runner, ScenarioResult, StepResult
from playground.scenario.tags import tag_names
from playground.topology_kinds import SINGLE
from playground.visible import LINES, visible


def _out(text: str) -> None:
    """Write to stdout what the scenario and the server said, control characters written
    out (playground/visible.py): a scenario's title or a reply cannot drive the terminal."""
    sys.stdout.write(visible(text, LINES))
    sys.stdout.flush()


def _err(text: str) -> None:
    """One line on stderr (it may quote a scenario file), control characters written out."""
    print("redis-playground: " + visible(text), file=sys.stderr)


def cmd_list(args) -> int:
    """The library in course order, then the user's recordings (with how to narrate them)."""
    failed, scenarios = 0, []
    for file in scenario_files(args.scenarios, recordings=True):
        try:
            scenarios.append(load_scenario(file, args.lang))
        except ScenarioError as exc:
            _err(str(exc))
            failed += 1
    recorded = False
    ordered = course_order(scenarios)
    width = max((cells(s.id) for s in ordered), default=0)  # full ids, titles in one column
    for s in ordered:
        if is_recording(s) and not recorded:
            recorded = True
            _out("\n" + tr("Your recordings ({dir}): add narration, predictions and checks by editing the "
                            "file (docs/scenarios.md), then `redis-playground check FILE`.", dir=recordings_dir())
                 + "\n")
        tags = tag_names(s.tags)
        _out(pad(s.id, width) + f"  {s.title}" + (f"  [{tags}]" if tags else "") + "\n")
    return 1 if failed else 0


def _playground(args, scenarios: list[Scenario]) -> Playground:
    """One playground for `scenarios`, on the topology they declare (all the same one:
    `check` groups them with `_by_topology`)."""
    clients: list[str] = []
    for s in scenarios:
        clients += [c for c in s.clients if c not in clients]
    topology, replicas = SINGLE.name, None
    if scenarios and scenarios[0].topology != SINGLE.name and not args.url:
        topology = scenarios[0].topology
        replicas = max((s.replicas or 0 for s in scenarios), default=0) or None
    return Playground.create(server_choice=args.server, url=args.url, allow_flush=args.allow_flush,
                             clients=clients or ("A", "B"), topology=topology, replicas=replicas)


def _by_topology(scenarios: list[Scenario]) -> list[list[Scenario]]:
    """The scenarios in groups that share a topology, in order of first appearance."""
    groups: dict[tuple, list[Scenario]] = {}
    for s in scenarios:
        groups.setdefault((s.topology, s.replicas if s.topology != SINGLE.name else None), []).append(s)
    return list(groups.values())


def _refuse_url_without_flush(args) -> bool:
    """Every scenario part starts on an empty server: on a --url server that takes --allow-flush."""
    if args.url and not args.allow_flush:
        print("redis-playground: " + tr("{command} empties the server before every scenario (FLUSHALL); "
              "with --url add --allow-flush, and only for a server whose data may go", command=args.command),
              file=sys.stderr)
        return True
    return False


def cmd_run(args) -> int:
    """`run`: replay one scenario and print its transcript.

    Args:
        args: the parsed command line (cli/main.py).

    Returns:
        0 when every check passed, else 1 (2: refused).
    """
    scenario = load_scenario(resolve(args.scenario, args.scenarios), args.lang)
    if _refuse_url_without_flush(args):
        return 2
    install_exit_signals()
    pg = _playground(args, [scenario])
    result = asyncio.run(_run_one(pg, scenario, args.format, args.lang, args.time_limit, args.pace))
    return 0 if result.ok else 1


async def _run_one(pg: Playground, scenario: Scenario, fmt: str, lang: str = "en",
                   time_limit: float | None = None, pace: float = 0.0) -> ScenarioResult:
    async with pg:
        current: str | None = None  # the part whose steps are being printed
        steps: list[StepResult] = []  # its steps so far (their lanes follow them)

        def on_step(step: StepResult) -> None:
            nonlocal current, steps
            if fmt == "json":
                _out(report.json_step(pg.label, scenario, step) + "\n")
            elif fmt == "text":
                if step.part != current:
                    _out(report.text_lanes(scenario, steps))
                    current, steps = step.part, []
                    part = next(p for p in scenario.parts if p.name == step.part)
                    _out(report.text_part(scenario, part.name, part.setup_display))
                _out(report.text_step(scenario, step))
                steps.append(step)

        def on_end(end) -> None:   # a part's expect, once its programs ended
            nonlocal steps
            if fmt == "json":
                _out(report.json_end(pg.label, scenario, end) + "\n")
            elif fmt == "text":
                _out(report.text_lanes(scenario, steps))
                steps = []
                _out(report.text_end(end))

        if fmt == "text":
            _out(report.text_header(scenario, pg.label))
        executor = Executor(pg, explain=lang)  # a "why" under every surprise (engine/why.py)
        result = await Runner(pg, on_step=on_step, record_touched=(fmt == "json"), executor=executor,
                              time_limit=time_limit, lesson_time=True, pace=pace, on_end=on_end).run(scenario)
        if fmt == "text":
            _out(report.text_lanes(scenario, steps))
            _out(report.text_summary(result))
        elif fmt == "markdown":
            _out(report.render_markdown(result))
        elif fmt == "json" and (result.skipped or result.error):
            _err(f"{scenario.id}: {result.skipped or result.error}")
        return result


def cmd_check(args) -> int:
    """`check`: replay scenarios (default: the whole library) and print N passed, N failed.

    Args:
        args: the parsed command line (cli/main.py).

    Returns:
        0 when every check passed, else 1 (2: refused).
    """
    scenarios, broken = [], []
    if args.scenarios_to_check:   # in the order given; a directory's in course order
        groups = [scenarios_in(path) if path.is_dir() else [path]
                  for path in (resolve(ref, args.scenarios) for ref in args.scenarios_to_check)]
    else:                         # the library in course order, as `list` and the F7 picker
        groups = [scenario_files(args.scenarios)]
    for files in groups:
        loaded = []
        for file in files:
            try:
                loaded.append(load_scenario(file, args.lang))
            except ScenarioError as exc:
                broken.append(str(exc))
        scenarios += course_order(loaded)
    if _refuse_url_without_flush(args):
        return 2
    install_exit_signals()
    passed = failed = skipped = 0
    for group in _by_topology(scenarios) or [[]]:
        counts = asyncio.run(_check(_playground(args, group), group, args.time_limit, args.pace))
        passed, failed, skipped = passed + counts[0], failed + counts[1], skipped + counts[2]
    for line in broken:
        _out(f"{report.FAIL} {line}\n")
    failed += len(broken)
    untranslated = sum(len(s.missing_translations()) for s in scenarios)
    _out(tr("{passed} passed, {failed} failed", passed=passed, failed=failed)
         + (tr(", {count} skipped", count=skipped) if skipped else "")
         + (tr(", {count} texts not translated into {lang}", count=untranslated, lang=args.lang)
            if untranslated else "")
         + "\n")
    return 1 if failed else 0


async def _check(pg: Playground, scenarios: list[Scenario], time_limit: float | None = None,
                 pace: float = 0.0) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    async with pg:
        _out(f"on {pg.label}\n")
        for scenario in scenarios:
            result = await Runner(pg, time_limit=time_limit, lesson_time=True, pace=pace).run(scenario)
            _out(report.check_line(result) + "\n")
            if scenario.missing_translations():
                _out(report.missing_line(scenario) + "\n")
            if result.skipped:
                skipped += 1
            elif result.ok:
                passed += 1
            else:
                failed += 1
    return passed, failed, skipped
