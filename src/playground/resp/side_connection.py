"""The playground's own helper connections (observer, inspector, admin): named, reconnected
on demand, one pipeline at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from .address import Address
from .connection import TypedConnection
from .replies import Reply
from .reply_reader import ProtocolError


class SideConnection:
    """A named helper connection of the playground's own (observer, inspector, admin): it
    reconnects on demand and runs one pipeline at a time, whoever asks.

    What it sends is idempotent (reads, and the admin's flushes), so when the server
    closed the connection (`CLIENT KILL TYPE normal` typed in a pane, a timeout) the
    pipeline is sent once more on a new connection instead of failing the caller."""

    def __init__(self, address: Address, name: str, hello: Sequence[list[bytes]] = ()) -> None:
        self.address = address
        self.name = name
        self.hello = list(hello)  # sent once per connection; replies ignored
        self._conn: TypedConnection | None = None
        self._lock: asyncio.Lock | None = None
        # called with every pipeline before it is sent (engine.own_traffic)
        self.on_send: Callable[[list[list[bytes]]], None] | None = None

    async def connect(self, address: Address | None = None) -> None:
        await self.close()
        if address is not None:
            self.address = address
        await self._open()

    async def _open(self) -> TypedConnection:
        conn = TypedConnection(self.address, client_name=self.name)
        if self.on_send is not None:  # a reconnect's handshake too, as MONITOR shows it (AUTH redacted)
            self.on_send([[argv[0], *[b"(redacted)"] * (len(argv) - 1)] if argv[0] == b"AUTH" else argv
                          for argv in conn.handshake()] + self.hello)
        await conn.connect()
        await conn.pipeline(self.hello)
        self._conn = conn
        return conn

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    async def run(self, commands: list[list[bytes]]) -> list[Reply]:
        """Send `commands` as one pipeline and return their typed replies.

        Args:
            commands: the commands, each its arguments.
        """
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            try:
                return await self._send(commands)
            except ProtocolError:
                raise
            except ConnectionError:
                self._conn = None
            return await self._send(commands)  # once more, on a new connection

    async def _send(self, commands: list[list[bytes]]) -> list[Reply]:
        conn = self._conn
        if conn is None or not conn.connected or conn.closed_by_peer():
            conn = await self._open()  # lost, killed, or closed by a cancelled read
        if self.on_send is not None:
            self.on_send(commands)
        return await conn.pipeline(commands)
