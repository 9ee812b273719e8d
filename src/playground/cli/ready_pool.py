"""`serve --ready N`: a few learners' apps started before any tab asks for one, so that a
new tab attaches to an app (and its private server) already up instead of waiting for
Python, Textual and a server to start (issue 27).

A ready app is a session nobody has seen: its own fresh directory (history, recordings,
exports), its own private server, no token; its output goes nowhere until a tab takes it.
A tab takes the oldest (the furthest along in its start), becomes its only owner (a
reload or a reconnect finds it by the tab's token, like any session), and the pool starts
another. An app is never given back to the pool: when its tab's session ends, the app ends.

Bounded: N apps in all are started ahead of the tabs, not N more after each wave of tabs:
the pool holds N less the tabs' sessions open, and at least one (for the next tab) while
N > 0; so a class of N that took N ready apps is followed by one, never by N more. With
--max-tabs never more apps in all than --max-tabs (ready ones count). In class mode the
ready apps are learners' (the teacher's app, one per class, starts when the teacher's tab
comes). The ready apps are processes of
serve like the others: they end with serve (cli/web_server.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable, Generic, TypeVar

log = logging.getLogger("textual-serve")

Session = TypeVar("Session")  # what the pool holds: serve's TabSession (a test's stand-in)


class ReadyPool(Generic[Session]):
    """Apps started ahead of the tabs, each handed to the next new tab (see the module's text for the bounds)."""

    def __init__(self, size: int, start: Callable[[], Awaitable[Session | None]],
                 drawn: Callable[[Session], Awaitable[bool]],
                 room: Callable[[], int], quiet_in: Callable[[], float] = lambda: 0.0,
                 tabs: Callable[[], int] = lambda: 0) -> None:
        self.size = size
        self.tabs = tabs  # how many tabs' sessions there are: the pool holds `size` less them (at least one)
        self.quiet_in = quiet_in  # seconds until the tabs are quiet (0: now): no refill in a burst of tabs
        self._later: asyncio.TimerHandle | None = None
        self.start = start  # spawns one app: a TabSession without a token
        self.drawn = drawn  # until that app has drawn: True, or False if it ended first
        self.room = room  # how many apps --max-tabs leaves for the pool (the tabs' sessions counted)
        self.ready: list[Session] = []  # oldest first (the furthest along in its start)
        self.starting = False  # an app of the pool is on its way to its first frame
        self.spawning: asyncio.Future | None = None  # its start (until its process runs), for serve's end
        self.closed = False

    def take(self) -> Session | None:
        """The oldest ready session, now the caller's (None: none ready). The caller counts
        it among its sessions, then calls fill()."""
        return self.ready.pop(0) if self.ready else None

    def fill(self) -> None:
        """Start one more ready app if there is room; the next once this one has drawn. One
        at a time: a pool refilling after a burst of tabs takes no more than one app's start
        of CPU from the tabs in use; and not while tabs are arriving (`quiet_in`): each app
        started for the pool then would take a start's CPU from a learner's own."""
        if self.closed or self.starting or len(self.ready) + 1 > self.target():
            return
        wait = self.quiet_in()
        if wait > 0:  # tabs are arriving (a class starting): their apps first, the pool after
            if self._later is None:
                self._later = asyncio.get_running_loop().call_later(wait, self._fill_later)
            return
        self.starting = True
        asyncio.ensure_future(self._start_one())

    def target(self) -> int:
        """How many ready apps the pool holds now: `size` less the tabs' sessions, at least
        one (a latecomer's), never past the room --max-tabs leaves."""
        return min(max(1, self.size - self.tabs()), self.size, self.room())

    async def _start_one(self) -> None:
        try:
            self.spawning = asyncio.ensure_future(self.start())
            session = await self.spawning
            if session is None:  # serve is ending
                return
            self.ready.append(session)  # a tab may take it already: it is the furthest along
            if not await self.drawn(session):
                return  # it ended before it drew: not restarted here (no loop of failing starts)
        except Exception as error:  # e.g. out of processes: the next tab starts its app the usual way
            log.error("serve could not start a ready app: %s", error)
            return
        finally:
            self.starting = False
        self.fill()

    def _fill_later(self) -> None:
        self._later = None
        self.fill()

    def discard(self, session: Session) -> None:
        """A ready session's app ended before any tab took it."""
        if session in self.ready:
            self.ready.remove(session)

    async def close(self) -> list[Session]:
        """serve ends: no more apps; an app being spawned is let finish its start (serve
        then ends it); the ready sessions, for serve to end and remove their directories."""
        self.closed = True
        if self._later is not None:
            self._later.cancel()
            self._later = None
        if self.spawning is not None and not self.spawning.done():
            await asyncio.wait([self.spawning])
        return list(self.ready)
