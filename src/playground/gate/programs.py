"""A lesson's programs: started with the gate's URL as REDIS_URL, the lesson's directory
as their working directory and a time limit, their output kept (bounded), and stopped —
their whole process group — when the lesson ends, or when the app does (the kernel kills
a program whose parent dies: PR_SET_PDEATHSIG).

`python` as a program's first word means the app's own interpreter, so `import redis`
works in a lesson's program wherever the app runs; a lesson's function (`python -m
playground.gate.call_function FILE:NAME ARGS`, lesson_format.function_argv) runs through
call_function.py, started by its path: it needs nothing of the playground importable.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from playground.gate.endpoint import socket_path
from playground.gate.lesson_format import CALL, shown_program
from playground.gate.peer import RERUN
from playground.i18n import tr
from playground.server.children import die_with_parent

TIME_LIMIT = 10.0           # seconds a program may run, from its start
HASH_SEED = "0"             # PYTHONHASHSEED of every program: the order of a set of strings is the same in every run
OUTPUT_LIMIT = 64 * 1024    # bytes of each output stream kept (the last ones)


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


class Program:
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
        self.deadline = 0.0

    @property
    def describe(self) -> str:
        """"A (python transfer.py)": how messages name it."""
        return f"{self.name} ({shown_program(self.argv)})"

    async def start(self) -> "Program":
        argv, env = self._command()
        env = dict(env, REDIS_URL=self.url, PYTHONUNBUFFERED="1", PYTHONHASHSEED=HASH_SEED)
        if self.url.startswith("unix://"):  # for libraries that take a socket's path, not a URL (ioredis)
            env["REDIS_SOCKET"] = socket_path(self.url)
        try:
            if self.warm is not None and self.warm.takes(argv):
                self.process = await self.warm.spawn(argv, self.cwd, env)
            else:
                self.process = await asyncio.create_subprocess_exec(
                    *argv, cwd=self.cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                    start_new_session=True, preexec_fn=die_with_parent(os.getpid()))
        except (OSError, ValueError, asyncio.TimeoutError) as exc:
            raise ProgramError(tr("program {program}: cannot start: {error}", program=self.describe,
                                  error=getattr(exc, "strerror", None) or exc or type(exc).__name__)) from None
        self.deadline = asyncio.get_running_loop().time() + self.time_limit
        self.readers = [asyncio.ensure_future(self._keep(self.process.stdout, self.stdout)),
                         asyncio.ensure_future(self._keep(self.process.stderr, self.stderr))]
        return self

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

    def time_left(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    async def wait(self) -> bool:
        """Wait for it to exit within its time limit; stop it if it does not. True if it
        exited by itself."""
        try:
            await asyncio.wait_for(asyncio.shield(self.process.wait()), self.time_left())
        except asyncio.TimeoutError:
            await self.stop(tr("ran past its time limit ({seconds} s)", seconds=f"{self.time_limit:g}"))
            return False
        await asyncio.gather(*self.readers, return_exceptions=True)
        return True

    async def stop(self, why: str | None = None) -> None:
        """Kill its whole process group (what it started too) and reap it."""
        if self.process is None:
            return
        if self.process.returncode is None:
            self.stopped = self.stopped or why
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            await self.process.wait()
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)

    def last_words(self) -> str:
        """Its last line of error output that names an error (a Python traceback's last
        line, Node's `Error: …` before its stack), else its last line, else of output."""
        for stream in (self.stderr, self.stdout):
            lines = [line.strip() for line in bytes(stream).decode("utf-8", "replace").splitlines() if line.strip()]
            if lines:
                named = [line for line in lines if "Error" in line and not line.startswith("at ")]
                return (named or lines)[-1][:200]
        return ""

    def failure(self) -> str | None:
        """One line if it ended badly (stopped by the playground, or a non-zero status)."""
        if self.stopped:
            return tr("program {program} {why}: stopped", program=self.describe, why=self.stopped)
        code = self.process.returncode if self.process is not None else None
        if code:
            words = self.last_words()
            status = tr("killed by signal {n}", n=-code) if code < 0 else tr("exited with status {n}", n=code)
            return tr("program {program} {status}", program=self.describe, status=status) + (f": {words}" if words else "")
        return None
