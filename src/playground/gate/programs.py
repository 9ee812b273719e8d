"""A lesson's programs: started with the gate's URL as REDIS_URL, the lesson's directory
as their working directory and a time limit, their output kept (bounded), and stopped —
their whole process group — when the lesson ends, or when the app does (the kernel kills
a program whose parent dies: PR_SET_PDEATHSIG).

Nothing a program starts outlives it: every process it starts carries its mark
(server/children.py: PROGRAM_MARK, found in /proc), and when the program ends, by itself
or stopped, they all end too, however detached (a forked sleeper, a `setsid` grandchild,
a child it left running); a program forked by the warm interpreter is a child subreaper
and the warm interpreter ends its orphans (gate/warm_python.py). Its output is read until
it exits, not until the last holder of its pipes lets go.

`python` as a program's first word means the app's own interpreter, so `import redis`
works in a lesson's program wherever the app runs; a lesson's function (`python -m
playground.gate.call_function FILE:NAME ARGS`, scenario/programs/lesson_format.py) runs through
call_function.py, started by its path: it needs nothing of the playground importable.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from playground.gate.endpoint import socket_path
from playground.gate.peer import RERUN
from playground.gate.program_argv import CALL, shown_program
from playground.gate.warm import WarmProcess
from playground.i18n import tr
from playground.server.children import PROGRAM_MARK, die_with_parent, end_marked, signal_group

TIME_LIMIT = 10.0           # seconds a program may run, from its start
RESULT_LIMIT = 64 * 1024    # characters of a function's return value (its repr) kept
HASH_SEED = "0"             # PYTHONHASHSEED of every program: the order of a set of strings is the same in every run
OUTPUT_LIMIT = 64 * 1024    # bytes of each output stream kept (the last ones)
DRAIN_LIMIT = 2.0           # seconds its output may still take to arrive after it (and what it started) ended
_marks = itertools.count(1)


@dataclass(frozen=True)
class ByHand:
    """A program the learner started by hand against the gate (free play, gate/peer.py): run
    again in its own directory, with its own environment and its command line as it was
    (`python` is the learner's, found on its PATH, not the app's interpreter), every mention
    of the gate it used (`gate`: that socket's path) pointing at the new one instead."""

    cwd: str
    env: tuple[tuple[str, str], ...]
    gate: str


class ProgramError(Exception):
    """A program could not start, or ended badly: one line naming it."""


@dataclass(frozen=True)
class ProgramOutcome:
    """How a program ended: its exit status (as a shell gives it: 128 + N when signal N
    ended it; None when the playground stopped it: past its time limit, or the part
    ended first) and, for a lesson's function, its return value (its repr(): `'charged'`,
    `True`, `None`; None: no function, or it did not return)."""

    status: int | None
    returned: str | None = None


class Program:
    """One program of a lesson (or started by hand, run again): started on the gate's URL
    with its time limit, its output kept (the last OUTPUT_LIMIT bytes), stopped with its
    process group."""

    def __init__(self, name: str, argv: tuple[str, ...], cwd: Path, url: str,
                 time_limit: float = TIME_LIMIT, warm=None, by_hand: ByHand | None = None) -> None:
        self.by_hand = by_hand
        self.warm = warm  # a WarmInterpreter (gate/warm.py) that forks Python programs, or None
        self.name = name
        self.argv = argv
        self.cwd = cwd
        self.url = url
        self.time_limit = time_limit
        self.process: asyncio.subprocess.Process | None = None
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.stopped: str | None = None  # why the playground stopped it
        self.readers: list[asyncio.Task] = []
        self._pipes: list[asyncio.ReadTransport] = []  # our ends of its output pipes (started as a process of its own)
        self.deadline = 0.0
        self.mark = f"{os.getpid()}.{next(_marks)}"  # in its environment, and so of all it starts

    @property
    def describe(self) -> str:
        """"A (python transfer.py)": how messages name it."""
        return f"{self.name} ({shown_program(self.argv)})"

    @property
    def is_function(self) -> bool:
        """A lesson's function (`A = { function = ... }`), which returns a value."""
        return self.by_hand is None and tuple(self.argv[:3]) == ("python", "-m", CALL)

    @property
    def result_path(self) -> Path | None:
        """Where a function's return value is written: beside its gate socket, in the
        private server's 0700 directory, named after that socket (a run of it on another
        socket at the same time, the explorer's run again, writes its own)."""
        if not self.is_function or not self.url.startswith("unix://"):
            return None
        sock = Path(socket_path(self.url))
        return sock.with_name(f"result-{sock.stem}.txt")

    async def start(self) -> "Program":
        argv, env = self._command()
        env = dict(env, REDIS_URL=self.url, PYTHONUNBUFFERED="1", PYTHONHASHSEED=HASH_SEED,
                   **{PROGRAM_MARK: self.mark})
        result = self.result_path
        if result is not None:
            result.unlink(missing_ok=True)   # (an earlier run's)
            env["PLAYGROUND_RESULT"] = str(result)
        if self.url.startswith("unix://"):  # for libraries that take a socket's path, not a URL (ioredis)
            env["REDIS_SOCKET"] = socket_path(self.url)
        try:
            if self.warm is not None and self.warm.takes(argv):
                forked = self.process = await self.warm.spawn(argv, self.cwd, env, reuse=self.reuse_key(argv))
                streams = [forked.stdout, forked.stderr]
            else:
                streams = await self._spawn(argv, env)
        except (OSError, ValueError, asyncio.TimeoutError) as exc:
            raise ProgramError(tr("program {program}: cannot start: {error}", program=self.describe,
                                  error=getattr(exc, "strerror", None) or exc or type(exc).__name__)) from None
        self.deadline = asyncio.get_running_loop().time() + self.time_limit
        self.readers = [asyncio.ensure_future(self._keep(streams[0], self.stdout)),
                         asyncio.ensure_future(self._keep(streams[1], self.stderr))]
        return self

    async def _spawn(self, argv: list[str], env: dict[str, str]) -> list[asyncio.StreamReader]:
        """Start it as a process of its own; its output streams. Its pipes are ours, not
        the asyncio process's: its exit is known when it exits (asyncio's `wait()` would
        also wait for every holder of the pipes to let go: a detached child of it)."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv, cwd=self.cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                start_new_session=True, preexec_fn=die_with_parent(os.getpid()))
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        loop, streams = asyncio.get_running_loop(), []
        for fd in (out_r, err_r):
            stream = asyncio.StreamReader(limit=1 << 16)
            transport, _ = await loop.connect_read_pipe(functools.partial(asyncio.StreamReaderProtocol, stream),
                                                        os.fdopen(fd, "rb", 0))
            self._pipes.append(transport)
            streams.append(stream)
        return streams

    def reuse_key(self, argv: list[str]) -> str:
        """What names this program for the warm interpreter's kept children (its command
        line and directory): a child that ran it before may run it again."""
        return json.dumps([argv, str(self.cwd)])

    def _command(self) -> tuple[list[str], dict[str, str]]:
        """What to start, and its environment before REDIS_URL and the rest."""
        if self.by_hand is not None:
            old, new = self.by_hand.gate, socket_path(self.url)
            swap = (lambda text: text.replace(old, new)) if old else (lambda text: text)
            env = {k: swap(v) for k, v in self.by_hand.env if k != RERUN}
            return [swap(a) for a in self.argv], dict(env, **{RERUN: new})
        argv = [sys.executable if self.argv[0] == "python" else self.argv[0], *self.argv[1:]]
        if tuple(self.argv[:3]) == ("python", "-m", CALL):
            argv[1:3] = [str(Path(__file__).with_name("call_function.py"))]
        return argv, dict(os.environ)

    @staticmethod
    async def _keep(stream: asyncio.StreamReader, into: bytearray) -> None:
        while data := await stream.read(1 << 16):
            into += data
            if len(into) > OUTPUT_LIMIT:
                del into[:len(into) - OUTPUT_LIMIT]

    @property
    def exited(self) -> bool:
        return self.process is not None and self.process.returncode is not None

    def when_ended(self, tell) -> "asyncio.Task | None":
        """`tell()` once its process has ended: by the process's own end callback where it
        has one (a warm interpreter's child, a replay: explore/program_tree.py), else by a
        task that waits for it, returned (its caller cancels it when it goes)."""
        process = self.process
        assert process is not None  # (started)
        own = getattr(process, "when_ended", None)
        if own is not None:
            own(tell)
            return None

        async def told() -> None:
            await process.wait()
            tell()
        return asyncio.ensure_future(told())

    def time_left(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    async def wait(self) -> bool:
        """Wait for it to exit within its time limit; stop it if it does not. True if it
        exited by itself."""
        assert self.process is not None  # (started)
        try:
            async with asyncio.timeout(self.time_left()):
                await asyncio.shield(self.process.wait())
        except asyncio.TimeoutError:
            await self.stop(tr("ran past its time limit ({seconds} s)", seconds=f"{self.time_limit:g}"))
            return False
        await self.drained()
        return True

    async def drained(self) -> None:
        """After it exited: what it started ends too, and its output is read to the end
        (a pipe's end some other process still held would never close: it is given up
        after DRAIN_LIMIT seconds)."""
        assert self.process is not None  # (it exited: it was started)
        self._end_descendants()
        if self.readers:
            _, late = await asyncio.wait(self.readers, timeout=DRAIN_LIMIT)
            for reader in late:
                reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        self._close_pipes()

    def _end_descendants(self) -> None:
        """What it started ends too. A program the warm interpreter forked needs nothing
        more: its exit is told only once the interpreter (their child subreaper) has
        ended and reaped them all (gate/warm_python.py); else every process marked as
        its own is sought in /proc (~1 ms)."""
        assert self.process is not None  # (it exited: it was started)
        if not isinstance(self.process, WarmProcess):
            end_marked(self.mark, self.process.pid)

    def _close_pipes(self) -> None:
        for pipe in self._pipes:
            pipe.close()
        self._pipes.clear()

    async def stop(self, why: str | None = None) -> None:
        """Kill its whole process group and everything else it started, and reap it."""
        if self.process is None:
            return
        if self.process.returncode is None:
            self.stopped = self.stopped or why
            if isinstance(self.process, WarmProcess):
                await self.process.kill()   # (this run only: its child may run another already)
            else:
                signal_group(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        self._end_descendants()
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        self._close_pipes()

    def last_words(self) -> str:
        """Its last line of error output that names an error (a Python traceback's last
        line, Node's `Error: …` before its stack), else its last line, else of output."""
        for stream in (self.stderr, self.stdout):
            lines = [line.strip() for line in bytes(stream).decode("utf-8", "replace").splitlines() if line.strip()]
            if lines:
                named = [line for line in lines if "Error" in line and not line.startswith("at ")]
                return (named or lines)[-1][:200]
        return ""

    def outcome(self) -> ProgramOutcome:
        """Its exit status and return value (after it exited)."""
        code = self.process.returncode if self.process is not None else None
        status = None if self.stopped or code is None else (128 - code if code < 0 else code)
        returned = None
        result = self.result_path
        if result is not None and status is not None:
            try:
                with open(result, encoding="utf-8", errors="replace") as got:
                    returned = got.read(RESULT_LIMIT + 1)
            except OSError:
                returned = None
            if returned is not None and len(returned) > RESULT_LIMIT:
                returned = returned[:RESULT_LIMIT] + "…"
        return ProgramOutcome(status, returned)

    def failure(self) -> str | None:
        """One line if it ended badly (stopped by the playground, or a non-zero status)."""
        if self.stopped:
            return tr("program {program} {why}: stopped", program=self.describe, why=self.stopped)
        code = self.process.returncode if self.process is not None else None
        if code:
            words = self.last_words()
            status = tr("killed by signal {n}", n=-code) if code < 0 else tr("exited with status {n}", n=code)
            said = tr("program {program} {status}", program=self.describe, status=status)
            return said + (f": {words}" if words else "")
        return None
