"""`repl` at the end of its input: every line still on its way is waited for, and a line
is cancelled only when nothing can end it (see cli/repl.py's module docstring).

Lines still waiting are looked at client by client, again and again while any of them
moves on: a line of one client may wake another's (`A> BLPOP l 0` behind which B still
has `B> BLPOP m 1` and `B> RPUSH l x`). Only when no client's line moves any more are the
lines that would wait for ever cancelled: first the client's worker is told to start
none of its later lines, then its wait is cancelled (a new connection, as Ctrl+C), and
each later line is named on stderr as not run. Nothing here waits without a bound but a
blocking command's own timeout.
"""

from __future__ import annotations

import asyncio

from playground.engine.catalogue import block_timeout, may_block
from playground.engine.playground import no_reply_coming
from playground.i18n import tr

WAIT_AT_EOF = 60.0
"""Seconds a running script, or a line held by CLIENT PAUSE, is waited for at end of input."""


class EndOfInput:
    """The part of `Repl` (cli/repl.py) that ends it."""

    async def finish(self) -> None:
        """End of input: wait for what is still coming, cancel what never comes."""
        for session in self.pg.sessions.values():
            if session.ldb.active:  # redis-cli would exit here, and its connection with it
                self.say(tr("client {name}: end of input during a Lua debugging session; its connection is "
                            "closed, as redis-cli's exit would", name=session.name))
                await session.close()
        while True:
            moved, stuck = False, {}
            for name in self.lines:
                progressed, line = await self._drain(name)
                moved = moved or progressed
                if line is not None:
                    stuck[name] = line
            if not stuck:
                break
            if not moved:  # (else a line that ran may have woken a stuck one: look again)
                for name, line in stuck.items():
                    await self._cancel_at_eof(name, line)
        for name in self.stream_held:
            self._flush_stream(name)
        self.flush(everything=True)
        workers = list(self.workers.values())
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    async def _drain(self, name: str):
        """Print the client's lines as they end, waiting for those that end by
        themselves: (whether any line ended, the line that waits for ever or None)."""
        lines = self.lines[name]
        moved = False
        while lines:
            line = lines[0]
            await line.started.wait()
            if line.job is not None and not await line.job.settle() and not await self._wait_for_it(name, line):
                self._print_done(name)
                return moved, line
            self._print_done(name)
            moved = True
        return moved, None

    async def _wait_for_it(self, name: str, line) -> bool:
        """`line` of client `name` is blocked: True once it has ended by itself; False
        when it would wait for ever (`line.gave_up` says why)."""
        if line.gave_up is not None:
            return False  # waited for already
        session = self.pg.sessions[name]
        what = line.what()
        argv = line.cmd.argv
        if session.state.busy_script:
            self.say(tr("client {name}: end of input; waiting for its script ({command}) to finish",
                        name=name, command=what[:40]))
            if await _ends_within(line.job.task, WAIT_AT_EOF):
                return True
            line.gave_up = tr("client {name}: the script still runs after {seconds:g}s; cancelled",
                              name=name, seconds=WAIT_AT_EOF)
        elif no_reply_coming(session):
            line.gave_up = tr("client {name}: end of input while {command} waits for a reply the server never "
                              "sends (redis-cli waits for ever); cancelled", name=name, command=what)
        elif block_timeout(argv):  # it ends by itself, as it would in redis-cli
            await asyncio.wait({line.job.task})
            return True
        elif not may_block(argv):  # held by a CLIENT PAUSE, which ends by itself
            if await _ends_within(line.job.task, WAIT_AT_EOF):
                return True
            line.gave_up = tr("client {name}: end of input while {command} is still held (CLIENT PAUSE) after "
                              "{seconds:g}s; cancelled", name=name, command=what, seconds=WAIT_AT_EOF)
        else:
            line.gave_up = tr("client {name}: end of input while {command} waits forever (timeout 0) and nothing "
                              "left in the input can wake it; cancelled", name=name, command=what)
        return False

    async def _cancel_at_eof(self, name: str, line) -> None:
        """Cancel the line that waits for ever; its client's later lines are not run."""
        self.say(line.gave_up)
        self.exit_code = 1
        self.ended.add(name)  # its worker starts none of the later lines (see Repl._run_line)
        try:
            await self.executor.cancel(name)
        except Exception as exc:  # the server is gone: nothing to reconnect to
            self.say(tr("client {name}: {error}", name=name, error=exc))
        if not line.job.task.done():  # (nothing pending that a new connection would end: end it here)
            line.job.task.cancel()
        await asyncio.wait({line.job.task})
        for later in self.lines[name][1:]:
            self.say(tr("client {name}: not run: {command}", name=name, command=later.what()))
        self.lines[name].clear()


async def _ends_within(task: asyncio.Future, seconds: float) -> bool:
    done, _ = await asyncio.wait({task}, timeout=seconds)
    return bool(done)
