"""Our own RESP connection: every reply keeps its RESP type, errors are values.

A few dozen lines over asyncio streams do what the playground needs: one dedicated
connection per client, commands sent exactly as typed (redis-py splits a first argument
that contains a space; redis-cli sends it as one), and replies parsed into
`playground.resp.replies` types (`+OK` stays a Status, `$2 OK` a Bulk), RESP2 and RESP3 on
the same connection so a user's `HELLO 3` just works. Importing redis-py cost ~50 ms of
every start-up for the same job; it remains the benchmarks' baseline only.

Failures are OSErrors: `ConnectionError` (lost, refused, closed by the server),
`TimeoutError` (connecting), `ProtocolError` (not RESP).
"""

from __future__ import annotations

import asyncio
import ssl
import time

from playground.i18n import tr

from .address import Address, redact_url  # noqa: F401 (re-exported: where a server listens)
from .tls import tls_failure
from .socket_wait import plain_fd as _plain_fd, quick_read as _quick_read
from .buffer_parser import BULK_PIECE as _BULK_PIECE, MORE, parse_buffered as _parse_buffered
from .replies import (
    Array, BigNumber, Bool, Bulk, Double, Err, Int, Map, Nil, Push, Set, Status, Verbatim,
)

CONNECT_TIMEOUT = 5.0
LINE_LIMIT = 1 << 20  # the stream's buffer limit (it holds twice that at most): a longer line is read in pieces
LONGEST_LINE = 1 << 29  # longest simple-string/error line accepted (512 MiB, as a bulk string)
RECV_SIZE = 1 << 16  # bytes asked of each recv
WAIT_WHOLE = 1 << 18  # a reply shorter than this is waited for whole, then parsed at once


class ProtocolError(ConnectionError):
    """The server sent something that is not RESP: the connection cannot be trusted."""


def pack_command(args) -> bytes:
    """RESP array of bulk strings, every argument exactly as given."""
    try:  # (all bytes: the usual case, at once)
        return b"*%d\r\n" % len(args) + b"".join([b"$%d\r\n%b\r\n" % (len(arg), arg) for arg in args])
    except TypeError:  # str or int arguments
        pass
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, str):
            arg = arg.encode()
        elif isinstance(arg, int):
            arg = b"%d" % arg
        parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(parts)


def pack_pipeline(commands: list[list[bytes]]) -> bytes:
    """Several commands as one write (a pipeline)."""
    return b"".join(pack_command(argv) for argv in commands)


class TypedConnection:
    """One connection to a server; `read_response` returns typed replies, never raises
    for a Redis error reply (an `Err` is a value)."""

    def __init__(self, address: "Address", client_name: str | None = None) -> None:
        self.address = address
        self.client_name = client_name
        self._reader: asyncio.StreamReader | None = None
        self._quick_fd: int | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.on_push = None
        """Called with every RESP3 push frame (an invalidation, a message) that arrives
        between replies, on every read (pipelines and resets included); the frame is
        never returned as a reply. None drops them."""
        self.pushes_are_replies = False
        """True while subscribed: the stream reader takes push frames as its replies."""
        self.first_line_at = 0.0
        """When the first line of the last reply arrived (time.monotonic): the server
        had answered by then, whatever it costs us to read and render the rest."""

    async def connect(self) -> None:
        """Open the socket, then AUTH / CLIENT SETNAME / SELECT as the address asks, in
        one round trip."""
        where = self.address.describe()
        try:
            if self.address.path:
                opening = asyncio.open_unix_connection(self.address.path, limit=LINE_LIMIT)
            elif self.address.tls is not None:
                opening = asyncio.open_connection(self.address.host, self.address.port, limit=LINE_LIMIT,
                                                  ssl=self.address.tls.context(),
                                                  server_hostname=self.address.host)  # SNI
            else:
                opening = asyncio.open_connection(self.address.host, self.address.port, limit=LINE_LIMIT)
            self._reader, self._writer = await asyncio.wait_for(opening, CONNECT_TIMEOUT)
            if hasattr(self._writer.transport, "max_size"):
                # asyncio reads into a fresh buffer of max_size (256 KiB) per recv, which
                # costs ~20 µs even for a 5-byte reply; 64 KiB costs ~3 µs
                self._writer.transport.max_size = RECV_SIZE
            self._quick_fd = _plain_fd(self._writer)
        except asyncio.TimeoutError:
            raise TimeoutError(f"timeout connecting to {where}") from None
        except ssl.SSLError as exc:
            raise ConnectionError(f"cannot connect to {where}: {tls_failure(exc)}") from None
        except OSError as exc:
            raise ConnectionError(f"cannot connect to {where}: {exc.strerror or exc}") from None
        hello = []
        if self.address.password is not None:
            hello.append([b"AUTH", *([self.address.username.encode()] if self.address.username else []),
                          self.address.password.encode()])
        if self.client_name:
            hello.append([b"CLIENT", b"SETNAME", self.client_name.encode()])
        if self.address.db:
            hello.append([b"SELECT", b"%d" % self.address.db])
        if self.address.tls is not None and not hello:
            hello.append([b"PING"])  # a TLS server refuses a missing client certificate only now
        try:
            replies = await self.pipeline(hello)
        except ConnectionError as exc:  # a TLS server that wants a client certificate says so here
            await self.close()
            if self.address.tls is None:
                raise
            if str(exc) == "Connection closed by server.":  # right after the handshake
                exc = tr("the server closed the connection after the TLS handshake (does it ask for "
                         "a client certificate? --cert and --key)")
            raise ConnectionError(f"cannot connect to {where}: {exc}") from None
        for argv, reply in zip(hello, replies):
            if isinstance(reply, Err):
                await self.close()
                raise ConnectionError(f"{argv[0].decode()} failed on {where}: "
                                      f"{reply.message.decode(errors='replace')}")

    async def close(self) -> None:
        """Close the socket without waiting: a read pending elsewhere ends with ConnectionError."""
        self._drop()

    def _drop(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()

    @property
    def connected(self) -> bool:
        return self._writer is not None

    def closed_by_peer(self) -> bool:
        """The server has closed this connection (seen as end of input, nothing unread)."""
        return self._reader is not None and self._reader.at_eof()

    async def send_command(self, *args) -> None:
        await self.send_packed_command(pack_command(args))

    async def send_packed_command(self, data: bytes) -> None:
        if self._writer is None:
            raise ConnectionError("not connected")
        try:
            self._writer.write(data)
            await self._writer.drain()
        except BaseException as exc:  # failed or cancelled: what was sent is unknown
            self._drop()
            if isinstance(exc, (ConnectionResetError, BrokenPipeError)):
                raise ConnectionError("Connection closed by server.") from None
            raise

    async def read_response(self):
        """The next reply, typed. ConnectionError when the server closed the connection.

        A read that fails or is cancelled closes the connection: the rest of that reply
        would otherwise be taken for the answer to the next command.
        """
        if self._reader is None:
            raise ConnectionError("not connected")
        buffered = getattr(self._reader, "_buffer", None)  # asyncio.StreamReader's own
        if buffered is not None:
            # A whole plain reply is parsed from the buffer at once, not with a coroutine
            # per line: wait for its pieces while they are few (a reply under WAIT_WHOLE).
            reply = self._take_whole(buffered)
            while reply is MORE and len(buffered) < WAIT_WHOLE and await self._more_data():
                reply = self._take_whole(buffered)
            if reply is not None and reply is not MORE:
                return reply
        try:
            while True:
                if self._reader is None:  # closed meanwhile (a time-out's restart): an OSError, as a drop is
                    raise ConnectionResetError("connection closed")
                reply = await self._read(self._reader, top=True)
                if isinstance(reply, Push) and not self.pushes_are_replies:
                    if self.on_push is not None:
                        self.on_push(reply)
                    continue
                return reply
        except BaseException as exc:
            self._drop()
            if isinstance(exc, asyncio.IncompleteReadError):
                raise ConnectionError("Connection closed by server.") from None
            if isinstance(exc, _LineTooLong):
                raise ProtocolError("a reply line longer than the protocol allows") from None
            if isinstance(exc, ValueError):  # int() of a bad length
                raise ProtocolError(f"Protocol Error: {exc}") from None
            if isinstance(exc, ssl.SSLError):
                raise ConnectionError(tls_failure(exc)) from None
            raise

    async def first_bytes(self, within: float) -> bool:
        """Wait until the next reply starts arriving: True when it has (or when there is
        nothing to wait for: `read_response` then says what went wrong); False when no
        byte came within `within` seconds (then `read_response` is to be awaited where a
        late reply can be watched: engine/settled_line.py), or what came is a push frame,
        or this reader cannot be waited on this way.

        On a plain socket the wait is a select in this thread: no turn of the event loop
        for a reply that is already there, at the cost of holding the loop for at most
        `within` (QUICK_LATE, 5 ms) when it is late; TLS waits in the loop."""
        reader = self._reader
        if reader is None:
            return True
        buffered = getattr(reader, "_buffer", None)
        if buffered is None or not hasattr(reader, "_wait_for_data") or not hasattr(reader, "_wakeup_waiter"):
            return False
        if not buffered:
            if reader.at_eof() or reader.exception() is not None:
                return True
            if reader._waiter is not None:
                return False
            if self._quick_fd is not None and _quick_read(self._quick_fd, reader, within, RECV_SIZE):
                return buffered[:1] != b">" if buffered else True
            # the timer wakes the read as data would; an empty buffer then means "late"
            late = asyncio.get_running_loop().call_later(within, reader._wakeup_waiter)
            try:
                await reader._wait_for_data("first_bytes")
            except asyncio.CancelledError:  # as in any read: what comes later would be taken for the next reply
                self._drop()
                raise
            except Exception:  # (a TLS alert, a reset): read_response raises it as it should
                return True
            finally:
                late.cancel()
            if not buffered:
                return reader.at_eof() or reader.exception() is not None
        return buffered[:1] != b">"

    def buffered_response(self):
        """The next reply if it is all in the buffer already (typed, as `read_response`
        gives it), else MORE: then `read_response` waits for it. No coroutine: a long
        pipeline's replies mostly come this way."""
        reply = self._take_whole(getattr(self._reader, "_buffer", None))
        return MORE if reply is None else reply

    def _take_whole(self, buffered: bytearray | None):
        """The reply at the start of the read buffer, taken out of it if it is all there;
        MORE if it is not yet; None if the general reader must take it (see buffer_parser)."""
        done = _parse_buffered(buffered) if buffered else MORE
        if done is None or done is MORE:
            return done
        reply, end = done
        del buffered[:end]
        self._reader._maybe_resume_transport()
        self.first_line_at = time.monotonic()
        return reply

    async def _more_data(self) -> bool:
        """Wait until more bytes arrive; False if none can (end of input, an error, or a
        StreamReader without the hook): the general reader then takes over."""
        reader = self._reader
        if (not hasattr(reader, "_wait_for_data") or reader.at_eof() or reader.exception() is not None
                or reader._waiter is not None):
            return False
        try:
            await reader._wait_for_data("read_response")
        except asyncio.CancelledError:  # Ctrl+C: the connection is dropped, as for any read
            self._drop()
            raise
        except Exception:  # (a TLS alert, a reset): the general reader raises it as it should
            return False
        return True

    async def pipeline(self, commands: list[list[bytes]]) -> list:
        """Send `commands` in one write and return their replies, in order."""
        if not commands:
            return []
        await self.send_packed_command(pack_pipeline(commands))
        return [await self.read_response() for _ in commands]

    async def _read(self, reader: asyncio.StreamReader, top: bool = False):
        try:
            raw = (await reader.readuntil(b"\r\n"))[:-2]
        except asyncio.LimitOverrunError as exc:
            raw = await _long_line(reader, exc.consumed)
        if top:
            self.first_line_at = time.monotonic()
        byte, rest = raw[:1], raw[1:]
        if byte == b"+":
            return Status(rest)
        if byte == b"-":
            return Err(rest)
        if byte == b":":
            return Int(int(rest))
        if byte == b"$":
            n = int(rest)
            if n < 0:
                return Nil
            if n <= _BULK_PIECE:
                return Bulk((await reader.readexactly(n + 2))[:-2])
            return Bulk(await _read_big(reader, n))
        if byte in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return Nil
            items = [await self._read(reader) for _ in range(n)]
            return {b"*": Array, b"~": Set, b">": Push}[byte](items)
        if byte == b"%":
            pairs = []
            for _ in range(int(rest)):
                key = await self._read(reader)
                pairs.append((key, await self._read(reader)))
            return Map(pairs)
        if byte == b"_":
            return Nil
        if byte == b",":
            return Double(rest)
        if byte == b"(":
            return BigNumber(rest)
        if byte == b"#":
            return Bool(rest == b"t")
        if byte == b"!":
            return Err((await reader.readexactly(int(rest) + 2))[:-2])
        if byte == b"=":
            data = (await reader.readexactly(int(rest) + 2))[:-2]
            return Verbatim(data[4:], data[:3])
        if byte == b"|":  # RESP3 attribute: metadata before the real reply
            for _ in range(int(rest) * 2):
                await self._read(reader)
            return await self._read(reader)
        raise ProtocolError(f"Protocol Error: {raw!r}")


class _LineTooLong(Exception):
    """A simple-string or error line longer than LONGEST_LINE."""


async def _long_line(reader: asyncio.StreamReader, consumed: int) -> bytes:
    """A line longer than the stream's limit (e.g. `+yyy…` of 17 MB from a script),
    read in pieces up to LONGEST_LINE; returned without its CRLF."""
    pieces, size = [], 0
    while True:
        pieces.append(await reader.readexactly(consumed))
        size += consumed
        if size > LONGEST_LINE:
            raise _LineTooLong()
        try:
            pieces.append(await reader.readuntil(b"\r\n"))
            return b"".join(pieces)[:-2]
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed


async def _read_big(reader: asyncio.StreamReader, n: int) -> bytes:
    """n bytes and the CRLF after them, read in pieces into one buffer: the stream's own
    buffer stays small (LINE_LIMIT) and the value is in memory twice at most (the
    buffer, then one bytes object; the caller's Bulk is made once the buffer is gone)."""
    buffer = bytearray(n)
    view = memoryview(buffer)
    done = 0
    while done < n:
        piece = await reader.read(min(n - done, _BULK_PIECE))
        if not piece:
            raise asyncio.IncompleteReadError(b"", n - done)
        view[done:done + len(piece)] = piece
        done += len(piece)
    await reader.readexactly(2)
    view.release()
    data = bytes(buffer)
    del buffer
    return data


async def parse_reply(raw: bytes):
    """One whole reply the server sent (e.g. a program's, forwarded by the gate byte for
    byte), typed exactly as `TypedConnection.read_response` types it."""
    reader = asyncio.StreamReader()
    reader.feed_data(raw)
    reader.feed_eof()
    return await TypedConnection(Address(path="-"))._read(reader, top=True)
