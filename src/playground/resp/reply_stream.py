"""A connection's bytes as they arrive: an asyncio protocol with its own read buffer.

The transport (a unix socket, TCP, TLS) hands what it reads to `ReplyStream`, which keeps
it in one bytearray, `buffer`: a whole reply is parsed from there at once
(buffer_parser.py), anything else a line or a length at a time (reply_reader.py). A read
that needs more bytes waits on a future that the next bytes (or the end) resolve; only
one read waits at a time. Everything here is asyncio's public protocol API.

The stream also keeps when each piece arrived (`arrived`), so a reply's time can be told
from when its bytes came, not from when a busy reader got around to them (redis-cli's
"(N.NNs)" counts the server's part, engine/pipeline.py).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import cast

HIGH_WATER = 1 << 21  # more unread bytes than this: the transport stops reading until a read takes some
RECV_SIZE = 1 << 16  # bytes asked of each recv (asyncio's own default, 256 KiB, costs ~20 µs a reply)
LONGEST_LINE = 1 << 29  # longest simple-string/error line accepted (512 MiB, as a bulk string)


class LineTooLong(Exception):
    """A line longer than LONGEST_LINE."""


class ReplyStream(asyncio.BufferedProtocol):
    """What the server sent and nobody has read yet (`buffer`), whether more can come
    (`eof`: no), and the way to send (`write`, `drain`)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        """What ended the connection, when it was not a plain end (a reset, a TLS alert)."""
        self.transport: asyncio.Transport | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._drained: asyncio.Future[None] | None = None
        self._recv: memoryview | None = None
        self._reading_paused = False
        self._writing_paused = False
        self._searched = 0  # where `readline` looks for the line's end from (it is not before)
        self._pieces: deque[tuple[int, float]] = deque()  # (offset just past a piece, when it came)
        self._taken = 0  # bytes taken out of `buffer` so far (the offset of buffer[0])
        self.taken_arrival = 0.0
        """When the last byte taken out of the buffer had arrived (time.monotonic)."""
        self.line_arrival = 0.0
        """When the first byte of the last line `readline` gave had arrived."""

    # --- the transport's side (asyncio.BufferedProtocol) ---

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (a stream's: unix socket, TCP, TLS)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._recv is None:
            self._recv = memoryview(bytearray(RECV_SIZE))
        return self._recv

    def buffer_updated(self, nbytes: int) -> None:
        assert self._recv is not None  # (get_buffer made it)
        self.feed(self._recv[:nbytes])

    def eof_received(self) -> bool:
        self.feed_eof()
        return False  # the transport closes itself: nothing can be sent to a server that hung up

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None and self.error is None:
            self.error = exc
        self.feed_eof()
        self._writing_paused = False
        self._wake_drain()

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        self._wake_drain()

    # --- bytes in ---

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes the server sent (the transport's, or read by someone else: socket_wait.py)."""
        self.buffer += data
        self._pieces.append((self._taken + len(self.buffer), time.monotonic()))
        if not self._reading_paused and len(self.buffer) > HIGH_WATER and self.transport is not None:
            self._reading_paused = True
            self.transport.pause_reading()
        self._wake()

    def feed_eof(self) -> None:
        """Nothing more will come."""
        self.eof = True
        self._wake()

    def arrived(self, at: int = 0) -> float:
        """When the byte at `buffer[at]` arrived (time.monotonic; it is in the buffer)."""
        at += self._taken
        for end, when in self._pieces:
            if end > at:
                return when
        return time.monotonic()  # (not there: a caller's mistake; "now" is the safe answer)

    def take(self, n: int) -> None:
        """The first n bytes of `buffer` are read: drop them."""
        if n:
            self.taken_arrival = self.arrived(n - 1)
        del self.buffer[:n]
        self._taken += n
        pieces = self._pieces
        while pieces and pieces[0][0] <= self._taken:
            pieces.popleft()
        self._searched = 0
        if self._reading_paused and len(self.buffer) <= HIGH_WATER // 2:
            self._resume_reading()

    @property
    def reading(self) -> bool:
        """A read is under way (its bytes may have come, it has not taken them yet): a
        second read may not wait."""
        return self._waiter is not None

    @property
    def waiting(self) -> bool:
        """A read waits for bytes that have not come yet."""
        return self._waiter is not None and not self._waiter.done()

    async def wait(self, within: float | None = None) -> None:
        """Until more bytes come, or the end, or `within` seconds have passed."""
        if self._waiter is not None:
            raise RuntimeError("two reads wait on one connection")
        if self.eof:
            return
        self._resume_reading()
        loop = asyncio.get_running_loop()
        self._waiter = loop.create_future()
        timer = None if within is None else loop.call_later(within, self._wake)
        try:
            await self._waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    async def readline(self) -> bytes:
        """The next line, without its CRLF."""
        while True:
            end = self.buffer.find(b"\r\n", self._searched)
            if end >= 0:
                self.line_arrival = self.arrived(0)
                line = bytes(self.buffer[:end])
                self.take(end + 2)
                return line
            if len(self.buffer) > LONGEST_LINE:
                raise LineTooLong()
            self._searched = max(0, len(self.buffer) - 1)
            await self._more(len(self.buffer) + 2)

    async def readexactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            await self._more(n)
        data = bytes(self.buffer[:n])
        self.take(n)
        return data

    async def read_some(self, n: int) -> bytes:
        """1 to n bytes, as soon as there are any."""
        while not self.buffer:
            await self._more(n)
        data = bytes(self.buffer[:n])
        self.take(len(data))
        return data

    async def _more(self, wanted: int) -> None:
        if self.eof:
            if self.error is not None:
                raise self.error
            raise asyncio.IncompleteReadError(bytes(self.buffer), wanted)
        await self.wait()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _resume_reading(self) -> None:
        if self._reading_paused:
            self._reading_paused = False
            if self.transport is not None:
                self.transport.resume_reading()

    # --- bytes out ---

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise ConnectionResetError("connection lost")
        self.transport.write(data)

    async def drain(self) -> None:
        """Until the transport has taken what was written (it may pause a big write)."""
        while self._writing_paused:
            if self._drained is None or self._drained.done():
                self._drained = asyncio.get_running_loop().create_future()
            await self._drained
        if self.transport is None or self.transport.is_closing():
            raise ConnectionResetError("connection lost")

    def _wake_drain(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def close(self) -> None:
        """Close the transport; unread bytes are dropped and a waiting read ends (with
        IncompleteReadError): nothing is left to be taken for a later reply."""
        self._taken += len(self.buffer)
        self._pieces.clear()
        self.buffer.clear()
        if self.transport is not None:
            self.transport.close()
        self.feed_eof()
