"""A client's replies that arrive as a stream (after SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE or
MONITOR): one reader task takes every frame, counts the ones owed to the commands sent,
keeps the subscription counts, and hands the rest (messages, MONITOR lines) to its
client's `on_stream`. Each Session owns one `SubscriptionStream`; what the stream needs
of its session is `StreamOwner`."""

from __future__ import annotations

import asyncio
from typing import Protocol

from playground.engine.catalogue import SUBSCRIBES, UNSUBSCRIBES
from playground.engine.stream_frames import (
    MESSAGE_KINDS,
    Subscriptions,
    frame_kind,
    is_subscription_frame,
    sync_token,
)
from playground.resp.connection import TypedConnection
from playground.resp.replies import Bulk, Push, Status


class ConnectionLost(Exception):
    """The connection dropped under a command (server gone, or killed the client)."""


class MonitorLine(Status):
    """One line of MONITOR output (a status reply the server streams after MONITOR)."""


class StreamOwner(Protocol):
    """What a SubscriptionStream asks of the client it belongs to."""

    def in_multi(self) -> bool:
        """Whether the client's transaction is open (every command is then QUEUED)."""

    def stream_frame(self, frame: object) -> None:
        """A frame for whoever listens: a message, a MONITOR line, a confirmation, or
        ConnectionLost when the connection went."""

    def subscriptions_changed(self, total: int) -> None:
        """The client's subscription count is now `total`."""

    def reset_seen(self) -> None:
        """RESET's reply came through the stream: the client starts afresh."""

    def stream_lost(self, why: str) -> None:
        """The stream's connection failed (`why`): it is the client's no more."""


class SubscriptionStream:
    """One client's pub/sub and MONITOR stream: what it is subscribed to, the frames
    still owed to its commands, and the task reading them."""

    def __init__(self, owner: StreamOwner) -> None:
        self.owner = owner
        self.subs = Subscriptions()
        self.monitoring = False
        """MONITOR was sent (its lines are streamed until the connection goes or a RESET)."""
        self._conn: TypedConnection | None = None
        self._outstanding = 0          # frames still owed to commands we sent
        self._reader: asyncio.Task[None] | None = None
        self._drained = asyncio.Event()
        self._drained.set()
        self._sync_waiters: dict[bytes, asyncio.Future[None]] = {}
        self._sync_counter = 0

    @property
    def active(self) -> bool:
        """Replies arrive on the stream (a reader runs)."""
        return self._reader is not None and not self._reader.done()

    def restart(self) -> None:
        """A new connection: nothing subscribed, owed or monitored."""
        self.subs = Subscriptions()
        self._outstanding = 0
        self.monitoring = False
        self._drained.set()

    async def close(self) -> None:
        """The reader stops; whoever waits for a sync is let go."""
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None
        self._cancel_waiters()

    async def send(self, conn: TypedConnection, argv: list[bytes]) -> None:
        """Send `argv` on `conn`, its replies to come through the stream.

        Args:
            conn: the client's connection (the stream reads it until nothing is owed or subscribed).
            argv: the command.

        Raises:
            ConnectionLost: the connection failed while sending.
        """
        self._outstanding += self._frames_owed(argv)
        self._drained.clear()
        if self._reader is None or self._reader.done():
            self._conn = conn
            conn.pushes_are_replies = True
            self._reader = asyncio.create_task(self._read(conn))
        try:
            await conn.send_command(*argv)
        except OSError as exc:
            self.owner.stream_lost(str(exc))
            raise ConnectionLost(str(exc)) from None

    def _frames_owed(self, argv: list[bytes]) -> int:
        """How many frames the server sends back for `argv` while subscribed."""
        cmd, nargs = argv[0].lower(), len(argv) - 1
        if self.owner.in_multi():  # QUEUED (or an error), whatever the command
            return 1
        if cmd in SUBSCRIBES:
            return max(nargs, 1)
        if cmd in UNSUBSCRIBES:
            return nargs or max(len(getattr(self.subs, UNSUBSCRIBES[cmd])), 1)
        return 1  # PING, RESET, MONITOR's OK, ...

    async def _read(self, conn: TypedConnection) -> None:
        lost = False
        try:
            while self._outstanding > 0 or self.subs.total() > 0 or self.monitoring:
                frame = await conn.read_response()
                kind = frame_kind(frame)
                if kind in MESSAGE_KINDS or (isinstance(frame, Push) and not is_subscription_frame(frame)):
                    self.owner.stream_frame(frame)
                    continue
                if self.monitoring and self._outstanding == 0 and isinstance(frame, Status):
                    self.owner.stream_frame(MonitorLine(frame))
                    continue
                self._outstanding = max(self._outstanding - 1, 0)
                token = sync_token(frame)
                if token is not None and token in self._sync_waiters:
                    self._sync_waiters.pop(token).set_result(None)
                    continue
                self._count(kind, frame)
                self.owner.stream_frame(frame)
                if self._outstanding == 0:
                    self._drained.set()
        except OSError as exc:
            lost = True
            why = str(exc) or "connection closed"
            self.owner.stream_lost(why)
            self.owner.stream_frame(ConnectionLost(why))
        finally:
            if not lost:
                conn.pushes_are_replies = False
            self._conn = None
            self._drained.set()
            self._cancel_waiters()

    def _cancel_waiters(self) -> None:
        for fut in self._sync_waiters.values():
            if not fut.done():
                fut.cancel()
        self._sync_waiters.clear()

    def _count(self, kind: bytes | None, frame: object) -> None:
        if kind in SUBSCRIBES:
            getattr(self.subs, SUBSCRIBES[kind]).add(bytes(frame[1]))  # type: ignore[index]
        elif kind in UNSUBSCRIBES:
            if isinstance(frame[1], Bulk):  # type: ignore[index]
                getattr(self.subs, UNSUBSCRIBES[kind]).discard(bytes(frame[1]))  # type: ignore[index]
        elif isinstance(frame, Status) and frame == b"RESET":
            self.subs = Subscriptions()
            self.monitoring = False
            self.owner.reset_seen()
        self.owner.subscriptions_changed(self.subs.total())

    async def wait_drained(self) -> None:
        """Wait until every frame owed to the commands sent so far has arrived."""
        await self._drained.wait()

    async def sync(self) -> None:
        """Make sure every message the server sent so far has been delivered.

        Sends `PING <token>` on the subscribed connection; the server answers it after
        everything queued before it, and the reader swallows that answer.
        """
        conn = self._conn
        if not self.active or conn is None:
            return
        self._sync_counter += 1
        token = b"playground-sync-%d" % self._sync_counter
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sync_waiters[token] = fut
        await self.send(conn, [b"PING", token])
        await asyncio.gather(fut, return_exceptions=True)
