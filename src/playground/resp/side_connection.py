"""The playground's own helper connections (observer, inspector, admin): named, reconnected
on demand, one pipeline at a time."""

from __future__ import annotations

import asyncio

from .address import Address
from .connection import ProtocolError, TypedConnection


class SideConnection:
    """A named helper connection of the playground's own (observer, inspector, admin): it
    reconnects on demand and runs one pipeline at a time, whoever asks.

    What it sends is idempotent (reads, and the admin's flushes), so when the server
    closed the connection (`CLIENT KILL TYPE normal` typed in a pane, a timeout) the
    pipeline is sent once more on a new connection instead of failing the caller."""

    def __init__(self, address: Address, name: str, hello: list[list[bytes]] = ()) -> None:
        self.address = address
        self.name = name
        self.hello = list(hello)  # sent once per connection; replies ignored
        self._conn = None
        self._lock: asyncio.Lock | None = None
        self.on_send = None  # called with every pipeline before it is sent (engine.own_traffic)

    async def connect(self, address: Address | None = None) -> None:
        await self.close()
        if address is not None:
            self.address = address
        await self._open()

    async def _open(self) -> None:
        conn = TypedConnection(self.address, client_name=self.name)
        if self.on_send is not None:  # a reconnect's handshake too, as MONITOR shows it (AUTH redacted)
            self.on_send([[argv[0], *[b"(redacted)"] * (len(argv) - 1)] if argv[0] == b"AUTH" else argv
                          for argv in conn.handshake()] + self.hello)
        await conn.connect()
        await conn.pipeline(self.hello)
        self._conn = conn

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    async def run(self, commands: list[list[bytes]]) -> list:
        """Send `commands` as one pipeline and return their typed replies."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            for attempt in (1, 2):
                if self._conn is None or not self._conn.connected or self._conn.closed_by_peer():
                    await self._open()  # lost, killed, or closed by a cancelled read
                if self.on_send is not None:
                    self.on_send(commands)
                try:
                    return await self._conn.pipeline(commands)
                except ProtocolError:
                    raise
                except ConnectionError:
                    if attempt == 2:
                        raise
                    self._conn = None
