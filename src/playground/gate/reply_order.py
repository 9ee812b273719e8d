"""The server order of a blocked command's reply, at the gate.

The gate numbers each command when its reply reaches it. For a command that waited on the
server (BLPOP, XREAD BLOCK ...: the catalogue's `may_block`) that can be wrong: the command
that freed it (B's RPUSH) ran first, yet the server may write the freed client's reply
first (it writes pending replies newest client first), so it reaches the gate first.

So a may-block command's reply is numbered only once every command other programs had
sent to the server by then (and that cannot block) has its own reply: the one that freed
it among them. A program's later commands wait behind it, so each program's commands
keep their order. Nothing waits longer than AT_MOST seconds (a command that never answers,
e.g. under CLIENT PAUSE, holds nobody up for good). The reply itself goes to the program
at once: only its number, and who is told of it, wait.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from playground.engine.catalogue import may_block

AT_MOST = 1.0  # seconds a reply's number waits for other programs' replies, at most


class ReplyOrder:
    """Calls `finish(client, held)` for every answered command, in server order."""

    def __init__(self, finish: Callable) -> None:
        self.finish = finish
        self._waiting: list[tuple[object, object, set]] = []  # (client, held, the replies it waits for)
        self._timer: asyncio.TimerHandle | None = None

    def answered(self, client, head, clients) -> None:
        waits: set = set()
        if may_block(head.argv) and not head.unstepped:
            waits = {h for c in clients if c is not client and not c.closed
                     for h in c.inflight if not may_block(h.argv)}
        if waits or any(c is client for c, _, _ in self._waiting):
            self._waiting.append((client, head, waits))
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(AT_MOST, self.release, True)
            return
        self.finish(client, head)
        self.release()

    def release(self, now: bool = False) -> None:
        """Number the replies whose wait is over (`now`: all of them)."""
        if now:
            self._timer = None
        progress = True
        while progress and self._waiting:
            progress = False
            seen: set = set()
            for entry in list(self._waiting):
                client, head, waits = entry
                if client in seen:
                    continue  # behind an earlier reply of its own program
                seen.add(client)
                if now or all(h.done.done() for h in waits):
                    self._waiting.remove(entry)
                    self.finish(client, head)
                    progress = True
                    break
        if not self._waiting and self._timer is not None:
            self._timer.cancel()
            self._timer = None
