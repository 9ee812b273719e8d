"""Whole RESP frames in raw bytes, never decoded into values: the gate passes requests
and replies through byte for byte, and only needs to know where each one ends (and,
for a request, its arguments).
"""

from __future__ import annotations

MAX_DEPTH = 64
MAX_INLINE = 64 * 1024       # an inline command (a raw `PING\r\n`) longer than this is refused
MAX_BULK = 512 * 1024 * 1024
_AGGREGATES = b"*%~>|"       # arrays, maps, sets, pushes, attributes
_LINES = b"+-:_,#(!="        # one line: status, error, integer, null, double, bool, big number


class FrameError(ValueError):
    """The bytes are not RESP: the connection cannot go on."""


def reply_end(buf, pos: int = 0, depth: int = 0) -> int | None:
    """The offset just past the whole reply that starts at `pos`, or None when it is not
    all there yet. Raises FrameError for what is not RESP."""
    if depth > MAX_DEPTH:
        raise FrameError("nested too deep")
    nl = buf.find(b"\r\n", pos)
    if nl < 0:
        return None
    kind = buf[pos:pos + 1]
    if kind in (b"$", b"!", b"="):
        n = _number(buf, pos, nl)
        if n < 0:
            return nl + 2
        if n > MAX_BULK:
            raise FrameError("bulk string too long")
        end = nl + 2 + n + 2
        return end if len(buf) >= end else None
    if kind and kind in _LINES:
        return nl + 2
    if kind and kind in _AGGREGATES:
        n = _number(buf, pos, nl)
        if kind in (b"%", b"|"):
            n *= 2
        at = nl + 2
        for _ in range(max(n, 0)):
            at = reply_end(buf, at, depth + 1)
            if at is None:
                return None
        return at
    raise FrameError(f"not RESP: {bytes(buf[pos:pos + 20])!r}")


def _number(buf, pos: int, nl: int) -> int:
    try:
        return int(buf[pos + 1:nl])
    except ValueError:
        raise FrameError(f"bad length: {bytes(buf[pos:nl])!r}") from None


def request(buf, pos: int = 0) -> tuple[list[bytes], int] | None:
    """(argv, end) of the whole request at `pos`: a RESP array of bulk strings, as every
    client library sends, or an inline command (`PING\\r\\n`, as typed into a raw
    socket). None when it is not all there yet; FrameError when it is not a request."""
    if buf[pos:pos + 1] != b"*":
        nl = buf.find(b"\n", pos)
        if nl < 0:
            if len(buf) - pos > MAX_INLINE:
                raise FrameError("inline command too long")
            return None
        return bytes(buf[pos:nl]).strip().split(), nl + 1
    nl = buf.find(b"\r\n", pos)
    if nl < 0:
        return None
    count = _number(buf, pos, nl)
    at, argv = nl + 2, []
    for _ in range(max(count, 0)):
        nl = buf.find(b"\r\n", at)
        if nl < 0:
            return None
        if buf[at:at + 1] != b"$":
            raise FrameError("a request's arguments are bulk strings")
        n = _number(buf, at, nl)
        if n < 0 or n > MAX_BULK:
            raise FrameError("bad bulk length")
        end = nl + 2 + n
        if len(buf) < end + 2:
            return None
        argv.append(bytes(buf[nl + 2:end]))
        at = end + 2
    return argv, at
