"""`redis-playground repl`: command lines on stdin, redis-cli's output on stdout.

A line `B> CMD` runs CMD as client B (default A). stdout gets exactly what
`redis-cli --no-raw` prints; everything meant for a human goes to stderr.

Order, as redis-cli keeps it per connection: a client's lines run one after another,
and its output is printed in the order its lines were sent. A command that blocks
(BLPOP, a busy script) blocks only its client: the next line for another client goes
ahead as soon as the server reports the client blocked, and the blocked client's own
later lines wait their turn. Output is printed at settle points, so it never depends
on timing: after each line, its own output, then that of clients it unblocked (a line
still blocked prints what it has so far: `2 BLPOP`'s first reply); a subscribed or
monitoring client prints what the server sent it so far. The clients' connections
have no name, as redis-cli's has none (CLIENT GETNAME: (nil)).

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

A line of a client whose earlier lines are still on their way is read in its turn,
after them: what redis-cli answers itself (`Invalid argument(s)`, `help`, `clear`) is
printed where redis-cli prints it. A client's `quit` ends that client only (as its
redis-cli exits): its later lines are named on stderr, the other clients go on; once
every client has quit, the rest of the input is not read. A line prefixed with a
client that does not exist is refused (stderr, exit status 1).

At end of input every line still waiting is waited for (cli/repl_eof.py): a blocking
command until its own timeout, a running script or a command held by CLIENT PAUSE up
to WAIT_AT_EOF seconds, and any line that another client's remaining lines may wake.
A command that would wait forever (timeout 0) with nothing left in the input to wake
it is cancelled with a note on stderr, the lines behind it are reported as not run,
and the exit status is 1.
"""

from __future__ import annotations

import asyncio
import gc
import io
import re
import sys
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from playground.cli.repl_eof import EndOfInput
from playground.cli.repl_input import line_batches
from playground.cli.repl_output import OutputClosed, ReplOutput
from playground.cli.repl_runs import PipelinedRuns
from playground.engine.catalogue import SUBSCRIBES
from playground.engine.executor import Executor, Job
from playground.engine.playground import Playground
from playground.i18n import tr
from playground.resp.cli_lines import CommandLine, format_argv
from playground.resp.replies import Err

_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
# After these (unless the server answered with an error) redis-cli stays in its
# subscribe or monitor loop for good: it reads no more input.
_STAYS_LISTENING = frozenset(SUBSCRIBES) | {b"monitor"}
QUIT = b"quit"  # (in Repl.deaf: the client's redis-cli has exited)
PIPELINE_LINES = 1000  # lines read ahead and sent together at most


@dataclass
class _Line:
    cmd: CommandLine | None         # None: read in its turn, behind its client's earlier lines
    text: bytes = b""               # the line as typed (without its client's prefix)
    started: asyncio.Event = field(default_factory=asyncio.Event)
    job: Job | None = None          # the executor's job, once this line's turn came
    held: list[tuple[object, bool | None]] = field(default_factory=list)  # (output, buffered), in order
    skipped: bool = False           # not run: its client listens or has quit (see Repl.deaf)
    answered: bool = False          # answered without the server (redis-cli's own words, a bad line)
    gave_up: str | None = None      # why it is cancelled at end of input, once waited for (cli/repl_eof.py)

    @property
    def done(self) -> bool:
        return self.skipped or self.answered or (self.job is not None and self.job.task.done())

    def what(self) -> str:
        return format_argv(list(self.cmd.argv)) if self.cmd is not None else self.text.decode(errors="replace")


class Repl(ReplOutput, PipelinedRuns, EndOfInput):
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
        self.deaf: dict[str, bytes] = {}  # client -> the word after which redis-cli reads no more (QUIT: it exited)
        self.after_quit: dict[str, bool] = {}  # the client's next line is lost, as in redis-cli
        self.ended: set[str] = set()  # clients whose wait was cancelled at end of input: no more lines run
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
        self.line_number = 0  # of the input line being handled (counted by feed_many)
        self.names = {name.lower().encode(): name for name in playground.sessions}  # `B> ` -> B
        self.default_client = next(iter(playground.sessions))

    # -- lines --------------------------------------------------------------------

    def split_client(self, line: bytes) -> tuple[str | None, bytes]:
        """(client, rest of the line); no prefix: the first client; None: a prefix that
        names no client of this playground (`C> GET y` with clients A and B)."""
        match = _PREFIX.match(line) if b">" in line else None
        if match:
            return self.names.get(match.group(1).lower()), line[match.end():]
        return self.default_client, line

    async def feed(self, raw: bytes) -> bool:
        """Handle one input line; False when nothing more is to be read (every client
        has quit, or the server is gone)."""
        name, text = self.split_client(raw.rstrip(b"\n"))
        if name is None:
            self._no_such_client(raw)
            return True
        if self.lines[name]:  # behind its client's earlier lines: read in its turn (see _run_line)
            self._enqueue(name, _Line(None, text))
        else:
            cmd = await self._read(name, text)
            if cmd is None:
                return not self._everyone_left()
            self._enqueue(name, _Line(cmd))
        await self._settle_client(name)
        for other in self.pg.sessions:
            if other != name:
                await self._settle_client(other)
        for session in self.pg.sessions.values():
            if session.streaming:
                await session.sync()
            self._flush_stream(session.name)
        self.flush()
        return not self.stopped and not self._everyone_left()

    async def _read(self, name: str, text: bytes) -> CommandLine | None:
        """A line of `name` read as redis-cli reads it, when its turn comes: the command
        to send, or None when it was answered here (or not read at all)."""
        cmd = self.executor.parse(name, text)
        if cmd is None:
            return None
        if name in self.deaf:
            self._not_read(name, cmd)
            return None
        if not cmd.counted and cmd.argv[0].lower() in (b"quit", b"exit"):
            self.deaf[name] = QUIT  # its redis-cli exits; the other clients go on
            return None
        if await self.executor.answer_locally(name, cmd):
            return None
        self.note_pause(cmd.argv)
        return cmd

    def _enqueue(self, name: str, line: _Line) -> None:
        self.lines[name].append(line)
        self.in_workers += 1
        self._queue(name).put_nowait(line)

    def _everyone_left(self) -> bool:
        return all(self.deaf.get(name) == QUIT for name in self.pg.sessions)

    def _no_such_client(self, raw: bytes) -> None:
        self.exit_code = 1
        prefix = raw.split(b">", 1)[0].strip().decode(errors="replace")
        self.say(tr("line {number}: no client {name} (the clients are {clients}; --clients names them); not run: {line}",
                    number=self.line_number, name=prefix, clients=", ".join(self.pg.sessions),
                    line=raw.rstrip(b"\n").decode(errors="replace")))

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
        if self.deaf.get(name) == QUIT:
            self.say(tr("client {name}: not run: {what} (after quit, redis-cli has exited)", name=name, what=what))
            return
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
            if line.job is None:  # not run, or answered here
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
            except Exception as exc:  # never a traceback, never a line waited for in vain
                self.say(tr("client {name}: {error}", name=name, error=exc))
                line.answered = line.job is None
            finally:
                line.started.set()
                self.in_workers -= 1

    async def _run_line(self, name: str, line: _Line) -> None:
        if name in self.ended:  # (named on stderr by cli/repl_eof.py)
            line.skipped = True
            return
        if line.cmd is None:  # its turn has come: read it now (what it prints is held as a reply is)
            self.running[name] = line
            try:
                line.cmd = await self._read(name, line.text)
            finally:
                self.running[name] = None
            if line.cmd is None:
                line.answered = True
                return
        if name in self.deaf or self.after_quit.pop(name, False):
            line.skipped = True
            self._not_read(name, line.cmd)
            return
        self.running[name] = line
        if line.job is None:  # (else a pipelined line that blocked, handed over running)
            line.job = self.executor.submit(name, line.cmd.argv, line.cmd.repeat)
        line.started.set()
        try:
            result = await line.job
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise  # the worker itself is cancelled
            return  # the line was (cli/repl_eof.py cancelled it at end of input)
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
