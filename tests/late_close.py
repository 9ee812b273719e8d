"""A unix-socket relay in front of a real server that makes a closed connection's end
arrive late, on demand: when the server closes a connection while the client waits for
no reply, the relay keeps the client's side open until the client has sent something
more (that is not forwarded: the server has gone), then closes it. The client has then
sent its next command before it could see the end, whatever the machine's load: the
order a busy machine gives now and then (the server's close late after its last
reply), every time.

Only the connection's end is held; every byte goes through as it comes.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import replace

from playground.resp.address import Address
from playground.resp.buffer_parser import MORE, parse_buffered


class LateClose:
    """`async with LateClose(address) as relay`: `relay.address` reaches the server at
    `address` through the relay; `relay.held` counts the ends held until the client sent more."""

    def __init__(self, address: Address) -> None:
        assert address.path is not None  # (a private server: unix socket only)
        self.upstream = address
        self.dir = tempfile.mkdtemp(prefix="late-close-")
        self.path = os.path.join(self.dir, "relay.sock")
        self.address = replace(address, path=self.path)
        self.held = 0
        self._server: asyncio.AbstractServer | None = None
        self._pipes: dict[asyncio.Task, list[asyncio.StreamWriter]] = {}  # each connection's task, its two ends

    async def __aenter__(self) -> "LateClose":
        self._server = await asyncio.start_unix_server(self._client, self.path)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writers in self._pipes.values():  # (each connection's task then ends by itself)
            for writer in writers:
                writer.close()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        await self._server.wait_closed()
        os.unlink(self.path)
        os.rmdir(self.dir)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._pipes[task] = [writer]
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream.path)
        except OSError:
            writer.close()
            del self._pipes[task]
            return
        self._pipes[task].append(up_writer)
        pipe = _Pipe()
        ways = [asyncio.ensure_future(self._to_server(reader, up_writer, pipe)),
                asyncio.ensure_future(self._to_client(up_reader, writer, pipe))]
        try:
            await asyncio.wait(ways, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for way in ways:
                way.cancel()
            await asyncio.gather(*ways, return_exceptions=True)
            up_writer.close()
            writer.close()  # the client sees the end now
            del self._pipes[task]

    async def _to_server(self, reader: asyncio.StreamReader, up: asyncio.StreamWriter, pipe: "_Pipe") -> None:
        """The client's bytes to the server; after the server's end, the client's next
        bytes release it (they go nowhere)."""
        while True:
            data = await reader.read(65536)
            if not data:
                return  # the client's end: passed on at once
            if pipe.ended.is_set():
                self.held += 1
                return
            pipe.requests += pipe.client.count(data)
            up.write(data)
            try:
                await up.drain()
            except OSError:
                pass  # (the server has gone: its end comes the other way)

    async def _to_client(self, up: asyncio.StreamReader, writer: asyncio.StreamWriter, pipe: "_Pipe") -> None:
        """The server's bytes to the client; its end held while the client waits for no
        reply (else passed on at once: the client would wait for ever)."""
        while True:
            try:
                data = await up.read(65536)
            except OSError:
                data = b""
            if not data:
                pipe.ended.set()
                if pipe.requests != pipe.replies or pipe.client.odd or pipe.server.odd:
                    return
                await asyncio.Event().wait()  # until the client's next bytes end the other way
            pipe.replies += pipe.server.count(data)
            writer.write(data)
            await writer.drain()


class _Frames:
    """Counts the whole RESP frames of one direction (commands, or replies: RESP2, as the
    tests using the relay speak); `odd` once it meets one it cannot read (then it cannot say)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.odd = False

    def count(self, data: bytes) -> int:
        self.buffer += data
        whole = 0
        while self.buffer and not self.odd:
            parsed = parse_buffered(self.buffer)
            if parsed is MORE:
                break
            if parsed is None:
                self.odd = True
                break
            del self.buffer[:parsed[1]]
            whole += 1
        return whole


class _Pipe:
    """One relayed connection's state."""

    def __init__(self) -> None:
        self.ended = asyncio.Event()  # the server closed its side
        self.client, self.server = _Frames(), _Frames()
        self.requests = self.replies = 0  # whole commands sent, whole replies received
