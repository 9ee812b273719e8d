"""What the server changed, as the server itself says it: keyspace notifications.

A command's name says what it may do; only the server knows what it did. A read-only
script writes nothing whatever EVAL's flags say, a script that failed half-way may have
written, `GETEX k EX 1800` changes only a TTL. On the private server the app's own user
turns keyspace notifications on (`notify-keyspace-events EA`: every key event, no
key-miss or new-key events) and listens to them on a connection of its own; the
executor asks, after each unit that may have written (`take`), which keys changed and
how: `{key: (event, ...)}` ("set", "incrby", "expire", "persist", "del", ...).

Which unit did what: a unit claims the events on the keys the catalogue says it may
write (any key for a script, a flush or a command whose keys are unknown) among those
delivered up to its reply (a sync PING on the listening connection makes sure every
event before it has arrived). Events on other keys wait for the unit that claims them,
for a few units at most. The server's own expiries and evictions belong to no unit
(`expired`, kept apart). On a --url server, or a cluster or replica topology, there is
no feed (`take` returns None) and attribution falls back to the commands' names.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from playground.engine.catalogue import SERVER_STATE
from playground.engine.client_state import replace
from playground.engine.playground import Playground
from playground.engine.session import Session
from playground.engine.units import Unit, UnitTracker
from playground.resp.replies import Array, Bulk, Err, Push

EVENTS = b"EA"                     # every class of key event, keyevent channels only
PATTERN = b"__keyevent@*__:*"
TTL_EVENTS = frozenset((b"expire", b"persist"))
"""Events that change only a key's time to live (its value and type stay)."""
SERVER_EVENTS = frozenset((b"expired", b"evicted"))
"""Events of the server's own: nobody's write."""
KEYLESS_STATE = SERVER_STATE - {b"swapdb"}
"""Server-state commands that change no key."""
_KEEP_FOR = 8       # takes an unclaimed event waits for its unit, at most
_SYNC_TIMEOUT = 5.0  # seconds: a sync that never comes back (the server busy): no records


class ChangeFeed:
    """Key events of the private server, claimed by the units that caused them."""

    def __init__(self, pg: Playground) -> None:
        self.pg = pg
        self.session = Session("playground-changes", on_stream=self._on_frame)
        self._pool: list[tuple[bytes, bytes, int]] = []   # (key, event, takes seen)
        self.expired: list[bytes] = []                    # keys the server expired or evicted: the last take's
        self._expired: list[bytes] = []
        self._broken = False
        pg.restart_listeners.append(self._restarted)

    def _restarted(self) -> None:
        self._broken = False  # a new server: ask again (ready() before the next command)

    @staticmethod
    def possible(pg: Playground) -> bool:
        """Only on a private single server: never CONFIG SET on a server the user gave."""
        return pg.server is not None and pg.topology is None

    async def start(self) -> bool:
        """(Re)subscribe; False when the server will not (then there are no records)."""
        assert self.pg.admin is not None  # (started)
        try:
            reply, = await self.pg.admin.run([[b"CONFIG", b"SET", b"notify-keyspace-events", EVENTS]])
            if reply != b"OK":
                return False
            self.pg.own_traffic.sent([[b"PSUBSCRIBE", PATTERN]])
            await self.session.connect(self.pg.admin_address)
            await self.session.execute([b"PSUBSCRIBE", PATTERN])
            await self.session.wait_stream_drained()
        except Exception:
            return False
        self._pool.clear()
        return self.session.streaming

    def held(self) -> dict[bytes, bytes]:
        """The configuration the feed needs while it listens ({} when it does not): what
        puts a server's CONFIG back (explore/fresh_state.py) must leave it so."""
        return {b"notify-keyspace-events": EVENTS} if self.session.streaming and not self._broken else {}

    async def ready(self) -> None:
        """Listening before a command is sent (the first one, or after a restart)."""
        if not self._broken and not self.session.streaming and not await self.start():
            self._broken = True

    async def close(self) -> None:
        await self.session.close()

    def _on_frame(self, session: Session, frame: object) -> None:
        if (not isinstance(frame, (Array, Push)) or len(frame) != 4 or not isinstance(frame[0], bytes)
                or frame[0].lower() != b"pmessage"):
            return
        channel, key = frame[2], frame[3]
        if not isinstance(channel, Bulk) or not isinstance(key, Bulk):
            return
        event = bytes(channel).rpartition(b":")[2]
        if event in SERVER_EVENTS:
            if len(self._expired) < 10_000:
                self._expired.append(bytes(key))
        else:
            self._pool.append((bytes(key), event, 0))

    async def discard(self) -> None:
        """Forget every event so far (a fresh start's setup ran outside any unit)."""
        if self.session.streaming:
            try:
                async with asyncio.timeout(_SYNC_TIMEOUT):
                    await self.session.sync()
            except (asyncio.TimeoutError, OSError):
                pass
        self._pool.clear()
        self._expired.clear()
        self.expired = []

    async def forget(self, keys: set[bytes]) -> None:
        """Drop the TTL events on `keys` the app's own connection caused (a lesson's clock
        holding TTLs: scenario/lesson_clock.py): nobody's write."""
        if self._broken or not self.session.streaming or not keys:
            return
        try:
            async with asyncio.timeout(_SYNC_TIMEOUT):
                await self.session.sync()
        except (asyncio.TimeoutError, OSError):
            return
        self._pool = [e for e in self._pool if not (e[0] in keys and e[1] in TTL_EVENTS)]

    async def take(self, keys: frozenset[bytes] | None) -> dict[bytes, tuple[bytes, ...]] | None:
        """The changes of a unit that just replied and may write `keys` (None: any key);
        None when the server cannot say (no feed, the server busy or gone)."""
        if self._broken or not self.session.streaming:
            return None
        try:
            async with asyncio.timeout(_SYNC_TIMEOUT):
                await self.session.sync()
        except (asyncio.TimeoutError, OSError):
            return None
        if not self.session.streaming:
            return None
        self.expired, self._expired = self._expired, []
        claimed: dict[bytes, tuple[bytes, ...]] = {}
        left = []
        for key, event, age in self._pool:
            if keys is None or key in keys:
                claimed[key] = claimed.get(key, ()) + (event,)
            elif age < _KEEP_FOR:
                left.append((key, event, age + 1))
        self._pool = left
        return claimed


def ttl_only(events: Iterable[bytes]) -> bool:
    """Did these events change only a TTL?"""
    return bool(events) and all(e in TTL_EVENTS for e in events)


async def record(pg: Playground, unit: Unit, programs: Iterable[UnitTracker] = ()) -> None:
    """After `unit` replied: what it changed (`unit.changes`, from the feed when there is
    one), and which WATCHed keys that makes dirty (written, expired, or every one after a
    flush), for every client: each session's (`UnitTracker.dirty`, shown in its
    `ClientState.dirty_keys`: the server's flag d says only that some key changed) and
    each of `programs` (the trackers of the clients at the gate: engine/program_lines.py)."""
    feed = pg.changes
    may_have_run = unit.ran or (unit.kind == "script" and unit.outcome == "error")  # (an error's code
    if feed is not None and may_have_run and not (isinstance(unit.reply, Err) and unit.reply.code == "BUSY"):
        # may come from a command the script called after it wrote: only the server can say)
        # (commands that change no key are not asked about: after CLIENT PAUSE any question waits)
        commands = [argv for argv in unit.commands if argv and argv[0].lower() not in KEYLESS_STATE]
        written: set[bytes] = set()
        keys: set[bytes] | None = written
        for effect in await pg.catalogue.effects(commands) if commands else ():
            if effect.writes is None:
                keys = None
                break
            written |= effect.writes
        if keys is None or keys:
            unit.changes = await feed.take(None if keys is None else frozenset(keys))
            if unit.changes and unit.kind == "script":
                unit.started = True  # it wrote, so it ran (whatever its error says)
        else:
            unit.changes = {}
    expired: list[bytes] = []
    if feed is not None:
        expired, feed.expired = feed.expired, []  # (expired since the last take: counted once)
    watching = [t for t in (*(s.units for s in pg.sessions.values()), *programs) if t.watched]
    if not watching:
        return
    assert pg.writes is not None  # (started)
    changed = set(await pg.writes.keys_written(unit)) | set(expired)
    for tracker in watching:
        tracker.dirty += tuple(k for k in tracker.watched
                               if (unit.flushed or k in changed) and k not in tracker.dirty)
    for session in pg.sessions.values():
        if session.state.dirty_keys != session.units.dirty:
            session.state = replace(session.state, dirty_keys=session.units.dirty)
