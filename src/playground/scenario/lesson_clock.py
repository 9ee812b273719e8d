"""A lesson's own time: while it waits for the teacher, its keys' TTLs do not run.

A lesson stepped by hand waits between steps: the teacher talks, a prediction is asked,
`run`/`check --pace` waits. That waiting is not the lesson's time. When a step ends the
clock notes every volatile key's time to live (SCAN, PTTL, PEXPIRETIME, on a connection
of its own as the app's own user) and, until the next step starts, sets it back to that
(PEXPIRE) every half second; the next step finds each key's TTL exactly as the step
before left it. A TTL under 10 s is held MARGIN_MS longer meanwhile (a loaded machine
may not get to a tick for a second: the key must not run out then); the key inspector
shows the held TTL (`held_ttl`), not the server's. A step's own `sleep` is the lesson's
time: it passes.

What it leaves to the wall clock: a key some client WATCHes (any change to its TTL would
abort the client's transaction), a key whose expiry was changed meanwhile by someone
else (a command typed in a pane: the typing wins), keys beyond database 0, a blocking
command's timeout, a running script. On a topology it holds the keys of every primary
(its replicas follow, PEXPIRE replicates as PEXPIREAT). It never fails a lesson: a
server that does not answer (a script running, a node down) is simply not held.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from playground.resp.side_connection import SideConnection

HOLD_AT_MOST = 10_000  # volatile keys held, at most (bounded work per tick)
_SCAN_COUNT = b"1000"
_RELEASE_WAIT = 0.5    # seconds release() waits for a hold still reading (a busy server)
_TICK_TIMEOUT = 1.0
_TICK_EVERY = 0.5      # seconds between ticks while holding
MARGIN_MS = 2000       # a short TTL held this much longer between steps
_SHORT_MS = 10_000     # (a TTL from 10 s up outlasts any stall at one tick each 0.5 s)
_READ_WAIT = 0.3       # seconds a step's end waits for the hold to have read its keys


@dataclass
class _Held:
    key: bytes
    ttl: int          # ms to live when the step ended
    at: int | None    # the absolute expiry (ms) the clock last saw; None: PEXPIRETIME unknown


def _int(reply) -> int | None:
    return int(reply) if isinstance(reply, int) and not isinstance(reply, bool) else None


class _Side:
    """The private (or --url) server, on the clock's own side connection."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.conn = SideConnection(pg.admin_address, "playground-clock")
        self.conn.on_send = pg.side_sent  # a learner's MONITOR does not show the clock

    async def run(self, commands) -> list:
        if self.conn.address != self.pg.admin_address:  # a restarted server on another port
            await self.conn.close()
            self.conn.address = self.pg.admin_address
        return await self.conn.run(commands)

    async def close(self) -> None:
        await self.conn.close()


class _Node:
    """One primary of a private topology, over the app's own blocking link."""

    def __init__(self, node) -> None:
        self.node = node

    def _run(self, commands) -> list:
        with self.node.link() as link:
            return link.pipeline(commands)

    async def run(self, commands) -> list:
        return await asyncio.to_thread(self._run, commands)

    async def close(self) -> None:
        pass


async def _snapshot(target, skip: set[bytes]) -> list[_Held]:
    held: list[_Held] = []
    cursor, scanned = b"0", 0
    while True:
        reply, = await target.run([[b"SCAN", cursor, b"COUNT", _SCAN_COUNT]])
        if not (isinstance(reply, list) and len(reply) == 2 and isinstance(reply[1], list)):
            return held  # BUSY (a script runs), LOADING, ...: nothing to hold there
        cursor = bytes(reply[0])
        keys = [bytes(k) for k in reply[1] if bytes(k) not in skip]
        if keys:
            replies = await target.run([c for k in keys for c in ([b"PTTL", k], [b"PEXPIRETIME", k])])
            for i, key in enumerate(keys):
                ttl, at = _int(replies[2 * i]), _int(replies[2 * i + 1])
                if ttl is not None and ttl > 0:
                    held.append(_Held(key, ttl, at if at is not None and at > 0 else None))
        scanned += len(reply[1])
        if cursor == b"0" or len(held) >= HOLD_AT_MOST or scanned >= 10 * HOLD_AT_MOST:
            return held[:HOLD_AT_MOST]


def _margin(ttl: int) -> int:
    return MARGIN_MS if ttl < _SHORT_MS else 0


async def _tick(target, held: list[_Held], skip: set[bytes], margin: bool = True) -> list[_Held]:
    """Every held key back to its TTL (and the margin while the lesson waits, `margin`);
    the ones still held (a key deleted, WATCHed or given another expiry since is let go)."""
    live = [h for h in held if h.key not in skip]
    if not live:
        return []
    if any(h.at is not None for h in live):
        now = await target.run([[b"PEXPIRETIME", h.key] for h in live])
        live = [h for h, at in zip(live, now, strict=True) if h.at is None or _int(at) == h.at]
    if not live:
        return []
    replies = await target.run([c for h in live
                                for c in ([b"PEXPIRE", h.key, b"%d" % (h.ttl + (_margin(h.ttl) if margin else 0))],
                                          [b"PEXPIRETIME", h.key])])
    kept = []
    for i, h in enumerate(live):
        if _int(replies[2 * i]) == 1:
            at = _int(replies[2 * i + 1])
            kept.append(_Held(h.key, h.ttl, at if at is not None and at > 0 else None))
    return kept


class LessonClock:
    """Holds a lesson's keys' TTLs between `hold` (a step ended) and `release` (the next
    one starts)."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self._side: _Side | None = None
        self._task: asyncio.Task | None = None
        self._stop: asyncio.Event | None = None
        self._read = asyncio.Event()  # set once a hold has read the keys it holds
        self._held: list[tuple[object, list[_Held]]] = []
        self._held_since: float | None = None
        self.held_seconds = 0.0  # waiting between steps so far: not the lesson's time
        self._ttls: tuple[object, dict[bytes, int]] = (None, {})  # (the _held they were read from, key -> ttl)
        self._released: tuple[float, dict[bytes, int]] = (0.0, {})  # (when the last hold ended, key -> its ttl then)
        self._releasing = False  # a hold is ending: the server's TTLs are not set back to the held ones yet

    def now(self) -> float:
        """The lesson's time (seconds, monotonic): the wall clock less the waiting held."""
        since = self._held_since
        return time.monotonic() - self.held_seconds - (time.monotonic() - since if since is not None else 0.0)

    def _targets(self) -> list:
        topology = self.pg.topology
        if topology is None:
            if self._side is None:
                self._side = _Side(self.pg)
            return [self._side]
        return [_Node(n) for n in topology.nodes if n.alive() and not n.paused]

    def _watched(self) -> set[bytes]:
        return {bytes(k) for s in self.pg.sessions.values() for k in s.state.watched}

    def hold(self) -> None:
        """A step (or a part's setup) ended: hold every volatile key's TTL until `release`."""
        if self._task is None:
            if self.close not in self.pg.closing:
                self.pg.closing.append(self.close)  # the playground closing ends the hold first
            self._held_since = time.monotonic()
            self._read = asyncio.Event()
            self._stop = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._hold(self._stop))

    async def _hold(self, stop: asyncio.Event) -> None:
        try:
            held = []
            for target in self._targets():
                if isinstance(target, _Node) and await _role(target) != b"master":
                    continue  # a replica follows its primary
                keys = await _snapshot(target, self._watched())
                if keys:
                    held.append((target, keys))
            self._held = held
            if held:
                await self._tick_all()  # the margin, at once
            self._read.set()
            while self._held and not stop.is_set():
                try:
                    async with asyncio.timeout(_TICK_EVERY):
                        await stop.wait()
                except asyncio.TimeoutError:
                    await self._tick_all()
        except Exception:  # noqa: BLE001 (a server gone or busy: the keys are not held)
            self._held = []
        finally:
            self._read.set()

    async def read(self) -> None:
        """Wait (_READ_WAIT at most) until the hold has read its keys: what a step leaves is
        held from its end, not from whenever a loaded machine gets to it."""
        if self._task is not None and not self._read.is_set():
            try:
                async with asyncio.timeout(_READ_WAIT):
                    await asyncio.shield(self._read.wait())
            except asyncio.TimeoutError:
                pass

    async def holding(self) -> set[bytes]:
        """The keys held, once the hold has read them (empty when it does not hold)."""
        if self._task is not None:
            await self._read.wait()
        return {h.key for _, keys in self._held for h in keys}

    def held_ttl(self, key: bytes) -> int | None:
        """While the lesson waits: the time to live (ms) `key` is held at, the TTL the next
        step finds (the server meanwhile has it up to MARGIN_MS longer); None when the key is
        not held (the lesson runs, or the key was let go). The key inspector shows this, so a
        held TTL neither counts down nor jumps back while the class talks."""
        if self._task is None:
            return None
        held = self._held
        if self._ttls[0] is not held:  # (the inspector asks for each key it shows, 4 times a second)
            self._ttls = (held, {h.key: h.ttl for _, keys in held for h in keys})
        return self._ttls[1].get(key)

    def shown_ttl(self, key: bytes, read_at: float) -> tuple[int, float] | None:
        """The TTL to show for `key` read from the server at `read_at` (monotonic): (ms, as
        of when), or None when the read is right. While the lesson waits, the held TTL as
        of now (it stands still); after a hold ended, a read made during it is stale (the
        server had the TTL set back every tick, with a margin): the TTL the hold ended with,
        counting down from then. So a TTL shown never goes up by itself.

        Args:
            key: the key.
            read_at: when the TTL shown so far was read (time.monotonic()).
        """
        held = self.held_ttl(key)
        if held is not None:
            return held, time.monotonic()
        at, ttls = self._released
        if (read_at < at or self._releasing) and key in ttls:
            return ttls[key], at
        return None

    async def _tick_all(self, margin: bool = True) -> None:
        skip = self._watched()
        touched = {h.key for _, keys in self._held for h in keys}
        self._held = [(t, kept) for t, keys in self._held if (kept := await _tick(t, keys, skip, margin))]
        if self.pg.changes is not None:
            await self.pg.changes.forget(touched)  # the clock's PEXPIREs are nobody's write

    async def release(self) -> float:
        """The next step starts: every held key has the TTL the last step left it. The
        seconds it held (0 when it was not holding)."""
        task, self._task = self._task, None
        since, stop = self._held_since, self._stop  # (set with the task)
        if task is None or since is None or stop is None:
            return 0.0
        held_for = time.monotonic() - since
        self.held_seconds += held_for
        ttls = {h.key: h.ttl for _, keys in self._held for h in keys}
        self._released, self._releasing = (time.monotonic(), ttls), True  # (a read until the TTLs are set
        self._held_since = None                                          # back exactly has the margin)
        stop.set()
        try:
            try:
                async with asyncio.timeout(_RELEASE_WAIT):
                    await asyncio.shield(task)
            except asyncio.TimeoutError:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            try:
                if self._held:
                    async with asyncio.timeout(_TICK_TIMEOUT):
                        await self._tick_all(margin=False)  # exactly the TTL
            except Exception:  # noqa: BLE001 (as in _hold)
                pass
        finally:
            self._released, self._releasing = (time.monotonic(), ttls), False  # (as of the exact TTLs)
        self._held = []
        return held_for

    async def step_starts(self, programs) -> None:
        """release(), and the lesson's programs' time limits move on by the time held."""
        programs.wait_for_class(await self.release())

    async def step_ended(self) -> None:
        """hold(), and read() (a step, or a part's setup, ended)."""
        self.hold()
        await self.read()

    async def close(self) -> None:
        """No more holding (the lesson is over or closed): TTLs run on the wall clock."""
        if self.close in self.pg.closing:
            self.pg.closing.remove(self.close)
        await self.release()
        if self._side is not None:
            await self._side.close()
            self._side = None


async def _role(target: _Node) -> bytes | None:
    reply, = await target.run([[b"ROLE"]])
    return bytes(reply[0]) if isinstance(reply, list) and reply else None


class WallClock:
    """A runner's clock without lesson time (explore, tests): nothing is held."""

    def now(self) -> float:
        return time.monotonic()

    def held_ttl(self, key: bytes) -> None:
        return None

    def shown_ttl(self, key: bytes, read_at: float) -> None:
        return None

    async def step_starts(self, programs) -> None:
        pass

    async def step_ended(self) -> None:
        pass

    async def close(self) -> None:
        pass
