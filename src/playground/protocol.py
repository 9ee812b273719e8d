"""redis-py's asyncio connection, with a parser that keeps every reply's RESP type.

We keep redis-py's socket handling, buffering and handshake, and replace only
`_read_response` (so `+OK` stays a Status, `$2 OK` a Bulk, errors stay values) and
`pack_command` (redis-py splits a first argument that contains a space; redis-cli
sends it as one argument). One parser serves RESP2 and RESP3, so `HELLO 3` typed by
a user just works on the same connection.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from redis._parsers.resp3 import _AsyncRESP3Parser
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, RedisError

from .replies import (
    Array, BigNumber, Bool, Bulk, Double, Err, Int, Map, Nil, Push, Set, Status, Verbatim,
)


class TypedParser(_AsyncRESP3Parser):
    """Parses RESP2 and RESP3 into `playground.replies` types; errors are returned, not raised."""

    async def _read_response(self, disable_decoding: bool = False, push_request: bool = False):
        if not self._stream:
            raise RedisConnectionError("Connection closed by server.")
        raw = await self._readline()
        byte, rest = raw[:1], raw[1:]
        if byte == b"+":
            return Status(rest)
        if byte == b"-":
            return Err(rest)
        if byte == b":":
            return Int(int(rest))
        if byte == b"$":
            n = int(rest)
            return Nil if n < 0 else Bulk(await self._read(n))
        if byte in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return Nil
            items = [await self._read_response() for _ in range(n)]
            return {b"*": Array, b"~": Set, b">": Push}[byte](items)
        if byte == b"%":
            pairs = []
            for _ in range(int(rest)):
                key = await self._read_response()
                pairs.append((key, await self._read_response()))
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
            return Err(await self._read(int(rest)))
        if byte == b"=":
            data = await self._read(int(rest))
            return Verbatim(data[4:], data[:3])
        if byte == b"|":  # RESP3 attribute: metadata before the real reply
            for _ in range(int(rest) * 2):
                await self._read_response()
            return await self._read_response()
        raise InvalidResponse(f"Protocol Error: {raw!r}")


_CONNECTION_OPTIONS = dict(
    parser_class=TypedParser,
    protocol=2,                 # RESP2 like redis-cli; a user may switch with HELLO 3
    socket_timeout=None,        # a blocked BLPOP waits as long as the user wants
    socket_connect_timeout=5,
    driver_info=None,           # no CLIENT SETINFO: the session is the user's
    retry_on_error=[],
    retry=None,
)


class _ExactPacking:
    def pack_command(self, *args) -> list[bytes]:
        """RESP array of bulk strings, every argument exactly as given."""
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            if isinstance(arg, str):
                arg = arg.encode()
            elif isinstance(arg, int):
                arg = b"%d" % arg
            parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
        return [b"".join(parts)]


class TypedUnixConnection(_ExactPacking, UnixDomainSocketConnection):
    """A dedicated unix-socket connection that returns typed replies."""


class TypedTCPConnection(_ExactPacking, Connection):
    """A dedicated TCP connection that returns typed replies (only with an explicit --url)."""


def open_connection(address: "Address", client_name: str | None = None):
    """A new, not yet connected, typed connection to `address`."""
    if address.path:
        return TypedUnixConnection(path=address.path, client_name=client_name,
                                   db=address.db, username=address.username,
                                   password=address.password, **_CONNECTION_OPTIONS)
    return TypedTCPConnection(host=address.host, port=address.port, client_name=client_name,
                              db=address.db, username=address.username,
                              password=address.password, **_CONNECTION_OPTIONS)


@dataclass(frozen=True)
class Address:
    """Where a server listens: a unix socket path, or host and port."""

    path: str | None = None
    host: str = "127.0.0.1"
    port: int = 6379
    db: int = 0
    username: str | None = None
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> "Address":
        """redis://[user:password@]host[:port][/db] or unix:///path/to/socket[?db=N]."""
        parts = urlsplit(url)
        try:
            if parts.scheme == "unix":
                db = int(parse_qs(parts.query).get("db", ["0"])[0])
                if not parts.path:
                    raise ValueError("no socket path")
                return cls(path=parts.path, db=db, username=parts.username or None,
                           password=parts.password)
            if parts.scheme == "redis":
                db = int(parts.path.lstrip("/") or 0)
                return cls(host=parts.hostname or "127.0.0.1", port=parts.port or 6379, db=db,
                           username=parts.username or None, password=parts.password)
        except ValueError as exc:
            raise ValueError(f"bad --url {url!r}: {exc}") from None
        raise ValueError(f"bad --url {url!r}: use redis://host:port/db or unix:///path")

    def describe(self) -> str:
        return self.path if self.path else f"{self.host}:{self.port}"


def pack_pipeline(commands: list[list[bytes]]) -> bytes:
    """Several commands as one write (a pipeline)."""
    out = []
    for argv in commands:
        out.append(b"*%d\r\n" % len(argv))
        for arg in argv:
            out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


class SideConnection:
    """A named helper connection of the playground's own (observer, inspector): it
    reconnects on demand and runs one pipeline at a time, whoever asks."""

    def __init__(self, address: Address, name: str, hello: list[list[bytes]] = ()) -> None:
        self.address = address
        self.name = name
        self.hello = list(hello)  # sent once per connection; replies ignored
        self._conn = None
        self._lock: asyncio.Lock | None = None

    async def connect(self, address: Address | None = None) -> None:
        await self.close()
        if address is not None:
            self.address = address
        await self._open()

    async def _open(self) -> None:
        conn = open_connection(self.address, client_name=self.name)
        await conn.connect()
        if self.hello:
            await conn.send_packed_command(pack_pipeline(self.hello))
            for _ in self.hello:
                await conn.read_response()
        self._conn = conn

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.disconnect(nowait=True)

    async def run(self, commands: list[list[bytes]]) -> list:
        """Send `commands` as one pipeline and return their typed replies."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._conn is None:
                await self._open()
            try:
                await self._conn.send_packed_command(pack_pipeline(commands))
                return [await self._conn.read_response() for _ in commands]
            except (OSError, RedisError):
                self._conn = None
                raise
