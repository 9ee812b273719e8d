"""`repl` at the end of its input: every line still on its way is waited for, and a line
is cancelled only when nothing can end it (see cli/repl.py's module docstring).

Lines still waiting are looked at client by client, again and again while any of them
moves on: a line of one client may wake another's (`A> BLPOP l 0` behind which B still
has `B> BLPOP m 1` and `B> RPUSH l x`). Only when no client's line moves any more are the
lines that would wait for ever cancelled: first the client's worker is told to start
none of its later lines, then its wait is cancelled (a new connection, as Ctrl+C), and
each later line is named on stderr as not run. A line held by a CLIENT PAUSE typed here,
a blocking one too (`BLPOP l 0` while writes are paused), is waited for until the pause
is over: only then is it known whether it waits for ever. Nothing here waits without a
bound but a blocking command's own timeout.
"""

from __future__ import annotations

import asyncio

from playground.cli.repl_lines import ClientLines, ReplLine
from playground.cli.repl_output import ReplOutput
from playground.cli.repl_pause import PauseClock
from playground.engine.catalogue import block_timeout, may_block
from playground.engine.executor import Executor
from playground.engine.playground import Playground, no_reply_coming
from playground.i18n import tr

WAIT_AT_EOF = 60.0
"""Seconds a running script, or a line held by a CLIENT PAUSE not typed here, is waited for at end of input."""

PAUSE_AT_EOF = 1.0
"""Seconds after a pause typed here is up that a line it may hold is still waited for at end of
input (the server lifts a pause in its cron; a busy machine may be late)."""


class ReplStatus:
    """How the run is going: its exit status, whether it has stopped, the clients ended."""

    def __init__(self) -> None:
        self.exit_code = 0
        self.stopped = False  # the server went away for good (--url): read no more
        self.ended: set[str] = set()  # clients whose wait was cancelled at end of input

    def failed(self) -> None:
        """Something redis-cli would have done differently: the exit status is 1."""
        self.exit_code = 1


class EndOfInput:
    """Waits for what is still coming at the end of the input, cancels what never comes."""

    def __init__(self, pg: Playground, executor: Executor, lines: ClientLines, output: ReplOutput,
                 pauses: PauseClock, status: ReplStatus) -> None:
        self.pg = pg
        self.executor = executor
        self.lines = lines
        self.output = output
        self.pauses = pauses
        self.status = status

    async def finish(self) -> None:
        """End of input: wait for what is still coming, cancel what never comes."""
        for session in self.pg.sessions.values():
            if session.ldb.active:  # redis-cli would exit here, and its connection with it
                self.output.say(tr("client {name}: end of input during a Lua debugging session; its connection is "
                                   "closed, as redis-cli's exit would", name=session.name))
                await session.close()
        while True:
            moved, stuck = False, {}
            for name in self.lines.lines:
                progressed, line = await self._drain(name)
                moved = moved or progressed
                if line is not None:
                    stuck[name] = line
            if not stuck:
                break
            if not moved:  # (else a line that ran may have woken a stuck one: look again)
                for name, line in stuck.items():
                    await self._cancel(name, line)
        for name in self.lines.stream_held:
            self.lines.flush_stream(name)
        self.output.flush(everything=True)

    async def _drain(self, name: str) -> tuple[bool, ReplLine | None]:
        """Print the client's lines as they end, waiting for those that end by
        themselves: (whether any line ended, the line that waits for ever or None)."""
        lines = self.lines.lines[name]
        moved = False
        while lines:
            line = lines[0]
            await line.started.wait()
            if line.job is not None and not await line.job.settle() and not await self._wait_for_it(name, line):
                self.lines.print_done(name)
                return moved, line
            self.lines.print_done(name)
            moved = True
        return moved, None

    async def _wait_for_it(self, name: str, line: ReplLine) -> bool:
        """`line` of client `name` is blocked: True once it has ended by itself; False
        when it would wait for ever (`line.gave_up` says why)."""
        if line.gave_up is not None:
            return False  # waited for already
        assert line.job is not None and line.job.task is not None and line.cmd is not None
        session = self.pg.sessions[name]
        what = line.what()
        task = line.job.task
        if session.state.busy_script:
            self.output.say(tr("client {name}: end of input; waiting for its script ({command}) to finish",
                               name=name, command=what[:40]))
            if await _ends_within(task, WAIT_AT_EOF):
                return True
            line.gave_up = tr("client {name}: the script still runs after {seconds:g}s; cancelled",
                              name=name, seconds=WAIT_AT_EOF)
            return False
        if no_reply_coming(session):
            line.gave_up = tr("client {name}: end of input while {command} waits for a reply the server never "
                              "sends (redis-cli waits for ever); cancelled", name=name, command=what)
            return False
        if block_timeout(line.cmd.argv):  # it ends by itself, as it would in redis-cli
            await asyncio.wait({task})
            return True
        if self.pauses.holding(PAUSE_AT_EOF):  # held by the pause (and maybe blocked for ever after it)
            if await _ends_within(task, self.pauses.left(PAUSE_AT_EOF)):
                return True
            self.pauses.let_through()  # (its time is up: whatever still waits, waits for something else)
        return await self._held_or_stuck(line, name, what)

    async def _held_or_stuck(self, line: ReplLine, name: str, what: str) -> bool:
        """A line blocked with no pause of ours over it: a plain one is held by a pause
        typed elsewhere and waited for; a blocking one without a timeout waits for ever."""
        assert line.job is not None and line.job.task is not None and line.cmd is not None
        if not may_block(line.cmd.argv):  # held by a CLIENT PAUSE not typed here, which ends by itself
            if await _ends_within(line.job.task, WAIT_AT_EOF):
                return True
            line.gave_up = tr("client {name}: end of input while {command} is still held (CLIENT PAUSE) after "
                              "{seconds:g}s; cancelled", name=name, command=what, seconds=WAIT_AT_EOF)
            return False
        if await line.job.settle():  # (it may have ended while the pause was waited for)
            return True
        line.gave_up = tr("client {name}: end of input while {command} waits forever (timeout 0) and nothing "
                          "left in the input can wake it; cancelled", name=name, command=what)
        return False

    async def _cancel(self, name: str, line: ReplLine) -> None:
        """Cancel the line that waits for ever; its client's later lines are not run."""
        assert line.gave_up is not None and line.job is not None and line.job.task is not None
        self.output.say(line.gave_up)
        self.status.failed()
        self.status.ended.add(name)  # its worker starts none of the later lines (see Repl._run_line)
        try:
            await self.executor.cancel(name)
        except Exception as exc:  # the server is gone: nothing to reconnect to
            self.output.say(tr("client {name}: {error}", name=name, error=exc))
        task = line.job.task
        if not task.done():  # (nothing pending that a new connection would end: end it here)
            task.cancel()
        await asyncio.wait({task})
        for later in self.lines.lines[name][1:]:
            self.output.say(tr("client {name}: not run: {command}", name=name, command=later.what()))
        self.lines.lines[name].clear()


async def _ends_within(task: asyncio.Future, seconds: float) -> bool:
    done, _ = await asyncio.wait({task}, timeout=seconds)
    return bool(done)
