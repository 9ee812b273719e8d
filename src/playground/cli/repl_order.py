"""When a `repl` line may go while another client's earlier lines are still on their way.

redis-cli, one per client, reads a line when the one before it is done. Fed the lines in
input order, a person at two terminals types B's next line only once A's has answered,
or once A is blocked on something that may never end: then B goes ahead (its line may be
what wakes A). A line that ends by itself is waited for, so nothing overtakes it:

- a blocking command with a timeout (`BLPOP l 0.3`), and the lines behind it;
- a line held by a CLIENT PAUSE (cli/repl_pause.py), and the lines behind it.

Only a line that touches none of their keys goes ahead of them (the commuting rule of
the command catalogue, engine/catalogue.py `Effect.conflicts`: it gives the same replies
in either order). While a pause typed here may be in force, nothing goes ahead of them:
the line itself could be held too, and its "(N.NNs)" would count a wait that redis-cli,
sending it later, never sees.

A line blocked with no end of its own (`BLPOP l 0`, a busy script, CLIENT REPLY OFF, a
line held by a pause typed elsewhere or by another client's Lua debugger) is gone ahead
of, with everything behind it, as before.
"""

from __future__ import annotations

import asyncio

from playground.cli.repl_lines import ClientLines, ReplLine
from playground.cli.repl_pause import PauseClock
from playground.engine.catalogue import block_timeout
from playground.engine.playground import Playground, no_reply_coming
from playground.resp.cli_lines import RepeatError, SplitError, parse_line

LOCAL_WORDS = (b"help", b"?", b"quit", b"exit", b"restart", b"clear", b"connect")
"""Words redis-cli answers itself (or with which it ends): no server involved."""


class LineOrder:
    """Tells a line of one client when the other clients' earlier lines let it go."""

    def __init__(self, pg: Playground, lines: ClientLines, pauses: PauseClock) -> None:
        self.pg = pg
        self.lines = lines
        self.pauses = pauses

    async def wait_turn(self, name: str, argv) -> bool:
        """Until no earlier line of another client that ends by itself must come first
        (see the module's docstring); True if it waited for one.

        Args:
            name: the client of the new line.
            argv: the new line's arguments.
        """
        waited = False
        while True:
            first = await self._first_in_the_way(name, argv)
            if first is None:
                return waited
            waited = True
            await self._until_it_moves(first)

    def bounded(self, name: str, line: ReplLine) -> bool:
        """Will `line`, the running line of client `name`, blocked on the server, end by
        itself (a timeout, a pause)? False: it may wait for ever (or for another client)."""
        session = self.pg.sessions[name]
        if line.cmd is None or no_reply_coming(session) or session.state.busy_script:
            return False
        if self.pauses.holding():
            return True  # (held by the pause, or blocked with the pause over it)
        # A blocking command with a timeout ends by itself. Anything else blocked waits for
        # something that may not come by itself: a pause typed elsewhere, another client's
        # Lua debugger holding the server (SCRIPT DEBUG SYNC), a key only a later line fills.
        return bool(block_timeout(line.cmd.argv))

    def _in_the_way(self, name: str) -> list[ReplLine]:
        """The earlier lines of the other clients that the new line may not overtake
        unless it commutes with them."""
        found = []
        for other, lines in self.lines.lines.items():
            if other == name:
                continue
            for line in lines:
                if line.done:
                    continue
                if line.job is not None and line.job.blocked and not self.bounded(other, line):
                    break  # blocked with no end of its own: it and the lines behind it are gone ahead of
                found.append(line)
        return found

    async def _first_in_the_way(self, name: str, argv) -> ReplLine | None:
        if any(session.ldb.holds_server for session in self.pg.sessions.values()):
            return None  # (a Lua debugger holds the server: every line waits for its session, none for another)
        lines = [(line, _argv(line)) for line in self._in_the_way(name)]
        sent = [(line, other) for line, other in lines if other is not None]
        if not sent or self.pauses.holding():
            return sent[0][0] if sent else None
        effects = await self.pg.catalogue.effects([argv, *(other for _, other in sent)])
        mine = effects[0]
        for (line, _), effect in zip(sent, effects[1:], strict=True):
            if mine.conflicts(effect):
                return line
        return None

    async def _until_it_moves(self, line: ReplLine) -> None:
        """Until `line` is done, starts, blocks, or a pause that may hold it is over."""
        job = line.job
        waiting: asyncio.Future
        if job is None or job.task is None:
            waiting = asyncio.ensure_future(line.started.wait())
        elif not job.blocked:
            waiting = asyncio.ensure_future(job.settle())
        else:
            waiting = job.task
        timeout = self.pauses.left() if self.pauses.holding() else None
        await asyncio.wait({waiting}, timeout=timeout)
        if (job is None or waiting is not job.task) and not waiting.done():
            waiting.cancel()
            await asyncio.gather(waiting, return_exceptions=True)


def _argv(line: ReplLine) -> tuple[bytes, ...] | None:
    """What `line` sends (a line not read yet is split here); None: it sends nothing."""
    if line.cmd is not None:
        argv = tuple(line.cmd.argv)
    else:
        try:
            cmd = parse_line(line.text)
        except (SplitError, RepeatError):
            return None
        if cmd is None:
            return None
        argv = tuple(cmd.argv)
    word = argv[0].lower()
    if word in LOCAL_WORDS or word.startswith(b":"):
        return None
    return argv
