"""`redis-playground repl`: command lines on stdin, redis-cli's output on stdout.

A line `B> CMD` runs CMD as client B (default A). stdout gets exactly what
`redis-cli --no-raw` prints; everything meant for a human goes to stderr.

Order, as redis-cli keeps it per connection: a client's lines run one after another,
and its output is printed in the order its lines were sent. A command that blocks
(BLPOP, a busy script) blocks only its client: the next line for another client goes
ahead as soon as the server reports the client blocked, and the blocked client's own
later lines wait their turn. Output is printed at settle points, so it never depends
on timing: after each line, its own output, then that of clients it unblocked; a
subscribed or monitoring client prints what the server sent it so far.

At end of input every line still waiting is waited for: a blocking command until its
own timeout, a running script up to SCRIPT_WAIT_AT_EOF seconds. A command that would
wait forever (timeout 0) with nothing left in the input to wake it is cancelled with a
note on stderr, the lines behind it are reported as not run, and the exit status is 1.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from playground.cli.blocking import block_timeout
from playground.engine import events as ev
from playground.engine.executor import Executor, Job
from playground.engine.playground import Playground
from playground.i18n import tr
from playground.resp.cli_lines import CommandLine, format_argv

_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
SCRIPT_WAIT_AT_EOF = 60.0


class OutputClosed(Exception):
    """stdout went away (`repl | head -1`): stop quietly."""


@dataclass
class _Line:
    cmd: CommandLine
    started: asyncio.Event = field(default_factory=asyncio.Event)
    job: Job | None = None          # the executor's job, once this line's turn came
    held: list[bytes] = field(default_factory=list)   # its output, printed in FIFO order

    @property
    def done(self) -> bool:
        return self.job is not None and self.job.task.done()


class Repl:
    """Feeds lines to the playground's clients and prints their replies."""

    def __init__(self, playground: Playground, out: BinaryIO, err: TextIO) -> None:
        self.pg = playground
        self.out = out
        self.err = err
        self.executor = Executor(playground, self._on_event)
        self.queues: dict[str, asyncio.Queue] = {}
        self.workers: dict[str, asyncio.Task] = {}
        self.lines: dict[str, list[_Line]] = {name: [] for name in playground.sessions}  # not yet printed
        self.running: dict[str, _Line | None] = {name: None for name in playground.sessions}
        # Stream frames wait for a settle point, so a PUBLISH's own reply is printed
        # before the message it delivered.
        self.stream_held: dict[str, list[bytes]] = {name: [] for name in playground.sessions}
        self.exit_code = 0
        self.stopped = False

    # -- output -------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        try:
            self.out.write(data)
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def say(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def _on_event(self, event: ev.Event) -> None:
        line = self.running.get(event.client)
        if isinstance(event, ev.Message):
            self.stream_held[event.client].append(event.output)
        elif isinstance(event, (ev.Reply, ev.Output)):
            if line is None:
                self.write(event.output)
            else:
                line.held.append(event.output)
        elif isinstance(event, ev.Notice):
            self.say(event.text)

    def _print_done(self, name: str) -> None:
        """Print the finished lines of client `name`, oldest first, up to the first
        one still running: a client's output keeps the order of its lines."""
        lines = self.lines[name]
        while lines and lines[0].done:
            for data in lines.pop(0).held:
                self.write(data)

    def _flush_stream(self, name: str) -> None:
        held = self.stream_held[name]
        while held:
            self.write(held.pop(0))

    # -- lines --------------------------------------------------------------------

    def split_client(self, line: bytes) -> tuple[str, bytes]:
        match = _PREFIX.match(line)
        if match:
            name = match.group(1).decode()
            for known in self.pg.sessions:
                if known.lower() == name.lower():
                    return known, line[match.end():]
        return next(iter(self.pg.sessions)), line

    async def feed(self, raw: bytes) -> bool:
        """Handle one input line; False when the user typed quit/exit."""
        name, text = self.split_client(raw.rstrip(b"\n"))
        cmd = self.executor.parse(name, text)
        if cmd is None:
            return True
        if not cmd.counted and cmd.argv[0].lower() in (b"quit", b"exit"):
            return False
        if await self.executor.answer_locally(name, cmd):
            return True
        line = _Line(cmd)
        self.lines[name].append(line)
        self._queue(name).put_nowait(line)
        await self._settle_client(name)
        for other in self.pg.sessions:
            if other != name:
                await self._settle_client(other)
        for session in self.pg.sessions.values():
            if session.streaming:
                await session.sync()
            self._flush_stream(session.name)
        return not self.stopped

    async def _settle_client(self, name: str) -> bool:
        """Wait until each of the client's lines is done, in order, or one is blocked
        on the server (the lines behind it wait their turn); print what is done."""
        for line in list(self.lines[name]):
            await line.started.wait()
            if not await line.job.settle():
                break
        self._print_done(name)
        return not self.lines[name]

    def _queue(self, name: str) -> asyncio.Queue:
        if name not in self.queues:
            self.queues[name] = asyncio.Queue()
            self.workers[name] = asyncio.create_task(self._worker(name))
        return self.queues[name]

    async def _worker(self, name: str) -> None:
        queue = self.queues[name]
        while True:
            line = await queue.get()
            self.running[name] = line
            line.job = self.executor.submit(name, line.cmd.argv, line.cmd.repeat)
            line.started.set()
            try:
                result = await line.job
            except Exception as exc:  # never a traceback: say what happened
                self.say(tr("client {name}: {error}", name=name, error=exc))
                continue
            finally:
                self.running[name] = None
            if result.server_gone:
                await self._server_gone(name, result.expected_stop)

    async def _server_gone(self, name: str, expected: bool) -> None:
        if not self.pg.private:
            self.exit_code, self.stopped = 1, True
            return
        if self.pg.server_stopped():  # another client may have restarted it already
            cause = tr("after SHUTDOWN") if expected else tr("unexpectedly")
            self.say(tr("client {name}: the server stopped {cause}", name=name, cause=cause))
            self.say(await self.pg.restart())

    async def finish(self) -> None:
        """End of input: wait for what is still coming (see the module docstring)."""
        for name, lines in self.lines.items():
            while lines:
                line = lines[0]
                await line.started.wait()
                if not await line.job.settle():
                    if not await self._wait_at_eof(name, line):
                        break
                self._print_done(name)
        for name in self.stream_held:
            self._flush_stream(name)
        for task in self.workers.values():
            task.cancel()
        await asyncio.gather(*self.workers.values(), return_exceptions=True)

    async def _wait_at_eof(self, name: str, line: _Line) -> bool:
        """A line still blocked at end of input: wait for it if it ends by itself;
        False (and the client's lines dropped) if it was cancelled."""
        what = format_argv(list(line.cmd.argv))
        if self.pg.sessions[name].state.busy_script:
            self.say(tr("client {name}: end of input; waiting for its script ({command}) to finish", name=name, command=what[:40]))
            try:
                await asyncio.wait_for(asyncio.shield(line.job.task), SCRIPT_WAIT_AT_EOF)
                return True
            except asyncio.TimeoutError:
                self.say(tr("client {name}: the script still runs after {seconds:g}s; cancelled", name=name, seconds=SCRIPT_WAIT_AT_EOF))
        else:
            timeout = block_timeout(line.cmd.argv)
            if timeout:  # it ends by itself, as it would in redis-cli
                await asyncio.shield(line.job.task)
                return True
            self.say(tr("client {name}: end of input while {command} waits forever (timeout 0) and nothing "
                        "left in the input can wake it; cancelled", name=name, command=what))
        self.exit_code = 1
        try:
            await self.executor.cancel(name)
        except Exception as exc:  # the server is gone: nothing to reconnect to
            self.say(tr("client {name}: {error}", name=name, error=exc))
        await asyncio.gather(line.job.task, return_exceptions=True)
        for later in self.lines[name][1:]:
            self.say(tr("client {name}: not run: {command}", name=name, command=format_argv(list(later.cmd.argv))))
            if later.job is not None:
                later.job.task.cancel()
        self.lines[name].clear()
        self.workers[name].cancel()
        return False


def _stdin_lines(stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
    """Read lines in a daemon thread, so a blocked read never holds up shutdown.

    A real file descriptor is read with os.read: a daemon thread blocked inside a
    buffered reader at interpreter exit aborts Python ("_enter_buffered_busy")."""
    queue: asyncio.Queue = asyncio.Queue()

    def chunks():
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            yield from iter(lambda: stream.read(65536), b"")
            return
        while chunk := os.read(fd, 65536):
            yield chunk

    def pump() -> None:
        rest = b""
        try:
            for chunk in chunks():
                rest += chunk
                *lines, rest = rest.split(b"\n")
                for line in lines:
                    loop.call_soon_threadsafe(queue.put_nowait, line + b"\n")
            if rest:
                loop.call_soon_threadsafe(queue.put_nowait, rest)
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:  # the loop is closed: the REPL has ended
            pass

    threading.Thread(target=pump, daemon=True, name="repl-stdin").start()
    return queue


async def run_repl(playground: Playground, stdin: BinaryIO | None = None,
                   stdout: BinaryIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the REPL until end of input; returns the exit code."""
    stdin = stdin or sys.stdin.buffer
    repl = Repl(playground, stdout or sys.stdout.buffer, stderr or sys.stderr)
    async with playground:
        repl.say(tr("redis-playground repl: {server}; clients {clients} (prefix a line with 'B> ' for client B)",
                    server=playground.label, clients=", ".join(playground.sessions)))
        lines = _stdin_lines(stdin, asyncio.get_running_loop())
        try:
            while (line := await lines.get()) is not None:
                if not await repl.feed(line):
                    break
            await repl.finish()
        except OutputClosed:
            for task in repl.workers.values():
                task.cancel()
            await asyncio.gather(*repl.workers.values(), return_exceptions=True)
            return 1
    return repl.exit_code
