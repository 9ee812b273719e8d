"""`redis-playground repl`: command lines on stdin, redis-cli's output on stdout.

A line `B> CMD` runs CMD as client B (default A). stdout gets exactly what
`redis-cli --no-raw` prints; everything meant for a human goes to stderr.

Order, as redis-cli keeps it per connection: a client's lines run one after another,
and its output is printed in the order its lines were sent. A command that blocks
(BLPOP, a busy script) blocks only its client, and the blocked client's own later
lines wait their turn. Another client's next line goes ahead as soon as the server
reports the client blocked if the blocked line may never end by itself (`BLPOP l 0`, a
busy script); a line that ends by itself (a timeout, a CLIENT PAUSE) is waited for,
unless the new line touches none of its keys (cli/repl_order.py). Output is printed at
settle points, so it never depends
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
every client has quit, the rest of the input is not read. After SUBSCRIBE or MONITOR
(or `quit`) redis-cli reads no more input: the client's later lines print nothing on
stdout, not even `Invalid argument(s)`, and are named on stderr. A line prefixed with a
client that does not exist is refused (stderr, exit status 1).

At end of input every line still waiting is waited for (cli/repl_eof.py): a blocking
command until its own timeout, a line held by a CLIENT PAUSE typed here until the pause
is over (a `BLPOP l 0` under it too), a running script or a line held by another's pause
up to WAIT_AT_EOF seconds, and any line that another client's remaining lines may wake.
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
from typing import BinaryIO, TextIO

from playground.cli.repl_eof import EndOfInput, ReplStatus
from playground.cli.repl_input import line_batches
from playground.cli.repl_lines import ClientLines, ReplLine
from playground.cli.repl_order import LineOrder
from playground.cli.repl_output import OutputClosed, ReplOutput
from playground.cli.repl_pause import PauseClock
from playground.cli.repl_reading import ClientReading
from playground.cli.repl_runs import PipelinedRuns, RunLine
from playground.engine.executor import Executor
from playground.engine.exit_signals import install_exit_signals
from playground.engine.playground import Playground, Refused
from playground.engine.session_stream import ConnectionLost
from playground.i18n import tr
from playground.resp.cli_lines import CommandLine

_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
PIPELINE_LINES = 1000  # lines read ahead and sent together at most


class Repl:
    """Feeds lines to the playground's clients and prints their replies.

    It owns the parts it is made of: its output (cli/repl_output.py), the lines on their
    way and the settle points (cli/repl_lines.py), what each client's redis-cli still reads
    (cli/repl_reading.py), when a line may overtake another client's (cli/repl_order.py,
    cli/repl_pause.py), the pipelined runs (cli/repl_runs.py) and the end of the input
    (cli/repl_eof.py). Here are the input and each client's worker (its lines one after
    another)."""

    def __init__(self, playground: Playground, out: BinaryIO, err: TextIO, show_pushes: bool = False) -> None:
        self.pg = playground
        self.output = ReplOutput(out, err)
        self.lines = ClientLines(self.output, playground.sessions, show_pushes)
        self.executor = Executor(playground, self.lines.on_event)
        self.executor.keep_output = False  # written as it comes: a big reply in pieces
        self.executor.replies_only = True
        for session in playground.sessions.values():
            session.keep_units = False  # no server-order records: nobody here reads them
            session.named = False  # redis-cli's connection has no name: CLIENT GETNAME is (nil)
        self.status = ReplStatus()
        self.pauses = PauseClock()
        self.order = LineOrder(playground, self.lines, self.pauses)
        self.reading = ClientReading(self.executor, playground.sessions, self.output)
        self.runs = PipelinedRuns(playground, self.executor, self.split_client, self.reading.reads_no_more,
                                  show_pushes)
        self.end = EndOfInput(playground, self.executor, self.lines, self.output, self.pauses, self.status)
        self.in_workers = 0  # lines queued to a worker and not yet through (restarts included)
        self.queues: dict[str, asyncio.Queue[ReplLine]] = {}
        self.workers: dict[str, asyncio.Task] = {}
        self.line_number = 0  # of the input line being handled (counted by feed_many)
        self.names = {name.lower().encode(): name for name in playground.sessions}  # `B> ` -> B
        self.default_client = next(iter(playground.sessions))

    @property
    def exit_code(self) -> int:
        """0, or 1 when something went otherwise than in redis-cli (said on stderr)."""
        return self.status.exit_code

    # -- input ----------------------------------------------------------------------

    def split_client(self, line: bytes) -> tuple[str | None, bytes]:
        """(client, rest of the line); no prefix: the first client; None: a prefix that
        names no client of this playground (`C> GET y` with clients A and B)."""
        match = _PREFIX.match(line) if b">" in line else None
        if match:
            return self.names.get(match.group(1).lower()), line[match.end():]
        return self.default_client, line

    async def feed_many(self, raws: list[bytes]) -> bool:
        """Handle lines read together: runs of plain lines are pipelined
        (`Executor.run_pipelined`) while nothing else is going on (no client waiting
        or listening); every other line goes through `feed`. Same output either way.
        False when nothing more is to be read."""
        run: list[RunLine] = []
        quiet = self.quiet()
        for index, raw in enumerate(raws):
            self.line_number += 1
            following = raws[index + 1] if index + 1 < len(raws) else None
            fast = self.runs.pipelinable(raw, following) if quiet else None
            if fast is not None:
                if fast[2]:  # a script another client's line follows: it ends the run
                    if not await self._run_pipelined(run + [(raw, fast[0], fast[1])], settle_last=True):
                        return False
                    run = []
                    quiet = self.quiet()
                else:
                    run.append((raw, fast[0], fast[1]))
                continue
            if run:
                if not await self._run_pipelined(run):
                    return False
                run = []
            if not await self.feed(raw):
                return False
            quiet = self.quiet()
        if run and not await self._run_pipelined(run):
            return False
        self.output.flush()
        return not self.status.stopped

    def quiet(self) -> bool:
        """Nothing going on that a pipelined line could overtake: no line waiting or
        still in a worker, no client listening, every one connected, no CLIENT PAUSE of
        ours in force (a run of two clients' lines asks the server for their keys first,
        COMMAND INFO, and that would sit out a pause of every command). (A line of a
        client that reads no more is never pipelined.)"""
        if self.pauses.holding():
            return False
        return not (self.in_workers or self.lines.pending() or self.reading.after_quit
                    or any(s.streaming or not s.connected or s.state.disconnected or s.ldb.active
                           for s in self.pg.sessions.values()))

    async def _run_pipelined(self, run: list[RunLine], settle_last: bool = False) -> bool:
        results, blocked = await self.runs.run(run, settle_last)
        for result in results:
            if result.may_have_run:  # redis-cli would have sent it (and printed its reply)
                self.status.failed()
            if result.server_gone:
                await self._server_gone(result.client, result.expected_stop)
        if blocked is not None:  # the last line still runs: its client's worker takes it over
            _, name, cmd = run[-1]
            self.adopt(name, cmd, blocked)
            return not self.status.stopped
        for raw, _, _ in run[len(results):]:  # the server went away: the rest one by one
            if not await self.feed(raw):
                return False
        return not self.status.stopped

    async def feed(self, raw: bytes) -> bool:
        """Handle one input line; False when nothing more is to be read (every client
        has quit, or the server is gone)."""
        name, text = self.split_client(raw.rstrip(b"\n"))
        if name is None:
            self._no_such_client(raw)
            return True
        if self.lines.lines[name]:  # behind its client's earlier lines: read in its turn (see _run_line)
            self._enqueue(name, ReplLine(None, text))
        else:
            cmd = await self.reading.read(name, text)
            if cmd is None:
                return not self.reading.everyone_left()
            if await self.order.wait_turn(name, cmd.argv):  # the lines it waited for come first
                for other in self.pg.sessions:
                    if other != name:
                        self.lines.print_done(other)
            self._enqueue(name, ReplLine(cmd))
        await self.lines.settle_point(name)
        return not self.status.stopped and not self.reading.everyone_left()

    def _enqueue(self, name: str, line: ReplLine) -> None:
        self.lines.lines[name].append(line)
        self.in_workers += 1
        self._queue(name).put_nowait(line)

    def _no_such_client(self, raw: bytes) -> None:
        self.status.failed()
        prefix = raw.split(b">", 1)[0].strip().decode(errors="replace")
        self.output.say(tr("line {number}: no client {name} (the clients are {clients}; --clients names them); "
                           "not run: {line}", number=self.line_number, name=prefix,
                           clients=", ".join(self.pg.sessions), line=raw.rstrip(b"\n").decode(errors="replace")))

    def adopt(self, name: str, cmd: CommandLine, job) -> None:
        """A pipelined line that blocked, still running: its client's worker takes it
        over as if it had started it (the client's later lines wait their turn)."""
        line = ReplLine(cmd, job=job)
        line.started.set()
        self.lines.lines[name].append(line)
        self.lines.running[name] = line
        self.in_workers += 1
        self._queue(name).put_nowait(line)

    # -- the clients' workers -------------------------------------------------------

    def _queue(self, name: str) -> asyncio.Queue[ReplLine]:
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
                self.output.say(tr("client {name}: {error}", name=name, error=exc))
                line.answered = line.job is None
            finally:
                line.started.set()
                self.in_workers -= 1

    async def _run_line(self, name: str, line: ReplLine) -> None:
        if name in self.status.ended:  # (named on stderr by cli/repl_eof.py)
            line.skipped = True
            return
        if line.cmd is None and not await self._read_in_turn(name, line):
            return
        cmd = line.cmd
        assert cmd is not None
        if not self.reading.takes(name, cmd):
            line.skipped = True
            return
        self.lines.running[name] = line
        if line.job is None:  # (else a pipelined line that blocked, handed over running)
            line.job = self.executor.submit(name, cmd.argv, cmd.repeat)
        job = line.job
        line.started.set()
        try:
            result = await job
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the worker itself is cancelled
            return  # the line was (cli/repl_eof.py cancelled it at end of input)
        except Exception as exc:  # never a traceback: say what happened
            self.output.say(tr("client {name}: {error}", name=name, error=exc))
            return
        finally:
            self.lines.running[name] = None
        self.pauses.answered(cmd.argv, result.replies, held=job.blocked)
        self.reading.ran(name, cmd, result, self.lines.last_reply.get(name))
        if result.may_have_run:  # (a pipelined line handed over: cli/repl_runs.py)
            self.status.failed()
        if result.server_gone:
            await self._server_gone(name, result.expected_stop)

    async def _read_in_turn(self, name: str, line: ReplLine) -> bool:
        """A line queued behind its client's earlier lines is read now that its turn has
        come (what it prints is held as a reply is); False when it sends nothing."""
        self.lines.running[name] = line
        try:
            line.cmd = await self.reading.read(name, line.text)
        finally:
            self.lines.running[name] = None
        line.answered = line.cmd is None
        return line.cmd is not None

    async def _server_gone(self, name: str, expected: bool) -> None:
        if not self.pg.private:
            self.status.failed()
            self.status.stopped = True
            return
        if self.pg.server_stopped():  # another client may have restarted it already
            cause = tr("after SHUTDOWN") if expected else tr("unexpectedly")
            self.output.say(tr("client {name}: the server stopped {cause}", name=name, cause=cause))
            self.output.say(await self.pg.restart())

    # -- the end ----------------------------------------------------------------------

    async def finish(self) -> None:
        """End of input: wait for what is still coming, cancel what never comes
        (cli/repl_eof.py), then stop the workers."""
        await self.end.finish()
        await self.stop_workers()

    async def stop_workers(self) -> None:
        """Cancel every client's worker and wait for them."""
        workers = list(self.workers.values())
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


def cmd_repl(args) -> int:
    """`redis-playground repl`: its playground from the command line's options, run until
    end of input; the exit status (an engine's refusal or a connection that cannot be
    made: one line on stderr, 1).

    Args:
        args: the parsed command line (cli/main.py).
    """
    install_exit_signals()
    pg = Playground.create(server_choice=args.server, url=args.url, clients=args.clients,
                           allow_flush=args.allow_flush, topology=args.topology, replicas=args.replicas,
                           resp=3 if args.resp3 else 2)
    try:
        return asyncio.run(run_repl(pg, show_pushes=args.show_pushes == "yes"))
    except (Refused, ConnectionLost) as exc:
        print(f"redis-playground: {exc}", file=sys.stderr)
        return 1


async def run_repl(playground: Playground, stdin: BinaryIO | None = None,
                   stdout: BinaryIO | None = None, stderr: TextIO | None = None,
                   show_pushes: bool = False) -> int:
    """Run the REPL until end of input; returns the exit code.

    Args:
        playground: the server and clients (not started yet: started and closed here).
        stdin: the lines (default: sys.stdin).
        stdout: where redis-cli's output goes (default: sys.stdout).
        stderr: where the notes go (default: sys.stderr).
        show_pushes: as redis-cli --show-pushes yes.
    """
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
        repl.output.say(tr("redis-playground repl: {server}; clients {clients} (prefix a line with 'B> ' for "
                           "client B)", server=playground.label, clients=", ".join(playground.sessions)))
        try:
            async for batch in line_batches(stdin, PIPELINE_LINES):
                if not await repl.feed_many(batch):
                    break
            await repl.finish()
        except OutputClosed:
            await repl.stop_workers()
            return 1
    return repl.exit_code
