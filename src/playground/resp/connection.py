"""Our own RESP connection: every reply keeps its RESP type, errors are values.

A few dozen lines over an asyncio protocol with its own buffer (reply_stream.py) do what
the playground needs: one dedicated connection per client, commands sent exactly as typed
(redis-py splits a first argument that contains a space; redis-cli sends it as one), and
replies parsed into `playground.resp.replies` types (`+OK` stays a Status, `$2 OK` a
Bulk), RESP2 and RESP3 on the same connection so a user's `HELLO 3` just works. Importing
redis-py cost ~50 ms of every start-up for the same job; it remains the benchmarks'
baseline only.

Failures are OSErrors: `ConnectionError` (lost, refused, closed by the server),
`TimeoutError` (connecting), `ProtocolError` (not RESP).
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Callable, Sequence
from typing import Any

from playground.i18n import tr

# (re-exported: where a server listens, a reply's parser and errors, buffered_response's MORE)
from .address import Address as Address
from .buffer_parser import MORE as MORE
from .buffer_parser import More, parse_buffered
from .replies import Err, Push, Reply
from .reply_reader import ProtocolError as ProtocolError
from .reply_reader import parse_reply as parse_reply
from .reply_reader import read_reply
from .reply_stream import RECV_SIZE, LineTooLong, ReplyStream
from .socket_wait import plain_fd, quick_read
from .tls import tls_failure

CONNECT_TIMEOUT = 5.0
WAIT_WHOLE = 1 << 18  # a reply shorter than this is waited for whole, then parsed at once

CLOSED_BY_SERVER = "Connection closed by server."
"""Why a connection is lost when the server closed it (the notes on stderr and in a pane say so)."""


def pack_command(args: Sequence[bytes | str | int]) -> bytes:
    """RESP array of bulk strings, every argument exactly as given."""
    plain: Sequence[Any] = args  # all bytes, the usual case, at once (a str or an int raises TypeError)
    try:
        return b"*%d\r\n" % len(args) + b"".join([b"$%d\r\n%b\r\n" % (len(arg), arg) for arg in plain])
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
        self._stream: ReplyStream | None = None
        self._quick_fd: int | None = None
        self.on_push: Callable[[Reply], None] | None = None
        """Called with every RESP3 push frame (an invalidation, a message) that arrives
        between replies, on every read (pipelines and resets included); the frame is
        never returned as a reply. None drops them."""
        self.pushes_are_replies = False
        """True while subscribed: the stream reader takes push frames as its replies."""
        self.first_line_at = 0.0
        """When the first byte of the last reply arrived (time.monotonic): the server
        had answered by then, however late we read it and whatever it costs us to read
        and render the rest."""
        self.last_byte_at = 0.0
        """When the last byte of the last reply arrived: the server was free for the
        next command of this connection by then (engine/pipeline.py times from it)."""

    def handshake(self) -> list[list[bytes]]:
        """What `connect` sends once the socket is open: AUTH / CLIENT SETNAME / SELECT
        as the address asks."""
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
        return hello

    async def connect(self) -> None:
        """Open the socket, then `handshake()`, in one round trip."""
        where = self.address.describe()
        loop = asyncio.get_running_loop()
        try:
            if self.address.path:
                opening = loop.create_unix_connection(ReplyStream, self.address.path)
            elif self.address.tls is not None:
                opening = loop.create_connection(ReplyStream, self.address.host, self.address.port,
                                                 ssl=self.address.tls.context(),
                                                 server_hostname=self.address.host)  # SNI
            else:
                opening = loop.create_connection(ReplyStream, self.address.host, self.address.port)
            async with asyncio.timeout(CONNECT_TIMEOUT):  # (not wait_for: in 3.11 it swallows a cancel
                _, stream = await opening                  # that comes the turn the socket opens)
        except asyncio.TimeoutError:
            raise TimeoutError(f"timeout connecting to {where}") from None
        except ssl.SSLError as exc:
            raise ConnectionError(f"cannot connect to {where}: {tls_failure(exc)}") from None
        except OSError as exc:
            raise ConnectionError(f"cannot connect to {where}: {exc.strerror or exc}") from None
        self.attach(stream)
        hello = self.handshake()
        try:
            replies = await self.pipeline(hello)
        except ConnectionError as exc:  # a TLS server that wants a client certificate says so here
            await self.close()
            if self.address.tls is None:
                raise
            why = str(exc)
            if why == CLOSED_BY_SERVER:  # right after the handshake
                why = tr("the server closed the connection after the TLS handshake (does it ask for "
                         "a client certificate? --cert and --key)")
            raise ConnectionError(f"cannot connect to {where}: {why}") from None
        for argv, reply in zip(hello, replies, strict=True):  # (one reply per command sent)
            if isinstance(reply, Err):
                await self.close()
                raise ConnectionError(f"{argv[0].decode()} failed on {where}: "
                                      f"{reply.message.decode(errors='replace')}")

    def attach(self, stream: ReplyStream) -> None:
        """Send and read through `stream` from now on (`connect` attaches its socket's; a
        stream fed by hand works as well: nothing is sent, replies are what it is fed)."""
        self._drop()
        self._stream = stream
        self._quick_fd = None if stream.transport is None else plain_fd(stream.transport)

    async def close(self) -> None:
        """Close the socket without waiting: a read pending elsewhere ends with ConnectionError."""
        self._drop()

    def _drop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    @property
    def connected(self) -> bool:
        return self._stream is not None

    def closed_by_peer(self) -> bool:
        """The server has closed this connection (seen as end of input, nothing unread)."""
        return self._stream is not None and self._stream.eof and not self._stream.buffer

    async def send_command(self, *args: bytes | str | int) -> None:
        await self.send_packed_command(pack_command(args))

    async def send_packed_command(self, data: bytes) -> None:
        if self._stream is None:
            raise ConnectionError("not connected")
        try:
            self._stream.write(data)
            await self._stream.drain()
        except BaseException as exc:  # failed or cancelled: what was sent is unknown
            self._drop()
            if isinstance(exc, (ConnectionResetError, BrokenPipeError)):
                raise ConnectionError(CLOSED_BY_SERVER) from None
            raise

    async def read_response(self) -> Reply:
        """The next reply, typed. ConnectionError when the server closed the connection.

        A read that fails or is cancelled closes the connection: the rest of that reply
        would otherwise be taken for the answer to the next command.
        """
        stream = self._stream
        if stream is None:
            raise ConnectionError("not connected")
        try:
            # A whole plain reply is parsed from the buffer at once, not with a coroutine
            # per line: wait for its pieces while they are few (a reply under WAIT_WHOLE).
            reply = self._take_whole(stream)
            while reply is MORE and len(stream.buffer) < WAIT_WHOLE and not stream.eof:
                await stream.wait()
                reply = self._take_whole(stream)
            while reply is None or reply is MORE:
                if self._stream is not stream:  # closed meanwhile (a time-out's restart): an OSError, as a drop is
                    raise ConnectionResetError("connection closed")
                reply = await read_reply(stream, self._first_line)
                self.last_byte_at = stream.taken_arrival
                if isinstance(reply, Push) and not self.pushes_are_replies:
                    if self.on_push is not None:
                        self.on_push(reply)
                    reply = None
            return reply
        except BaseException as exc:
            self._drop()
            if isinstance(exc, asyncio.IncompleteReadError):
                raise ConnectionError(CLOSED_BY_SERVER) from None
            if isinstance(exc, LineTooLong):
                raise ProtocolError("a reply line longer than the protocol allows") from None
            if isinstance(exc, ValueError):  # int() of a bad length
                raise ProtocolError(f"Protocol Error: {exc}") from None
            if isinstance(exc, ssl.SSLError):
                raise ConnectionError(tls_failure(exc)) from None
            raise

    def _first_line(self) -> None:
        self.first_line_at = self._stream.line_arrival if self._stream is not None else time.monotonic()

    async def first_bytes(self, within: float) -> bool:
        """Wait until the next reply starts arriving: True when it has (or when there is
        nothing to wait for: `read_response` then says what went wrong); False when no
        byte came within `within` seconds (then `read_response` is to be awaited where a
        late reply can be watched: engine/settled_line.py), or what came is a push frame,
        or another read is waiting already.

        On a plain socket the wait is a select in this thread: no turn of the event loop
        for a reply that is already there, at the cost of holding the loop for at most
        `within` (QUICK_LATE, 5 ms) when it is late; TLS waits in the loop."""
        stream = self._stream
        if stream is None:
            return True
        if not stream.buffer:
            if stream.eof:
                return True
            if stream.reading:
                return False
            if self._quick_fd is not None and quick_read(self._quick_fd, stream, within, RECV_SIZE):
                return stream.buffer[:1] != b">" if stream.buffer else True
            try:
                await stream.wait(within)  # more bytes, the end, or `within` passed: an empty buffer then means "late"
            except asyncio.CancelledError:  # as in any read: what comes later would be taken for the next reply
                self._drop()
                raise
            if not stream.buffer:
                return stream.eof
        return stream.buffer[:1] != b">"

    def buffered_response(self) -> Reply | More:
        """The next reply if it is all in the buffer already (typed, as `read_response`
        gives it), else MORE: then `read_response` waits for it. No coroutine: a long
        pipeline's replies mostly come this way."""
        reply = MORE if self._stream is None else self._take_whole(self._stream)
        return MORE if reply is None else reply

    def _take_whole(self, stream: ReplyStream) -> Reply | More | None:
        """The reply at the start of the read buffer, taken out of it if it is all there;
        MORE if it is not yet; None if the general reader must take it (see buffer_parser)."""
        done = parse_buffered(stream.buffer) if stream.buffer else MORE
        if done is None or done is MORE:
            return done
        reply, end = done
        self.first_line_at = stream.arrived(0)
        stream.take(end)
        self.last_byte_at = stream.taken_arrival
        return reply

    async def pipeline(self, commands: list[list[bytes]]) -> list[Reply]:
        """Send `commands` in one write and return their replies, in order."""
        if not commands:
            return []
        await self.send_packed_command(pack_pipeline(commands))
        return [await self.read_response() for _ in commands]
