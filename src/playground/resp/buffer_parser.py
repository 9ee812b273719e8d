"""Whole replies parsed straight from a connection's read buffer.

Plain replies are most of what a client reads; parsing one from the buffer at once is
several times faster than the general reader's coroutine per line
(reply_reader.read_reply), which takes everything this declines: RESP3 types,
big bulk strings, anything odd (it says what is wrong).
"""

from __future__ import annotations

import enum
from typing import Final, TypeAlias

from .replies import Array, Bulk, Err, Int, Nil, Reply, Status

BULK_PIECE = 1 << 20  # a bulk string longer than this is read in pieces (by the general reader)


class More(enum.Enum):
    """parse_buffered's answer for a reply that is not all there yet (one value: MORE)."""

    MORE = "more"


MORE: Final = More.MORE
Parsed: TypeAlias = "tuple[Reply, int] | More | None"
"""(reply, end), MORE, or None: parse_buffered's answers."""


def parse_buffered(buf: bytearray, pos: int = 0, depth: int = 0) -> Parsed:
    """(reply, end) for a whole RESP2 reply (or RESP3 null) at `pos` of `buf`; MORE when
    it is not all there yet; None when it is of another type or odd in any way: the
    general reader then takes it (and says what is wrong)."""
    nl = buf.find(b"\r\n", pos)
    if depth > 8:
        return None
    if nl < 0:
        return MORE
    kind = buf[pos]
    if kind == 43:  # +
        return Status(buf[pos + 1:nl]), nl + 2
    if kind == 58:  # :
        try:
            return Int(buf[pos + 1:nl]), nl + 2
        except ValueError:
            return None
    if kind == 45:  # -
        return Err(bytes(buf[pos + 1:nl])), nl + 2
    if kind == 36:  # $
        return _bulk(buf, pos, nl)
    if kind == 42:  # *
        return _array(buf, pos, nl, depth)
    if kind == 95 and nl == pos + 1:  # _ (RESP3 null)
        return Nil, nl + 2
    return None


def _array(buf: bytearray, pos: int, nl: int, depth: int) -> Parsed:
    """(Array or Nil, end) for the array at `pos` whose length line ends at `nl`; MORE or
    None as for parse_buffered."""
    try:
        n = int(buf[pos + 1:nl])
    except ValueError:
        return None
    if n < 0:
        return Nil, nl + 2
    items: list[Reply] = []
    at, size = nl + 2, len(buf)
    for _ in range(n):
        if at >= size:
            return MORE
        if buf[at] == 36:  # $: a bulk string (most elements), without the general dispatch
            nl = buf.find(b"\r\n", at)
            done = _bulk(buf, at, nl) if nl >= 0 else MORE
        else:
            done = parse_buffered(buf, at, depth + 1)
        if done is None or done is MORE:
            return done
        item, at = done
        items.append(item)
    return Array(items), at


def _bulk(buf: bytearray, pos: int, nl: int) -> Parsed:
    """(Bulk or Nil, end) for the bulk string at `pos` whose length line ends at `nl`;
    MORE or None as for parse_buffered."""
    try:
        n = int(buf[pos + 1:nl])
    except ValueError:
        return None
    if n < 0:
        return Nil, nl + 2
    if n > BULK_PIECE:
        return None
    end = nl + 2 + n
    if len(buf) < end + 2:
        return MORE
    if buf[end:end + 2] != b"\r\n":
        return None
    return Bulk(buf[nl + 2:end]), end + 2
