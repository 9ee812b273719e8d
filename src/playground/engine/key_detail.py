"""One key in detail, read in bounded steps: never SMEMBERS or HGETALL of a key that
may hold a million members. At most DETAIL_ITEMS elements (SSCAN/HSCAN/ZRANGE/LRANGE/
XRANGE) or DETAIL_BYTES bytes (STRLEN + GETRANGE), and a note saying how much that is
("first 1,000 of 200,000 members")."""

from __future__ import annotations

from playground.engine.value_reads import SIZE, read_value
from playground.i18n import N_, tr
from playground.resp.cli_format import format_tty, repr_bytes
from playground.resp.replies import Array, Bulk, Err, Int, Reply, Status
from playground.resp.side_connection import SideConnection

DETAIL_ITEMS = 1000
DETAIL_BYTES = 64 * 1024
SCAN_ROUNDS = 50   # SSCAN/HSCAN calls at most, for a set or hash that SCAN hands out slowly

_UNIT = {"string": N_("{n} bytes"), "list": N_("{n} elements"), "set": N_("{n} members"),
         "zset": N_("{n} members"), "hash": N_("{n} fields"), "stream": N_("{n} entries")}


def _amount(t: str, n: int) -> str:
    """"200,000 members", in the interface's language."""
    return tr(_UNIT[t], n=f"{n:,}")


async def read_detail(conn: SideConnection, name: bytes, items: int = DETAIL_ITEMS,
                      nbytes: int = DETAIL_BYTES) -> dict[str, str]:
    """Everything about one key for the detail view, over `conn` (a SideConnection):
    key, type, ttl, encoding, memory, size, shown (what part of the value is shown), value."""
    type_, ttl, encoding, memory = await conn.run([
        [b"TYPE", name], [b"PTTL", name], [b"OBJECT", b"ENCODING", name], [b"MEMORY", b"USAGE", name]])
    t = bytes(type_).decode() if isinstance(type_, (Status, Bulk)) else "?"
    size: int | None = None
    value: Reply | None = None
    in_order = True
    first = read_value(t, name, items, nbytes) if t in SIZE else None
    if first is not None:
        size_reply, value = await conn.run([[SIZE[t], name], first])
        size = int(size_reply) if isinstance(size_reply, Int) else None
        if t in ("set", "hash") and isinstance(value, Array):
            value = await _scan_more(conn, first, value, items * (2 if t == "hash" else 1))
            in_order = False
    shown_count = _count(t, value)
    return {
        "key": repr_bytes(name).decode(),
        "type": t,
        "ttl": (tr("no expiry") if int(ttl) == -1 else f"{int(ttl)} ms") if isinstance(ttl, Int) else "?",
        "encoding": bytes(encoding).decode() if isinstance(encoding, Bulk) else "?",
        "memory": tr("{n} bytes", n=int(memory)) if isinstance(memory, Int) else "?",
        "size": "" if size is None else _amount(t, size),
        "shown": _shown_note(t, shown_count, size, in_order),
        "value": (format_tty(value).decode("utf-8", "replace")
                  if value is not None and not isinstance(value, Err) else ""),
    }


async def _scan_more(conn: SideConnection, command: list[bytes], reply: Array, cap: int) -> Array:
    """SSCAN/HSCAN on from the first reply until `cap` elements or the end: the elements."""
    page = _scan_page(reply)
    if page is None:  # (not a scan's reply: shown as it came)
        return reply
    cursor, out = page
    rounds = 1
    while cursor != b"0" and len(out) < cap and rounds < SCAN_ROUNDS:
        again, = await conn.run([[command[0], command[1], cursor, *command[3:]]])
        page = _scan_page(again)
        if page is None:  # (an error)
            break
        cursor, out = page[0], out + page[1]
        rounds += 1
    return Array(out[:cap])


def _scan_page(reply: object) -> tuple[bytes, list[Reply]] | None:
    """An SSCAN/HSCAN reply's cursor and elements; None for anything else (an error)."""
    if isinstance(reply, Array) and len(reply) == 2 and isinstance(reply[0], bytes) and isinstance(reply[1], Array):
        return bytes(reply[0]), list(reply[1])
    return None


def _count(t: str, value: object) -> int:
    if t == "string":
        return len(value) if isinstance(value, Bulk) else 0
    if not isinstance(value, Array):
        return 0
    return len(value) // 2 if t in ("hash", "zset") else len(value)


def _shown_note(t: str, shown: int, size: int | None, in_order: bool) -> str:
    """"all 3 members", "first 1,000 of 200,000 elements", "1,000 of 200,000 members (SSCAN)"."""
    if size is None:
        return ""
    if shown >= size:
        return tr("all {amount}", amount=_amount(t, size))
    if in_order:
        return tr("first {shown} of {amount}", shown=f"{shown:,}", amount=_amount(t, size))
    return tr("{shown} of {amount} (as SSCAN/HSCAN hands them out)", shown=f"{shown:,}", amount=_amount(t, size))
