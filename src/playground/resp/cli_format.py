"""Render typed replies exactly as `redis-cli --no-raw` prints them.

A port of redis-cli's `cliFormatReplyTTY`, `cliFormatReplyRaw` and `sdscatrepr`
(redis/redis `src/redis-cli.c`, `src/sds.c`). Output is bytes: values are bytes,
and a pane must show what redis-cli would have written to the terminal.
"""

from __future__ import annotations

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


def repr_bytes(data: bytes) -> bytes:
    """`sdscatrepr`: a double-quoted, escaped copy of `data`."""
    return b'"' + b"".join(_REPR[b] for b in data) + b'"'


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


def format_tty(reply: object, prefix: bytes = b"") -> bytes:
    """`cliFormatReplyTTY`: the human rendering, one reply, with its trailing newline."""
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
        return repr_bytes(reply) + b"\n"
    if reply is Nil:
        return b"(nil)\n"
    if isinstance(reply, Bool):
        return b"(true)\n" if reply.value else b"(false)\n"
    if isinstance(reply, (Array, Set, Push, Map)):
        if not reply:
            return _EMPTY[type(reply)]
        return _format_aggregate(reply, prefix)
    raise TypeError(f"not a reply: {reply!r}")


def _format_aggregate(reply: list, prefix: bytes) -> bytes:
    count = len(reply)  # a Map holds pairs, so this is already elements/2
    idxlen = len(str(count))
    child_prefix = prefix + b" " * (idxlen + 2)
    numsep = _NUMSEP.get(type(reply), b")")
    out = []
    for i, item in enumerate(reply):
        out.append((b"" if i == 0 else prefix) + str(i + 1).rjust(idxlen).encode() + numsep + b" ")
        if isinstance(reply, Map):
            key, value = item
            out.append(format_tty(key, child_prefix)[:-1] + b" => ")
            if _is_multiline(value):
                out.append(b"\n" + child_prefix)
            out.append(format_tty(value, child_prefix))
        else:
            out.append(format_tty(item, child_prefix))
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


def prints_raw(argv: list[bytes]) -> bool:
    """Commands whose reply redis-cli prints raw even with --no-raw (`cliSendCommand`)."""
    if not argv:
        return False
    argc = len(argv)
    cmd = argv[0].lower()
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


def render(reply: object, argv: list[bytes] | None = None) -> bytes:
    """What redis-cli --no-raw prints for `reply` to the command `argv`."""
    if argv is not None and prints_raw(argv):
        return format_raw(reply)
    return format_tty(reply)


def render_invalidate(reply: Push) -> bytes | None:
    """`cliFormatInvalidateTTY`: a RESP3 client-tracking invalidation, or None if not one."""
    if (len(reply) == 2 and isinstance(reply[0], Bulk) and reply[0].startswith(b"invalidate")
            and isinstance(reply[1], Array)):
        return b"-> invalidate: " + b", ".join(b"'" + bytes(k) + b"'" for k in reply[1]) + b"\n"
    return None
