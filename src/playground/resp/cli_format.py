"""Render typed replies exactly as `redis-cli --no-raw` prints them.

A port of redis-cli's `cliFormatReplyTTY`, `cliFormatReplyRaw` and `sdscatrepr`
(redis/redis `src/redis-cli.c`, `src/sds.c`). Output is bytes: values are bytes,
and a pane must show what redis-cli would have written to the terminal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .replies import (
    Array, BigNumber, Bool, Bulk, Double, Err, Int, Map, Nil, Push, Set, Status, Verbatim,
)

_ESCAPES = {
    0x5C: b"\\\\", 0x22: b'\\"', 0x0A: b"\\n", 0x0D: b"\\r",
    0x09: b"\\t", 0x07: b"\\a", 0x08: b"\\b",
}
# sdscatrepr: isprint() in the C locale, every other byte as \xhh (lowercase).
_REPR = [
    _ESCAPES.get(b, bytes([b]) if 0x20 <= b <= 0x7E else b"\\x%02x" % b) for b in range(256)
]
_PLAIN = bytes(b for b in range(256) if _REPR[b] == bytes([b]))   # bytes that stand for themselves
_SHORT = bytes(_ESCAPES)                                           # bytes with a two-byte escape
_NEEDS_ESCAPE = re.compile(b"[^" + b"".join(b"\\x%02x" % b for b in _PLAIN) + b"]")
# The escaping is done four output bytes per input byte: lane i holds byte i of each
# byte's escape, padded with NUL (sdscatrepr never writes a NUL), then the NULs go.
_LANES = [bytes.maketrans(bytes(range(256)), bytes((_REPR[b] + b"\0\0\0")[i] for b in range(256)))
          for i in range(4)]
_CHUNK = 1 << 20   # bytes escaped at a time: memory stays a few times the chunk, not the value


def _escape(data: bytes) -> bytes:
    """sdscatrepr without the quotes, at C speed (translate and slice assignment)."""
    if not _NEEDS_ESCAPE.search(data):
        return data
    wide = bytearray(4 * len(data))
    for i, lane in enumerate(_LANES):
        wide[i::4] = data.translate(lane)
    return bytes(wide.translate(None, b"\0"))


def _repr_parts(data: bytes, limit: int | None = None) -> list[bytes]:
    """`"` + escaped `data` + `"` in pieces; with `limit`, only the pieces that make up at
    least its first `limit` bytes."""
    parts, size, start = [b'"'], 1, 0
    while start < len(data):
        if limit is not None and size >= limit:
            return parts
        step = _CHUNK if limit is None else min(_CHUNK, max(limit - size, 4096))
        piece = _escape(data[start:start + step])
        parts.append(piece)
        size += len(piece)
        start += step
    parts.append(b'"')
    return parts


def repr_bytes(data: bytes) -> bytes:
    """`sdscatrepr`: a double-quoted, escaped copy of `data`."""
    return b"".join(_repr_parts(data))


def repr_length(data: bytes) -> int:
    """len(repr_bytes(data)) without building it."""
    n = 2 + len(data)
    for start in range(0, len(data), _CHUNK):
        special = data[start:start + _CHUNK].translate(None, _PLAIN)
        n += len(special) + 2 * len(special.translate(None, _SHORT))  # escapes: 2 or 4 bytes
    return n


def _is_multiline(reply: object) -> bool:
    """`cliIsMultilineValueTTY`: would this value take more than one line?"""
    if isinstance(reply, Map):
        if not reply:
            return False
        return len(reply) > 1 or _is_multiline(reply[0][1])
    if isinstance(reply, (Array, Set, Push)):
        if not reply:
            return False
        return len(reply) > 1 or _is_multiline(reply[0])
    return False


_EMPTY = {Array: b"(empty array)\n", Map: b"(empty hash)\n", Set: b"(empty set)\n",
          Push: b"(empty push)\n"}
_NUMSEP = {Set: b"~", Map: b"#"}


def format_tty(reply: object, prefix: bytes = b"", limit: int | None = None) -> bytes:
    """`cliFormatReplyTTY`: the human rendering, one reply, with its trailing newline.

    With `limit`, rendering may stop early: the result is then a prefix of the full
    rendering at least `limit` bytes long (or all of it, if shorter).

    Args:
        reply: the reply (resp/replies.py's types).
        prefix: what starts each line after the first (the indent of a nested reply).
        limit: the bytes wanted at least, or None for the whole rendering.
    """
    if type(reply) is Bulk and len(reply) <= _CHUNK:  # (the usual replies first, at once)
        return b'"' + _escape(reply) + b'"\n'
    if type(reply) is Int:
        return b"(integer) %d\n" % reply
    if isinstance(reply, (Array, Set, Push, Map)):
        if not reply:
            return _EMPTY[type(reply)]
        return _format_aggregate(reply, prefix, limit)
    return _format_single(reply, limit)


def _format_single(reply: object, limit: int | None) -> bytes:
    """format_tty of a reply that is no aggregate."""
    if isinstance(reply, Err):
        return b"(error) " + _c_string(reply.message) + b"\n"
    if isinstance(reply, Status):
        return _c_string(bytes(reply)) + b"\n"
    if isinstance(reply, Int):
        return b"(integer) %d\n" % reply
    if isinstance(reply, Double):
        return b"(double) " + reply.raw + b"\n"
    if isinstance(reply, BigNumber):
        # redis-cli 7.0 exits on this type; newer ones print it like this.
        return b"(big number) " + reply.raw + b"\n"
    if isinstance(reply, Verbatim):
        return bytes(reply) + b"\n"
    if isinstance(reply, Bulk):
        if len(reply) <= _CHUNK:
            return b'"' + _escape(reply) + b'"\n'
        parts = _repr_parts(reply, limit)
        if parts[-1] == b'"' and len(parts) > 1:
            parts[-1] = b'"\n'  # complete: one join, no copy to add the newline
        return b"".join(parts)
    if reply is Nil:
        return b"(nil)\n"
    if isinstance(reply, Bool):
        return b"(true)\n" if reply.value else b"(false)\n"
    raise TypeError(f"not a reply: {reply!r}")


def _format_aggregate(reply: list[Any], prefix: bytes, limit: int | None) -> bytes:
    # (an aggregate: its replies, or a Map's (key, value) pairs)
    count = len(reply)  # a Map holds pairs, so this is already elements/2
    idxlen = len(str(count))
    child_prefix = prefix + b" " * (idxlen + 2)
    kind = type(reply)
    numsep = _NUMSEP.get(kind, b")")
    if limit is None and kind is Array and all(type(x) is Bulk for x in reply):
        joined = b"".join(reply)  # plain strings, nothing to escape (LRANGE, SMEMBERS, ...): at once
        if len(joined) <= _CHUNK and not _NEEDS_ESCAPE.search(joined):
            lines = [b'%*d) "%b"\n' % (idxlen, i, x) for i, x in enumerate(reply, 1)]
            if prefix:
                return lines[0] + b"".join([prefix + line for line in lines[1:]])
            return b"".join(lines)
    out = []
    if limit is None:
        is_map = isinstance(reply, Map)
        for i, item in enumerate(reply):
            out.append((b"" if i == 0 else prefix) + b"%*d%b " % (idxlen, i + 1, numsep))
            if is_map:
                key, item = item
                out.append(format_tty(key, child_prefix)[:-1] + b" => ")
                if _is_multiline(item):
                    out.append(b"\n" + child_prefix)
            out.append(format_tty(item, child_prefix))
        return b"".join(out)
    size = 0
    for i, item in enumerate(reply):  # the same, stopping once `limit` bytes are there
        head = (b"" if i == 0 else prefix) + str(i + 1).rjust(idxlen).encode() + numsep + b" "
        out.append(head)
        size += len(head)
        if isinstance(reply, Map):
            key, value = item
            # the key without its newline: rendered one byte further, and that byte cut
            shown = format_tty(key, child_prefix, limit - size + 1)[:-1]
            out.append(shown)
            size += len(shown)
            if size >= limit:  # (maybe a cut key: nothing may follow it)
                break
            out.append(b" => " + (b"\n" + child_prefix if _is_multiline(value) else b""))
            size += len(out[-1])
            item = value
        if size < limit:
            out.append(format_tty(item, child_prefix, limit - size))
            size += len(out[-1])
        if size >= limit:
            break
    return b"".join(out)


def format_raw(reply: object) -> bytes:
    """`cliFormatReplyRaw`: what redis-cli prints for INFO, CLIENT LIST and friends."""
    if reply is Nil:
        return b""
    if isinstance(reply, Err):
        return reply.message + b"\n"
    if isinstance(reply, (Status, Bulk, Verbatim)):
        return bytes(reply)
    if isinstance(reply, Bool):
        return b"(true)" if reply.value else b"(false)"
    if isinstance(reply, Int):
        return b"%d" % reply
    if isinstance(reply, (Double, BigNumber)):
        return reply.raw
    if isinstance(reply, Map):
        return b"\n".join(format_raw(k) + b" " + format_raw(v) for k, v in reply)
    if isinstance(reply, (Array, Set, Push)):
        return b"\n".join(format_raw(x) for x in reply)
    raise TypeError(f"not a reply: {reply!r}")


def _c_string(data: bytes) -> bytes:
    """redis-cli prints status and error text with %s: it stops at a NUL byte."""
    cut = data.find(b"\0")
    return data if cut < 0 else data[:cut]


_RAW_WORDS = frozenset((b"info", b"lolwut", b"debug", b"memory", b"cluster", b"client", b"latency", b"proxy"))


def prints_raw(argv: Sequence[bytes]) -> bool:
    """Commands whose reply redis-cli prints raw even with --no-raw (`cliSendCommand`)."""
    if not argv:
        return False
    cmd = argv[0].lower()
    if cmd not in _RAW_WORDS:
        return False
    argc = len(argv)
    sub = argv[1].lower() if argc >= 2 else b""
    return (
        cmd in (b"info", b"lolwut")
        or (argc >= 2 and cmd == b"debug" and sub in (b"htstats", b"htstats-key", b"client-eviction"))
        or (argc >= 2 and cmd == b"memory" and sub in (b"malloc-stats", b"doctor"))
        or (argc == 2 and cmd == b"cluster" and sub in (b"nodes", b"info"))
        or (argc >= 2 and cmd == b"client" and sub in (b"list", b"info"))
        or (argc == 3 and cmd == b"latency" and sub == b"graph")
        or (argc == 2 and cmd == b"latency" and sub == b"doctor")
        or (argc >= 2 and cmd == b"proxy" and sub == b"info")
    )


def render(reply: object, argv: Sequence[bytes] | None = None) -> bytes:
    """What redis-cli --no-raw prints for `reply` to the command `argv`."""
    if argv is not None and prints_raw(argv):
        return format_raw(reply)
    return format_tty(reply)


def render_chunks(reply: object, argv: Sequence[bytes] | None = None) -> Iterator[bytes]:
    """`render(reply, argv)` in pieces of about a MiB (a generator): a 50 MB value is
    written as it is escaped, never held rendered in one piece."""
    if argv is not None and prints_raw(argv):
        yield format_raw(reply)
    elif isinstance(reply, Bulk) and len(reply) > _CHUNK:
        yield from _lazy_repr(reply)
        yield b"\n"
    elif isinstance(reply, (Array, Set, Push, Map)) and reply:
        yield from _aggregate_chunks(reply, b"")
    else:
        yield format_tty(reply)


def _aggregate_chunks(reply: list[Any], prefix: bytes) -> Iterator[bytes]:
    # (an aggregate: its replies, or a Map's (key, value) pairs)
    idxlen = len(str(len(reply)))
    child_prefix = prefix + b" " * (idxlen + 2)
    numsep = _NUMSEP.get(type(reply), b")")
    batch, size = [], 0
    for i, item in enumerate(reply):
        batch.append((b"" if i == 0 else prefix) + str(i + 1).rjust(idxlen).encode() + numsep + b" ")
        if isinstance(reply, Map):
            key, item = item
            batch.append(format_tty(key, child_prefix)[:-1] + b" => ")
            if _is_multiline(item):
                batch.append(b"\n" + child_prefix)
        if isinstance(item, Bulk) and len(item) > _CHUNK:
            yield b"".join(batch)
            batch, size = [], 0
            for piece in _lazy_repr(item):
                yield piece
            yield b"\n"
            continue
        if isinstance(item, (Array, Set, Push, Map)) and len(item) > 1024:
            yield b"".join(batch)
            batch, size = [], 0
            yield from _aggregate_chunks(item, child_prefix)
            continue
        text = format_tty(item, child_prefix)
        batch.append(text)
        size += len(text)
        if size >= _CHUNK:
            yield b"".join(batch)
            batch, size = [], 0
    if batch:
        yield b"".join(batch)


def _lazy_repr(data: bytes) -> Iterator[bytes]:
    """`"` + escaped `data` + `"`, one escaped MiB at a time."""
    yield b'"'
    view = memoryview(data)
    for start in range(0, len(data), _CHUNK):
        yield _escape(bytes(view[start:start + _CHUNK]))
    yield b'"'


def render_head(reply: object, argv: Sequence[bytes] | None, limit: int) -> tuple[bytes, int]:
    """The first `limit` bytes of `render(reply, argv)`, and how many bytes of it were left
    out (0 when it all fits): work and memory in proportion to `limit` for a big string,
    so a pane can show the start of a 50 MB value at once."""
    if argv is not None and prints_raw(argv):
        full = format_raw(reply)
        return full[:limit], max(0, len(full) - limit)
    head = format_tty(reply, b"", limit)
    if len(head) < limit:  # shorter than asked: all of it
        return head, 0
    return head[:limit], tty_length(reply) - limit


def tty_length(reply: object, prefix_len: int = 0) -> int:
    """len(format_tty(reply, prefix)) for a prefix of `prefix_len` bytes, without
    building the text (a big string is counted, not escaped)."""
    if isinstance(reply, Bulk):
        return repr_length(reply) + 1
    if not isinstance(reply, (Array, Set, Push, Map)) or not reply:
        return len(format_tty(reply))
    items: list[Any] = reply  # (its replies, or a Map's (key, value) pairs)
    idxlen = len(str(len(reply)))
    child = prefix_len + idxlen + 2
    n = (len(reply) - 1) * prefix_len + len(reply) * (idxlen + 2)
    for item in items:
        if isinstance(reply, Map):
            key, value = item
            n += tty_length(key, child) - 1 + 4 + (1 + child if _is_multiline(value) else 0)
            item = value
        n += tty_length(item, child)
    return n


def render_invalidate(reply: Push) -> bytes | None:
    """`cliFormatInvalidateTTY`: a RESP3 client-tracking invalidation, or None if not one."""
    if not (len(reply) == 2 and isinstance(reply[0], Bulk) and reply[0].startswith(b"invalidate")
            and isinstance(reply[1], Array)):
        return None
    keys = [k for k in reply[1] if isinstance(k, bytes)]
    if len(keys) != len(reply[1]):
        return None
    # sdscatfmt's %s: a key is cut at its first NUL byte, as redis-cli prints it
    return b"-> invalidate: " + b", ".join(b"'" + _c_string(bytes(k)) + b"'" for k in keys) + b"\n"


_LDB_CODES = {"red": 31, "green": 32, "yellow": 33, "magenta": 35, "cyan": 36, "white": 37, "bold": 37}


def render_ldb(reply: object) -> bytes:
    """What redis-cli prints for a reply of its Lua debugger (`cliFormatReplyRaw` in
    debugging mode, then its command delimiter): one log line each, coloured as
    `sdsCatColorizedLdbReply` does when TERM names an xterm; `<endsession>` prints
    nothing (its line break stays)."""
    return _ldb_raw(reply, "xterm" in os.environ.get("TERM", "")) + b"\n"


def _ldb_raw(reply: object, colour: bool) -> bytes:
    if isinstance(reply, Status):
        if reply.startswith(b"<endsession>"):
            return b""
        return _ldb_colour(bytes(reply), colour)
    if isinstance(reply, (Array, Set, Push)):
        return b"\n".join(_ldb_raw(x, colour) for x in reply)
    if isinstance(reply, Map):
        return b"\n".join(_ldb_raw(k, colour) + b" " + _ldb_raw(v, colour) for k, v in reply)
    return format_raw(reply)


def _ldb_colour(line: bytes, colour: bool) -> bytes:
    if not colour:
        return line
    text = _c_string(line)  # strstr() stops at a NUL
    name = "white"
    for mark, this in ((b"<debug>", "bold"), (b"<redis>", "green"), (b"<reply>", "cyan"),
                       (b"<error>", "red"), (b"<hint>", "bold"), (b"<value>", "magenta"),
                       (b"<retval>", "magenta")):
        if mark in text:
            name = this
    if len(line) > 4 and line[3:4].isdigit():
        if line[1:2] == b">":
            name = "yellow"   # the current line
        elif line[2:3] == b"#":
            name = "bold"     # a breakpoint
    return b"\x1b[%d;%d;49m" % (name == "bold", _LDB_CODES[name]) + line + b"\x1b[0m"
