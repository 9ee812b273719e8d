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

Speed: lines read together are pipelined (`feed_many`, engine/pipeline.py): while no
client waits or listens, a run of plain lines goes to the server ahead of the replies,
which are printed in input order as they arrive. A line of one client is sent while
another client's lines are still in flight only when they commute (they share no key
that either writes, engine/commuting.py); otherwise it waits for their replies, as
line by line. A line that may block, stream or change the connection goes alone, as
above. A script goes with the run when the same client's next line follows it (that
line would wait for the script anyway); otherwise it ends the run, and if the server
says it is busy, the lines after it go on without it, as above. The one difference:
while a script followed by its own client's line runs longer than the server's busy
threshold (5 s), other clients' lines behind the run wait for it instead of getting BUSY.

At end of input every line still waiting is waited for: a blocking command until its
own timeout, a running script up to SCRIPT_WAIT_AT_EOF seconds. A command that would
wait forever (timeout 0) with nothing left in the input to wake it is cancelled with a
note on stderr, the lines behind it are reported as not run, and the exit status is 1.
"""

from __future__ import annotations

import asyncio
import gc
import io
import re
import sys
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from playground.engine.catalogue import block_timeout
from playground.cli.repl_input import line_batches
from playground.cli.repl_runs import PipelinedRuns
from playground.engine import events as ev
from playground.engine.executor import Executor, Job
from playground.engine.playground import Playground, no_reply_coming
from playground.i18n import tr
from playground.resp.cli_lines import CommandLine, format_argv
from playground.resp.replies import Err, Push

_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
SCRIPT_WAIT_AT_EOF = 60.0
CLEAR_SCREEN = b"\x1b[H\x1b[2J"   # linenoiseClearScreen, written at once (not through stdio)
# After these (unless the server answered with an error) redis-cli stays in its
# subscribe or monitor loop for good: it reads no more input.
_STAYS_LISTENING = (b"subscribe", b"psubscribe", b"ssubscribe", b"monitor")
PIPELINE_LINES = 1000  # lines read ahead and sent together at most


class OutputClosed(Exception):
    """stdout went away (`repl | head -1`): stop quietly."""


@dataclass
class _Line:
    cmd: CommandLine
    started: asyncio.Event = field(default_factory=asyncio.Event)
    job: Job | None = None          # the executor's job, once this line's turn came
    held: list[tuple[object, bool]] = field(default_factory=list)  # (output, buffered), in order
    skipped: bool = False           # not run: its client listens for good (see Repl.deaf)

    @property
    def done(self) -> bool:
        return self.skipped or (self.job is not None and self.job.task.done())


class Repl(PipelinedRuns):
    """Feeds lines to the playground's clients and prints their replies."""

    def __init__(self, playground: Playground, out: BinaryIO, err: TextIO, show_pushes: bool = False) -> None:
        self.pg = playground
        self.out = out
        self.err = err
        self.show_pushes = show_pushes  # redis-cli --show-pushes yes (piped, it hides them)
        self.executor = Executor(playground, self._on_event)
        self.executor.keep_output = False  # written as it comes: a big reply in pieces
        self.executor.replies_only = True
        for session in playground.sessions.values():
            session.keep_units = False  # no server-order records: nobody here reads them
            session.named = False  # redis-cli's connection has no name: CLIENT GETNAME is (nil)
        self.unflushed: list[bytes] = []  # what redis-cli printed without fflush (see write)
        self.last_reply: dict[str, object] = {}  # each client's last reply or stream frame
        self.deaf: dict[str, bytes] = {}  # client -> the word after which redis-cli reads no more
        self.after_quit: dict[str, bool] = {}  # the client's next line is lost, as in redis-cli
        self.in_workers = 0  # lines queued to a worker and not yet through (restarts included)
        self.queues: dict[str, asyncio.Queue] = {}
        self.workers: dict[str, asyncio.Task] = {}
        self.lines: dict[str, list[_Line]] = {name: [] for name in playground.sessions}  # not yet printed
        self.running: dict[str, _Line | None] = {name: None for name in playground.sessions}
        # Stream frames wait for a settle point, so a PUBLISH's own reply is printed
        # before the message it delivered.
        self.stream_held: dict[str, list[bytes]] = {name: [] for name in playground.sessions}
        self.exit_code = 0
        self.stopped = False
        self.names = {name.lower().encode(): name for name in playground.sessions}  # `B> ` -> B
        self.default_client = next(iter(playground.sessions))

    # -- output -------------------------------------------------------------------

    def write(self, data, buffered: bool = False) -> None:
        """Write redis-cli's output: bytes, or an iterator of pieces (a big reply).

        `buffered`: redis-cli printed it without fflush, so it waits in stdio's buffer
        and the clear-screen sequence (a direct write) overtakes it."""
        if buffered:
            self.unflushed.append(data)
            return
        try:
            if self.unflushed:
                pending, self.unflushed = self.unflushed, []
                for piece in pending:
                    self.out.write(piece)
            if isinstance(data, bytes):
                self.out.write(data)
            else:
                for piece in data:
                    self.out.write(piece)
        except BrokenPipeError:
            raise OutputClosed() from None

    def flush(self, everything: bool = False) -> None:
        try:
            if everything and self.unflushed:
                self.write(b"")
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def write_direct(self, data: bytes) -> None:
        try:
            self.out.flush()
            self.out.write(data)
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def say(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def _on_event(self, event: ev.Event) -> None:
        client = event.client
        line = self.running.get(client)
        if line is not None and not any(held is line for held in self.lines[client]):
            line = None  # printed already (its worker has not cleared `running` yet): what comes now is not its
        if isinstance(event, ev.Message):
            if isinstance(event.frame, Push) and not self.pg.sessions[client].streaming:
                # a push between replies (client tracking): piped redis-cli hides it
                # unless --show-pushes yes, and prints it where it reads it: before the
                # reply of the command it was reading for
                if self.show_pushes:
                    self._out(line, event.output)
                return
            self.last_reply[client] = event.frame
            if line is not None:  # the running line's own frames (its confirmations), in order
                line.held.append((event.output, False))
            else:
                self.stream_held[client].append(event.output)
        elif isinstance(event, ev.Reply):
            self.last_reply[client] = event.reply
            self._out(line, event.output)
        elif isinstance(event, ev.Output):
            self._out(line, event.output, event.buffered)
        elif isinstance(event, ev.Cleared):
            self.write_direct(CLEAR_SCREEN)
        elif isinstance(event, ev.Notice):
            self.say(event.text)

    def _out(self, line: "_Line | None", output, buffered: bool = False) -> None:
        if line is None:
            self.write(output, buffered)
        else:
            line.held.append((output, buffered))

    def _print_done(self, name: str) -> None:
        """Print the finished lines of client `name`, oldest first, up to the first
        one still running: a client's output keeps the order of its lines."""
        lines = self.lines[name]
        while lines and lines[0].done:
            for data, buffered in lines.pop(0).held:
                self.write(data, buffered)

    def _flush_stream(self, name: str) -> None:
        held = self.stream_held[name]
        while held:
            self.write(held.pop(0))

    # -- lines --------------------------------------------------------------------

    def split_client(self, line: bytes) -> tuple[str, bytes]:
        match = _PREFIX.match(line) if b">" in line else None
        if match:
            known = self.names.get(match.group(1).lower())
            if known is not None:
                return known, line[match.end():]
        return self.default_client, line

    async def feed(self, raw: bytes) -> bool:
        """Handle one input line; False when the user typed quit/exit."""
        name, text = self.split_client(raw.rstrip(b"\n"))
        cmd = self.executor.parse(name, text)
        if cmd is None:
            return True
        if name in self.deaf:
            self._not_read(name, cmd)
            return True
        if not cmd.counted and cmd.argv[0].lower() in (b"quit", b"exit"):
            return False
        if await self.executor.answer_locally(name, cmd):
            return True
        self.note_pause(cmd.argv)
        line = _Line(cmd)
        self.lines[name].append(line)
        self.in_workers += 1
        self._queue(name).put_nowait(line)
        await self._settle_client(name)
        for other in self.pg.sessions:
            if other != name:
                await self._settle_client(other)
        for session in self.pg.sessions.values():
            if session.streaming:
                await session.sync()
            self._flush_stream(session.name)
        self.flush()
        return not self.stopped

    def adopt(self, name: str, cmd: CommandLine, job: Job) -> None:
        """A pipelined line that blocked, still running: its client's worker takes it
        over as if it had started it (the client's later lines wait their turn)."""
        line = _Line(cmd, job=job)
        line.started.set()
        self.lines[name].append(line)
        self.running[name] = line
        self.in_workers += 1
        self._queue(name).put_nowait(line)

    def _not_read(self, name: str, cmd: CommandLine) -> None:
        what = format_argv(list(cmd.argv))
        if name not in self.deaf:
            self.say(tr("client {name}: not run: {what} (after QUIT, redis-cli finds the connection closed at the "
                        "next command, says so on stderr, and reconnects at the one after)", name=name, what=what))
            return
        self.say(tr("client {name}: not run: {what} (after {command}, redis-cli reads no more input)",
                    name=name, what=what, command=self.deaf[name].decode().upper()))

    async def _settle_client(self, name: str) -> bool:
        """Wait until each of the client's lines is done, in order, or one is blocked
        on the server (the lines behind it wait their turn); print what is done."""
        for line in list(self.lines[name]):
            await line.started.wait()
            if line.skipped:
                continue
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
            try:
                await self._run_line(name, line)
            finally:
                self.in_workers -= 1

    async def _run_line(self, name: str, line: _Line) -> None:
        if name in self.deaf or self.after_quit.pop(name, False):
            line.skipped = True
            line.started.set()
            self._not_read(name, line.cmd)
            return
        self.running[name] = line
        if line.job is None:  # (else a pipelined line that blocked, handed over running)
            line.job = self.executor.submit(name, line.cmd.argv, line.cmd.repeat)
        line.started.set()
        try:
            result = await line.job
        except Exception as exc:  # never a traceback: say what happened
            self.say(tr("client {name}: {error}", name=name, error=exc))
            return
        finally:
            self.running[name] = None
        word = line.cmd.argv[0].lower()
        if word in _STAYS_LISTENING and not isinstance(self.last_reply.get(name), Err):
            self.deaf[name] = word
        elif word == b"quit" and self.pg.sessions[name].state.disconnected:
            if line.cmd.repeat > 1:  # redis-cli's second QUIT is the line that meets the closed connection
                self.say(tr("client {name}: {count} QUIT: the QUITs after the first meet the closed connection "
                            "(redis-cli says so on stderr); the next line reconnects", name=name, count=line.cmd.repeat))
            else:
                self.after_quit[name] = True
        if result.may_have_run:  # (a pipelined line handed over: cli/repl_runs.py)
            self.exit_code = 1
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
        for session in self.pg.sessions.values():
            if session.ldb.active:  # redis-cli would exit here, and its connection with it
                self.say(tr("client {name}: end of input during a Lua debugging session; its connection is "
                            "closed, as redis-cli's exit would", name=session.name))
                await session.close()
        for name, lines in self.lines.items():
            while lines:
                line = lines[0]
                await line.started.wait()
                if not line.skipped and not await line.job.settle():
                    if not await self._wait_at_eof(name, line):
                        break
                self._print_done(name)
        for name in self.stream_held:
            self._flush_stream(name)
        self.flush(everything=True)
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
        elif no_reply_coming(self.pg.sessions[name]):
            self.say(tr("client {name}: end of input while {command} waits for a reply the server never sends "
                        "(redis-cli waits for ever); cancelled", name=name, command=what))
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


async def run_repl(playground: Playground, stdin: BinaryIO | None = None,
                   stdout: BinaryIO | None = None, stderr: TextIO | None = None,
                   show_pushes: bool = False) -> int:
    """Run the REPL until end of input; returns the exit code."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    buffered = None
    if isinstance(stdout, io.RawIOBase):  # python -u, PYTHONUNBUFFERED: a write per reply otherwise
        stdout = buffered = io.BufferedWriter(stdout, 1 << 16)  # (flushed at each settle point, as before)
    try:
        return await _run_repl(playground, stdin, stdout, stderr, show_pushes)
    finally:
        if buffered is not None:
            try:
                buffered.flush()
                buffered.detach()  # the caller's stdout stays open
            except (OSError, ValueError):
                pass  # stdout went away (`| head -1`): nothing more to say there


async def _run_repl(playground: Playground, stdin: BinaryIO, stdout: BinaryIO, stderr: TextIO | None,
                    show_pushes: bool) -> int:
    repl = Repl(playground, stdout, stderr or sys.stderr, show_pushes)
    async with playground:
        gc.freeze()  # what start-up made lives as long as the repl: never scan it again (~7% of a long input)
        repl.say(tr("redis-playground repl: {server}; clients {clients} (prefix a line with 'B> ' for client B)",
                    server=playground.label, clients=", ".join(playground.sessions)))
        try:
            async for batch in line_batches(stdin, PIPELINE_LINES):
                if not await repl.feed_many(batch):
                    break
            await repl.finish()
        except OutputClosed:
            for task in repl.workers.values():
                task.cancel()
            await asyncio.gather(*repl.workers.values(), return_exceptions=True)
            return 1
    return repl.exit_code
