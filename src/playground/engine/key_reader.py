"""What the key inspector shows: every key with its type, TTL and a one-line preview.

It reads over a connection of its own, sends no writes and no WATCH, and does bounded
work per refresh: SCAN with a budget, a cap on keys shown, and previews that read only
the first few elements or bytes of a value, all pipelined (three round trips in all).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from playground.engine.key_detail import read_detail
from playground.resp.connection import Address, SideConnection
from playground.resp.cli_format import repr_bytes
from playground.resp.replies import Bulk, Err, Int, Status

INSPECTOR_NAME = "playground-inspector"

# Read-only (run with EVAL_RO): SCAN once, sort, and for the first `cap` keys return
# {name, type, pttl, size, first elements or bytes}. Only reads; never a WATCH.
SNAPSHOT_SCRIPT = b"""
local pattern, count, cap = ARGV[1], ARGV[2], tonumber(ARGV[3])
local nitems, nbytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local scan = redis.call('SCAN', '0', 'MATCH', pattern, 'COUNT', count)
local names = scan[2]
table.sort(names)
local out = {scan[1], redis.call('DBSIZE'), #names}
for i = 1, math.min(#names, cap) do
  local k = names[i]
  local t = redis.call('TYPE', k)['ok']
  local size, body = 0, {}
  if t == 'string' then size = redis.call('STRLEN', k); body = redis.call('GETRANGE', k, 0, nbytes - 1)
  elseif t == 'list' then size = redis.call('LLEN', k); body = redis.call('LRANGE', k, 0, nitems - 1)
  elseif t == 'set' then size = redis.call('SCARD', k); body = redis.call('SSCAN', k, '0', 'COUNT', nitems)[2]
  elseif t == 'zset' then size = redis.call('ZCARD', k); body = redis.call('ZRANGE', k, 0, nitems - 1, 'WITHSCORES')
  elseif t == 'hash' then size = redis.call('HLEN', k); body = redis.call('HSCAN', k, '0', 'COUNT', nitems)[2]
  elseif t == 'stream' then size = redis.call('XLEN', k); body = redis.call('XREVRANGE', k, '+', '-', 'COUNT', 1)
  end
  out[#out + 1] = {k, t, redis.call('PTTL', k), size, body}
end
return out
"""
SNAPSHOT_SHA = hashlib.sha1(SNAPSHOT_SCRIPT).hexdigest()
PREVIEW_ITEMS = 5
PREVIEW_BYTES = 64


@dataclass(frozen=True)
class KeyInfo:
    """One key as the inspector shows it."""

    name: bytes
    type: str
    pttl: int            # ms; -1 no expiry, -2 gone
    size: int | None     # length / cardinality, when cheap to know
    preview: str
    read_at: float       # time.monotonic() of the read, for a local TTL countdown

    def ttl_left(self, now: float | None = None) -> float | None:
        """Seconds left, counting down locally from the read; None when it never expires."""
        if self.pttl < 0:
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, self.pttl / 1000 - (now - self.read_at))


@dataclass(frozen=True)
class Snapshot:
    keys: list[KeyInfo]
    more: int            # keys beyond the cap (0 if none, -1 if the scan was cut short)
    total: int           # DBSIZE


class Inspector(SideConnection):
    """Reads keys for the inspector over its own connection."""

    def __init__(self, address: Address, cap: int = 100, scan_budget: int = 300) -> None:
        # CLIENT NO-TOUCH (7.2+): reading keys leaves their LRU/LFU data alone.
        super().__init__(address, INSPECTOR_NAME, hello=[[b"CLIENT", b"NO-TOUCH", b"ON"]])
        self.cap = cap
        self.scan_budget = scan_budget
        self._script_ok: bool | None = None  # None: not tried yet

    async def snapshot(self, pattern: bytes = b"*") -> Snapshot:
        """Keys matching `pattern` (at most `cap`), sorted by name: one round trip.

        A read-only script (EVALSHA_RO) does the SCAN, TYPE, PTTL and previews on the
        server; servers without EVAL_RO (before 7.0) get the same reads pipelined.
        """
        args = [pattern, str(self.scan_budget).encode(), str(self.cap).encode(),
                str(PREVIEW_ITEMS).encode(), str(PREVIEW_BYTES).encode()]
        if self._script_ok is not False:
            reply, = await self.run([[b"EVALSHA_RO", SNAPSHOT_SHA.encode(), b"0", *args]])
            if isinstance(reply, Err) and reply.code == "NOSCRIPT":
                reply, = await self.run([[b"EVAL_RO", SNAPSHOT_SCRIPT, b"0", *args]])
            if isinstance(reply, Err) and reply.code in ("BUSY", "LOADING"):
                raise RuntimeError(reply.message.decode(errors="replace"))
            if not isinstance(reply, Err):
                self._script_ok = True
                return self._from_script(reply)
            self._script_ok = False  # no EVAL_RO here: the pipelined way from now on
        return await self._pipelined(pattern)

    def _from_script(self, reply) -> Snapshot:
        cursor, dbsize, scanned, *rows = reply
        now = time.monotonic()
        keys = []
        for name, type_, ttl, size, body in rows:
            t = bytes(type_).decode()
            n, preview = _preview(t, int(size), body)
            keys.append(KeyInfo(bytes(name), t, int(ttl), n, preview, now))
        complete = bytes(cursor) == b"0"
        more = max(int(scanned) - self.cap, 0) if complete else -1
        return Snapshot(keys, more, int(dbsize))

    async def _pipelined(self, pattern: bytes) -> Snapshot:
        # One SCAN per refresh: a small keyspace is seen whole, a big one costs the same.
        reply, dbsize = await self.run([
            [b"SCAN", b"0", b"MATCH", pattern, b"COUNT", str(self.scan_budget).encode()], [b"DBSIZE"]])
        if isinstance(reply, Err):
            raise RuntimeError(reply.message.decode(errors="replace"))
        cursor = bytes(reply[0])
        names = sorted({bytes(k) for k in reply[1]})
        more = max(len(names) - self.cap, 0) if cursor == b"0" else -1
        names = names[: self.cap]
        if not names:
            return Snapshot([], more, int(dbsize) if isinstance(dbsize, Int) else 0)
        meta = await self.run([c for n in names for c in ([b"TYPE", n], [b"PTTL", n])])
        types = [bytes(t).decode() if isinstance(t, (Status, Bulk)) else "?" for t in meta[0::2]]
        ttls = [int(t) if isinstance(t, Int) else -2 for t in meta[1::2]]
        preview_cmds = [_preview_commands(n, t) for n, t in zip(names, types)]
        flat = [c for cmds in preview_cmds for c in cmds]
        replies = await self.run(flat) if flat else []
        now = time.monotonic()
        keys, i = [], 0
        for name, type_, ttl, cmds in zip(names, types, ttls, preview_cmds):
            part = replies[i:i + len(cmds)]
            i += len(cmds)
            if len(part) == 2 and not any(isinstance(r, Err) for r in part):
                body = part[1]
                if type_ in ("set", "hash"):
                    body = body[1]  # SSCAN / HSCAN: [cursor, items]
                size, preview = _preview(type_, int(part[0]), body)
            else:
                size, preview = None, ""
            keys.append(KeyInfo(name, type_, ttl, size, preview, now))
        return Snapshot(keys, more, int(dbsize) if isinstance(dbsize, Int) else len(keys))

    async def detail(self, name: bytes) -> dict[str, str]:
        """Everything about one key for the detail view, the value read in bounded steps
        (`playground.engine.key_detail`)."""
        return await read_detail(self, name)


def _preview_commands(name: bytes, type_: str) -> list[list[bytes]]:
    n = str(PREVIEW_ITEMS - 1).encode()
    return {
        "string": [[b"STRLEN", name], [b"GETRANGE", name, b"0", str(PREVIEW_BYTES - 1).encode()]],
        "list": [[b"LLEN", name], [b"LRANGE", name, b"0", n]],
        "set": [[b"SCARD", name], [b"SSCAN", name, b"0", b"COUNT", n]],
        "zset": [[b"ZCARD", name], [b"ZRANGE", name, b"0", n, b"WITHSCORES"]],
        "hash": [[b"HLEN", name], [b"HSCAN", name, b"0", b"COUNT", n]],
        "stream": [[b"XLEN", name], [b"XREVRANGE", name, b"+", b"-", b"COUNT", b"1"]],
    }.get(type_, [])


def _short(value: bytes) -> str:
    return repr_bytes(value[:PREVIEW_BYTES]).decode()


def _preview(type_: str, size: int | None, body) -> tuple[int | None, str]:
    """A one-line preview from the size and the first elements (or bytes) of a value."""
    if type_ == "string":
        text = _short(bytes(body))
        return size, text + ("…" if size is not None and size > PREVIEW_BYTES else "")
    if type_ == "stream":
        if not body:
            return size, "(empty)"
        entry = body[0]
        fields = " ".join(_short(bytes(x)) for x in entry[1])
        return size, f"last {bytes(entry[0]).decode()}: {fields}"
    if not isinstance(body, list):
        return size, ""
    items = [bytes(x) for x in body]
    if type_ in ("hash", "zset"):
        pairs = [f"{_short(items[i])}: {_short(items[i + 1])}" for i in range(0, len(items) - 1, 2)]
        shown = pairs[:PREVIEW_ITEMS]
    else:
        shown = [_short(x) for x in items[:PREVIEW_ITEMS]]
    more = size is not None and size > len(shown)
    open_, close = ("{", "}") if type_ == "hash" else ("[", "]")
    return size, open_ + ", ".join(shown) + (", …" if more else "") + close
