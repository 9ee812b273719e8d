"""A client's replies that arrive as a stream (after SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE or
MONITOR): one reader task takes every frame, counts the ones owed to the commands sent,
keeps the subscription counts, and hands the rest (messages, MONITOR lines) to the
session's `on_stream`. (A mixin of engine/session.py's Session: its fields are the
session's.)"""

from __future__ import annotations

import asyncio

from playground.engine.catalogue import SUBSCRIBES, UNSUBSCRIBES
from playground.engine.client_state import ClientState, replace
from playground.engine.stream_frames import (MESSAGE_KINDS, Subscriptions, frame_kind, is_subscription_frame,
                                             sync_token)
from playground.resp.replies import Bulk, Push, Status


class ConnectionLost(Exception):
    """The connection dropped under a command (server gone, or killed the client)."""


class MonitorLine(Status):
    """One line of MONITOR output (a status reply the server streams after MONITOR)."""


class SubscriptionStream:
    """Session's pub/sub and MONITOR stream."""

    async def _send_streaming(self, argv: list[bytes]) -> None:
        self._outstanding += self._frames_owed(argv)
        self._drained.clear()
        if self._reader is None or self._reader.done():
            self._conn.pushes_are_replies = True
            self._reader = asyncio.create_task(self._read_stream())
        try:
            await self._conn.send_command(*argv)
        except OSError as exc:
            self._conn = None
            raise ConnectionLost(str(exc)) from None

    def _frames_owed(self, argv: list[bytes]) -> int:
        """How many frames the server sends back for `argv` while subscribed."""
        cmd, nargs = argv[0].lower(), len(argv) - 1
        if self.state.in_multi:  # QUEUED (or an error), whatever the command
            return 1
        if cmd in SUBSCRIBES:
            return max(nargs, 1)
        if cmd in UNSUBSCRIBES:
            return nargs or max(len(getattr(self._subs, UNSUBSCRIBES[cmd])), 1)
        return 1  # PING, RESET, MONITOR's OK, ...

    async def _read_stream(self) -> None:
        try:
            while self._outstanding > 0 or self._subs.total() > 0 or self._monitoring:
                frame = await self._conn.read_response()
                kind = frame_kind(frame)
                if kind in MESSAGE_KINDS or (isinstance(frame, Push) and not is_subscription_frame(frame)):
                    self.on_stream(self, frame)
                    continue
                if self._monitoring and self._outstanding == 0 and isinstance(frame, Status):
                    self.on_stream(self, MonitorLine(frame))
                    continue
                self._outstanding = max(self._outstanding - 1, 0)
                token = sync_token(frame)
                if token is not None and token in self._sync_waiters:
                    self._sync_waiters.pop(token).set_result(None)
                    continue
                self._count_subscription(kind, frame)
                self.on_stream(self, frame)
                if self._outstanding == 0:
                    self._drained.set()
        except OSError as exc:
            self._conn = None
            self.lost = str(exc) or "connection closed"
            self.on_stream(self, ConnectionLost(self.lost))
        finally:
            if self._conn is not None:
                self._conn.pushes_are_replies = False
            self._drained.set()
            for fut in self._sync_waiters.values():
                if not fut.done():
                    fut.cancel()
            self._sync_waiters.clear()

    def _count_subscription(self, kind: bytes | None, frame) -> None:
        if kind in SUBSCRIBES:
            getattr(self._subs, SUBSCRIBES[kind]).add(bytes(frame[1]))
        elif kind in UNSUBSCRIBES:
            if isinstance(frame[1], Bulk):
                getattr(self._subs, UNSUBSCRIBES[kind]).discard(bytes(frame[1]))
        elif isinstance(frame, Status) and frame == b"RESET":
            self._subs = Subscriptions()
            self._monitoring = False
            self.units.clear()
            self.state = ClientState(self.name, client_id=self.state.client_id)
        self.state = replace(self.state, subscriptions=self._subs.total())

    async def wait_stream_drained(self) -> None:
        """Wait until every frame owed to the commands sent so far has arrived."""
        await self._drained.wait()

    async def sync(self) -> None:
        """Make sure every message the server sent us so far has been delivered.

        Sends `PING <token>` on the subscribed connection; the server answers it after
        everything queued before it, and the reader swallows that answer.
        """
        if not self.streaming:
            return
        self._sync_counter += 1
        token = b"playground-sync-%d" % self._sync_counter
        fut = asyncio.get_running_loop().create_future()
        self._sync_waiters[token] = fut
        await self._send_streaming([b"PING", token])
        await asyncio.gather(fut, return_exceptions=True)
