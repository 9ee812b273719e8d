"""The general reader: one reply of any RESP2/RESP3 type, a line or a length at a time,
from a connection's ReplyStream (reply_stream.py). It takes what the buffer parser
(buffer_parser.py) declines: RESP3 types, big bulk strings, replies still arriving, and
anything odd (it says what is wrong).
"""

from __future__ import annotations

from collections.abc import Callable

from .buffer_parser import BULK_PIECE
from .replies import Array, BigNumber, Bool, Bulk, Double, Err, Int, Map, Nil, Push, Reply, Set, Status, Verbatim
from .reply_stream import ReplyStream


class ProtocolError(ConnectionError):
    """The server sent something that is not RESP: the connection cannot be trusted."""


_WHOLE_LINE: dict[bytes, Callable[[bytes], Reply]] = {
    b"+": Status,
    b"-": Err,
    b":": lambda rest: Int(int(rest)),
    b"_": lambda rest: Nil,  # RESP3 null
    b",": Double,
    b"(": BigNumber,
    b"#": lambda rest: Bool(rest == b"t"),
}
"""The types whose reply is its first line alone: the line's type byte -> the reply from
the rest of the line."""
_AGGREGATE: dict[bytes, Callable[[list[Reply]], Reply]] = {b"*": Array, b"~": Set, b">": Push}


async def read_reply(stream: ReplyStream, first_line: Callable[[], None] | None = None) -> Reply:
    """The next reply, typed; `first_line()` is called once its first line is in.

    asyncio.IncompleteReadError when the stream ends within it, ValueError on a bad
    length, LineTooLong, ProtocolError: the caller closes the connection."""
    raw = await stream.readline()
    if first_line is not None:
        first_line()
    byte, rest = raw[:1], raw[1:]
    whole = _WHOLE_LINE.get(byte)
    if whole is not None:
        return whole(rest)
    if byte == b"$":
        n = int(rest)
        if n < 0:
            return Nil
        if n <= BULK_PIECE:
            return Bulk((await stream.readexactly(n + 2))[:-2])
        return Bulk(await _read_big(stream, n))
    if byte in (b"*", b"~", b">"):
        n = int(rest)
        if n < 0:
            return Nil
        items = [await read_reply(stream) for _ in range(n)]
        return _AGGREGATE[byte](items)
    if byte == b"%":
        pairs = []
        for _ in range(int(rest)):
            key = await read_reply(stream)
            pairs.append((key, await read_reply(stream)))
        return Map(pairs)
    if byte == b"!":
        return Err((await stream.readexactly(int(rest) + 2))[:-2])
    if byte == b"=":
        data = (await stream.readexactly(int(rest) + 2))[:-2]
        return Verbatim(data[4:], data[:3])
    if byte == b"|":  # RESP3 attribute: metadata before the real reply
        for _ in range(int(rest) * 2):
            await read_reply(stream)
        return await read_reply(stream)
    raise ProtocolError(f"Protocol Error: {raw!r}")


async def _read_big(stream: ReplyStream, n: int) -> bytes:
    """n bytes and the CRLF after them, read in pieces into one buffer: the stream's own
    buffer stays small (it stops the transport past HIGH_WATER) and the value is in memory
    twice at most (the buffer, then one bytes object; the caller's Bulk is made once the
    buffer is gone)."""
    buffer = bytearray(n)
    view = memoryview(buffer)
    done = 0
    while done < n:
        piece = await stream.read_some(min(n - done, BULK_PIECE))
        view[done:done + len(piece)] = piece
        done += len(piece)
    await stream.readexactly(2)
    view.release()
    data = bytes(buffer)
    del buffer
    return data


async def parse_reply(raw: bytes) -> Reply:
    """One whole reply the server sent (e.g. a program's, forwarded by the gate byte for
    byte), typed exactly as `TypedConnection.read_response` types it."""
    stream = ReplyStream()
    stream.feed(raw)
    stream.feed_eof()
    return await read_reply(stream)
