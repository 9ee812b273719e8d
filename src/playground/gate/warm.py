"""The app's side of the warm interpreter (warm_python.py): started once, it forks each
of a lesson's Python programs (`python SCRIPT ARGS...`) with redis already imported, and
`WarmProcess` stands for such a program where programs.py keeps an
asyncio.subprocess.Process: `pid` (its session's leader), `stdout`, `stderr`, `stdin`
(asked for with spawn(stdin=True)), `returncode`, `wait()`. The explorer uses it: a
schedule runs a program for real where its tree cannot replay it (explore/program_tree.py),
and a program's key (`reuse`) lets the child that ran it run it again, not forked afresh.
serve's zygote (cli/app_zygote.py) is one too, started with a preload function instead of
redis, forking `python -m playground ...`.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path

from playground.i18n import tr
from playground.server.children import die_with_parent, signal_group

SPAWN_TIMEOUT = 5.0


class WarmProcess:
    """A program forked by the warm interpreter, as a started process is seen: its pid,
    its output streams, its stdin if asked for, its exit status when it ends."""

    def __init__(self, pid: int, stdout: asyncio.StreamReader, stderr: asyncio.StreamReader,
                 exited: asyncio.Future, stdin: asyncio.StreamWriter | None = None, again: bool = False,
                 run: int = 0, interpreter: "WarmInterpreter | None" = None) -> None:
        self.pid = pid
        self.again = again   # run by a child that ran its program before (spawn's `reuse`)
        self.run = run       # its run's number: a kept child's pid is told again for its next run
        self._interpreter = interpreter
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._exited = exited

    @property
    def returncode(self) -> int | None:
        return self._exited.result() if self._exited.done() and not self._exited.cancelled() else None

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    def when_ended(self, tell) -> None:
        """`tell()` once it has ended (at once if it has): no task waits for it."""
        if self._exited.done():
            tell()
        else:
            self._exited.add_done_callback(lambda _: tell())

    async def kill(self) -> None:
        """SIGKILL to its process group, if its run still runs: asked of the warm
        interpreter, which knows, where a kept child may have told this run's end and
        taken its key's next run already (the pid alone would end that one)."""
        if self.returncode is not None:
            return
        if self._interpreter is not None and self._interpreter.running \
                and await self._interpreter.end_run(self.pid, self.run):
            return
        signal_group(self.pid, signal.SIGKILL)   # (it does not answer: the pid, as before runs were numbered)


class WarmInterpreter:
    """One warm_python.py process, and the exits it reports."""

    def __init__(self, preload: str | None = None, name: str | None = None, env: dict[str, str] | None = None,
                 spawn_timeout: float = SPAWN_TIMEOUT) -> None:
        """preload: "MODULE:FUNCTION" to call before the forks instead of importing redis;
        name: the process's name in ps; env: its environment (default: this process's)."""
        self.options = (["--preload", preload] if preload else []) + (["--name", name] if name else [])
        self.env = os.environ if env is None else env
        self.spawn_timeout = spawn_timeout
        self.process: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._exits: dict[tuple[int, int], asyncio.Future] = {}  # (pid, run) -> its exit, while it runs
        self._early: dict[tuple[int, int], int] = {}  # (pid, run) -> exit code, reported before spawn() had it
        self._reader: asyncio.Task | None = None
        self._broken = False  # it did not answer in time: no more requests
        self._spawning = asyncio.Lock()  # one request at a time: each answer is the pid of its child

    @staticmethod
    def takes(argv: list[str]) -> bool:
        """It runs `<the app's interpreter> SCRIPT ARGS...` (not -m, -c or other options)."""
        return argv[0] == sys.executable and len(argv) > 1 and not argv[1].startswith("-")

    async def start(self) -> "WarmInterpreter":
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).with_name("warm_python.py")), str(theirs.fileno()),
                *self.options, pass_fds=[theirs.fileno()], stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, env=dict(self.env, PYTHONUNBUFFERED="1"), start_new_session=True,
                preexec_fn=die_with_parent(os.getpid()))
        finally:
            theirs.close()
        ours.setblocking(False)
        self._sock = ours
        stdout = self.process.stdout
        assert stdout is not None  # (PIPE)
        self._reader = asyncio.ensure_future(self._read_exits(stdout))
        return self

    async def _read_exits(self, stdout: asyncio.StreamReader) -> None:
        while line := await stdout.readline():
            pid, run, code = (int(x) for x in line.split())
            future = self._exits.pop((pid, run), None)
            if future is None:
                self._early[pid, run] = code
            elif not future.done():
                future.set_result(code)
        for future in self._exits.values():  # it died: its children went with it (SIGKILL)
            if not future.done():
                future.set_result(-signal.SIGKILL)
        self._exits.clear()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None and not self._broken

    async def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], stdin: bool = False,
                    deathsig: int = signal.SIGKILL, reuse: str | None = None) -> WarmProcess:
        """A child running argv, with its output on pipes (and its input, with stdin=True);
        `deathsig` when the warm interpreter dies. OSError if it cannot be had. `reuse`:
        a key naming the program; a child that ran a program of that key before and was
        put back as it was may run it again, not forked afresh (warm_python._run_again).
        A pid is told again for each run of such a child: a run is (pid, its number)."""
        if not self.running:
            raise OSError(tr("the warm interpreter (gate/warm.py) is not running"))
        loop = asyncio.get_running_loop()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin else (os.open(os.devnull, os.O_RDONLY), None)
        request = json.dumps({"argv": argv, "cwd": str(cwd), "env": env, "deathsig": deathsig,
                              **({"reuse": reuse} if reuse else {})}).encode()
        asked = asyncio.ensure_future(self._ask(request, [in_r, out_w, err_w]))
        try:
            pid, run, again = await asyncio.shield(asked)  # its answer is read even if the caller goes
            # (the next one's is next)
        except BaseException as error:
            for fd in (out_r, err_r, in_w):
                if fd is not None:
                    os.close(fd)
            if isinstance(error, asyncio.CancelledError):
                asked.add_done_callback(self._unwanted)
            raise
        exited = loop.create_future()
        if (pid, run) in self._early:
            exited.set_result(self._early.pop((pid, run)))
        elif self._reader is None or self._reader.done():
            exited.set_result(-signal.SIGKILL)
        else:
            self._exits[pid, run] = exited
        return WarmProcess(pid, await _reader(out_r), await _reader(err_r), exited,
                           await _writer(in_w) if in_w is not None else None, again=again, run=run,
                           interpreter=self)

    async def end_run(self, pid: int, run: int) -> bool:
        """Run `run` of child `pid` ends (SIGKILL to its process group) if it still runs;
        a kept child past that run (its end told: it may run its key's next) is left be.
        Its exit is reported as any (killed: -SIGKILL). False: the interpreter did not
        answer (gone, or too late)."""
        try:
            return await self._exchange(json.dumps({"kill": [pid, run]}).encode(), []) in (b"0", b"1")
        except OSError:
            return False

    async def _ask(self, request: bytes, fds: list[int]) -> tuple[int, int, bool]:
        """Send one request with its child's descriptors; (the pid of the child that runs
        it, the run's number, whether that child ran its program before)."""
        answer = await self._exchange(request, fds)
        words = answer.split()
        if len(words) != 3 or not all(word.isdigit() for word in words):  # it died: no pid comes
            raise OSError(tr("the warm interpreter (gate/warm.py) is not running"))
        pid, run, again = (int(word) for word in words)
        return pid, run, bool(again)

    async def _exchange(self, request: bytes, fds: list[int]) -> bytes:
        """Send one request (with `fds`, which are closed here) and read its answer."""
        sock = self._sock
        if sock is None or self._broken:
            for fd in fds:
                os.close(fd)
            raise OSError(tr("the warm interpreter (gate/warm.py) is not running"))
        async with self._spawning:
            try:
                socket.send_fds(sock, [request], fds) if fds else sock.send(request)
            finally:
                for fd in fds:
                    os.close(fd)
            try:
                async with asyncio.timeout(self.spawn_timeout):
                    return await asyncio.get_running_loop().sock_recv(sock, 64)
            except asyncio.TimeoutError:
                self._broken = True  # a late answer would be taken for the next request's
                raise OSError(tr("the warm interpreter (gate/warm.py) does not answer")) from None

    def _unwanted(self, asked: asyncio.Future) -> None:
        """A child forked for a caller that went meanwhile: it goes too, its exit dropped."""
        if asked.cancelled() or asked.exception() is not None:
            return
        pid, run, _ = asked.result()
        if self._early.pop((pid, run), None) is not None:  # it has ended already
            return
        self._exits[pid, run] = asyncio.get_running_loop().create_future()  # nobody waits for it
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    async def stop(self) -> None:
        if self.process is None:
            return
        if self.process.returncode is None:
            signal_group(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._sock is not None:
            self._sock.close()
        self.process = None


async def _reader(fd: int) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 16)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0))
    return reader


async def _writer(fd: int) -> asyncio.StreamWriter:
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), os.fdopen(fd, "wb", 0))
    return asyncio.StreamWriter(transport, protocol, None, loop)
