"""What the key inspector shows: keys with their type, TTL and a one-line preview.

It reads over a connection of its own, sends no writes and no WATCH, and does bounded
work per refresh: a few SCAN rounds, a cap on keys shown, and previews that read only the
first few elements or bytes of a value, in one round trip (a read-only script) on the
private server; on a --url server pipelined without a script, so nothing of the
inspector's is left in the user's script cache.

A big keyspace is not read in one refresh: the SCAN cursor goes on from one refresh to
the next, so a filter finds an existing key among 200,000 after a few refreshes, and the
snapshot says what it holds: every match, the first by name of a finished pass, or a
sample (SCAN stopped once it had `cap` keys). Pinned keys (those the clients wrote) are
read on every refresh whatever SCAN has reached.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from playground.engine.key_detail import read_detail
from playground.resp.address import Address
from playground.resp.side_connection import SideConnection
from playground.resp.cli_format import repr_bytes
from playground.resp.replies import Array, Bulk, Err, Int, Status

if TYPE_CHECKING:
    from playground.engine.catalogue import Catalogue

INSPECTOR_NAME = "playground-inspector"

# Read-only (run with EVAL_RO). ARGV: pattern, cursor, COUNT, rounds, want, preview items,
# preview bytes, then names to read whatever the SCAN finds. SCAN on from `cursor` for at
# most `rounds` rounds or until `want` matches; returns {cursor, DBSIZE, rounds done,
# matches found, {the first `want` matches by name}, rows...}: a row {name, type, pttl,
# size, first elements or bytes} for each given name that exists and for those matches.
SNAPSHOT_SCRIPT = b"""
local pattern, cursor, count = ARGV[1], ARGV[2], ARGV[3]
local rounds, want = tonumber(ARGV[4]), tonumber(ARGV[5])
local nitems, nbytes = tonumber(ARGV[6]), tonumber(ARGV[7])
local seen, found, done = {}, {}, 0
while done < rounds and #found < want do
  local scan = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', count)
  cursor, done = scan[1], done + 1
  for _, k in ipairs(scan[2]) do
    if not seen[k] then seen[k] = true; found[#found + 1] = k end
  end
  if cursor == '0' then break end
end
table.sort(found)
local first = {}
for i = 1, math.min(#found, want) do first[i] = found[i] end
local out = {cursor, redis.call('DBSIZE'), done, #found, first}
local read = {}
local function row(k)
  if read[k] then return end
  read[k] = true
  local t = redis.call('TYPE', k)['ok']
  local size, body = 0, {}
  if t == 'none' then return
  elseif t == 'string' then size = redis.call('STRLEN', k); body = redis.call('GETRANGE', k, 0, nbytes - 1)
  elseif t == 'list' then size = redis.call('LLEN', k); body = redis.call('LRANGE', k, 0, nitems - 1)
  elseif t == 'set' then size = redis.call('SCARD', k); body = redis.call('SSCAN', k, '0', 'COUNT', nitems)[2]
  elseif t == 'zset' then size = redis.call('ZCARD', k); body = redis.call('ZRANGE', k, 0, nitems - 1, 'WITHSCORES')
  elseif t == 'hash' then size = redis.call('HLEN', k); body = redis.call('HSCAN', k, '0', 'COUNT', nitems)[2]
  elseif t == 'stream' then size = redis.call('XLEN', k); body = redis.call('XREVRANGE', k, '+', '-', 'COUNT', 1)
  end
  out[#out + 1] = {k, t, redis.call('PTTL', k), size, body}
end
for i = 8, #ARGV do row(ARGV[i]) end
for i = 1, #first do row(first[i]) end
return out
"""
SNAPSHOT_SHA = hashlib.sha1(SNAPSHOT_SCRIPT).hexdigest()
PREVIEW_ITEMS = 5
PREVIEW_BYTES = 64
SCAN_COUNT = 1000   # COUNT of one SCAN round
SCAN_ROUNDS = 20    # SCAN rounds per refresh at most: ~20,000 keys looked at, a few ms


@dataclass(frozen=True)
class KeyInfo:
    """One key as the inspector shows it."""

    name: bytes
    type: str
    pttl: int            # ms; -1 no expiry, -2 gone
    size: int | None     # length / cardinality, when cheap to know
    preview: str
    read_at: float       # time.monotonic() of the read, for a local TTL countdown

    @property
    def expires(self) -> bool:
        """Has the key a time to live (its countdown is shown)?"""
        return self.pttl >= 0

    def ttl_left(self, now: float | None = None) -> float | None:
        """Seconds left, counting down locally from the read; None when it never expires."""
        if not self.expires:
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, self.pttl / 1000 - (now - self.read_at))


@dataclass(frozen=True)
class Snapshot:
    """What one refresh read. `keys` are sorted by name, pinned keys among them."""

    keys: list[KeyInfo]
    more: int                  # matches beyond those shown (0 if none, -1 if not known)
    total: int                 # DBSIZE
    complete: bool = True      # a SCAN pass ended: `keys` are all matches, or the first by name
    progress: float | None = None  # a pass is under way, below `cap` keys: how far (0..1, estimated)
    read_again: bool = False   # the first pass for this pattern: read again soon to finish it


@dataclass
class _Sweep:
    """Where the SCAN for one pattern is, from one refresh to the next."""

    pattern: bytes
    cursor: bytes = b"0"
    names: list[bytes] = field(default_factory=list)   # this pass's matches (at most cap)
    matched: int = 0                                    # how many this pass found in all
    examined: int = 0                                   # SCAN COUNT asked for in this pass
    last: list[bytes] | None = None                     # the last finished pass's matches
    last_matched: int = 0


_Read: TypeAlias = "tuple[bytes, int, int, int, list[bytes], dict[bytes, KeyInfo]]"
"""(cursor, DBSIZE, SCAN rounds, matches found, the first of them by name, {name: row})."""


def _scan_page(reply: object) -> tuple[bytes, list[bytes]] | None:
    """SCAN's reply as (cursor, keys); None for anything else."""
    if (isinstance(reply, Array) and len(reply) == 2 and isinstance(reply[0], bytes)
            and isinstance(reply[1], Array) and all(isinstance(k, bytes) for k in reply[1])):
        return bytes(reply[0]), [bytes(k) for k in reply[1] if isinstance(k, bytes)]
    return None


class Inspector(SideConnection):
    """Reads keys for the inspector over its own connection."""

    catalogue: Catalogue | None = None
    """A catalogue of its own, asked over this connection and needed to route its reads
    (a cluster's: engine/cluster_reader.py), which the playground then asks too; None:
    the playground's catalogue asks through `run`."""

    def __init__(self, address: Address, cap: int = 100, scan_count: int = SCAN_COUNT,
                 scan_rounds: int = SCAN_ROUNDS, scripts: bool = True) -> None:
        """`scripts`: read in one round trip with a read-only script (the private server);
        False on a server of the user's (--url), whose script cache it would be left in:
        SCAN and the previews pipelined instead."""
        # CLIENT NO-TOUCH (7.2+): reading keys leaves their LRU/LFU data alone.
        super().__init__(address, INSPECTOR_NAME, hello=[[b"CLIENT", b"NO-TOUCH", b"ON"]])
        self.cap = cap
        self.scan_count = scan_count
        self.scan_rounds = scan_rounds
        self._script_ok: bool | None = None if scripts else False  # None: not tried yet
        self._sweep = _Sweep(b"*")
        self.no_scripts: Callable[[], bool] = lambda: False
        """True while the read must not run a script: Valkey 9's Lua debugger loses its
        source lines when another client runs one between SCRIPT DEBUG and the EVAL."""

    async def snapshot(self, pattern: bytes = b"*", pinned: list[bytes] | tuple[bytes, ...] = ()) -> Snapshot:
        """Keys matching `pattern`, sorted by name: one round trip.

        `pinned` keys (say, those the clients wrote; the first `cap` of them) are read
        every time and shown when they exist and match, whatever the SCAN has reached;
        the SCAN adds keys up to `cap`. A pass over a big keyspace goes on at the next
        call with the same pattern (`Snapshot.progress` says how far)."""
        sweep = self._sweep
        if sweep.pattern != pattern:
            sweep = self._sweep = _Sweep(pattern)
        if sweep.cursor == b"0":  # a new pass
            sweep.names, sweep.matched, sweep.examined = [], 0, 0
        pins = list(dict.fromkeys(k for k in pinned if glob_match(pattern, k)))[: self.cap]
        given = list(dict.fromkeys(pins + sorted(set(sweep.names) | set(sweep.last or ()))))
        want = max(0, self.cap - len(sweep.names))
        cursor, dbsize, rounds, matched, first, rows = await self._read(pattern, sweep.cursor, want, given)
        gone = {name for name in given if name not in rows}
        sweep.names = sorted({n for n in sweep.names if n not in gone} | {n for n in first if n in rows})[: self.cap]
        sweep.matched += matched
        sweep.examined += rounds * self.scan_count
        sweep.cursor = cursor
        first_pass = sweep.last is None
        if cursor == b"0":
            sweep.last, sweep.last_matched = list(sweep.names), sweep.matched
        elif sweep.last is not None:
            sweep.last = [n for n in sweep.last if n not in gone]
        pinned_set = {n for n in pins if n in rows}
        listed = (set(sweep.last or ()) | set(sweep.names)) - pinned_set
        shown = pinned_set | set(sorted(listed)[: max(0, self.cap - len(pinned_set))])
        keys = sorted((rows[n] for n in shown if n in rows), key=lambda k: k.name)
        if cursor == b"0":  # the pass ended: every match, or the first `cap` by name
            return Snapshot(keys, max(0, sweep.last_matched - len(keys)), dbsize)
        if len(sweep.names) >= self.cap:  # SCAN stopped at `cap` keys: a sample
            return Snapshot(keys, -1, dbsize, complete=False)
        progress = min(0.99, sweep.examined / max(dbsize, 1))
        return Snapshot(keys, -1, dbsize, complete=False, progress=progress, read_again=first_pass)

    async def _read(self, pattern: bytes, cursor: bytes, want: int, given: list[bytes]) -> _Read:
        """(cursor, DBSIZE, SCAN rounds, matches found, the first `want` of them by name,
        {name: KeyInfo} for those and the given names that exist)."""
        args = [pattern, cursor, str(self.scan_count).encode(), str(self.scan_rounds).encode(),
                str(want).encode(), str(PREVIEW_ITEMS).encode(), str(PREVIEW_BYTES).encode(), *given]
        if self._script_ok is not False and not self.no_scripts():
            reply, = await self.run([[b"EVALSHA_RO", SNAPSHOT_SHA.encode(), b"0", *args]])
            if isinstance(reply, Err) and reply.code == "NOSCRIPT":
                reply, = await self.run([[b"EVAL_RO", SNAPSHOT_SCRIPT, b"0", *args]])
            if isinstance(reply, Err) and reply.code in ("BUSY", "LOADING"):
                raise RuntimeError(reply.message.decode(errors="replace"))
            if not isinstance(reply, Err):
                self._script_ok = True
                return self._from_script(reply)
            self._script_ok = False  # no EVAL_RO here: the pipelined way from now on
        return await self._pipelined(pattern, cursor, want, given)

    def _from_script(self, reply: Any) -> _Read:
        # (the snapshot script's own reply: its shape is the script's, SNAPSHOT_SCRIPT)
        cursor, dbsize, rounds, matched, first, *raw = reply
        now = time.monotonic()
        rows = {}
        for name, type_, ttl, size, body in raw:
            t = bytes(type_).decode()
            n, preview = _preview(t, int(size), body)
            rows[bytes(name)] = KeyInfo(bytes(name), t, int(ttl), n, preview, now)
        return bytes(cursor), int(dbsize), int(rounds), int(matched), [bytes(n) for n in first], rows

    async def _pipelined(self, pattern: bytes, cursor: bytes, want: int, given: list[bytes]) -> _Read:
        """The script's reads for servers without EVAL_RO (before 7.0): SCAN rounds,
        then TYPE/PTTL and the previews pipelined."""
        seen: set[bytes] = set()
        found: list[bytes] = []
        rounds = 0
        dbsize = 0
        while rounds < self.scan_rounds and len(found) < want:
            reply, size = await self.run([
                [b"SCAN", cursor, b"MATCH", pattern, b"COUNT", str(self.scan_count).encode()], [b"DBSIZE"]])
            if isinstance(reply, Err):
                raise RuntimeError(reply.message.decode(errors="replace"))
            page = _scan_page(reply)
            if page is None:
                raise RuntimeError(f"SCAN: {reply!r}")
            cursor, rounds, dbsize = page[0], rounds + 1, int(size) if isinstance(size, Int) else 0
            for k in page[1]:
                if k not in seen:
                    seen.add(k)
                    found.append(k)
            if cursor == b"0":
                break
        if not rounds:
            size, = await self.run([[b"DBSIZE"]])
            dbsize = int(size) if isinstance(size, Int) else 0
        first = sorted(found)[:want]
        rows = await self.rows(list(dict.fromkeys(given + first)))
        return cursor, dbsize, rounds, len(found), first, rows

    async def rows(self, names: list[bytes]) -> dict[bytes, KeyInfo]:
        """Each of `names` that exists as a row of the inspector (type, TTL, size and
        preview), read without SCAN: TYPE/PTTL, then the previews, pipelined (a cluster's
        reader sends each to its key's node).

        Args:
            names: the keys to read; those that do not exist are left out.
        """
        rows: dict[bytes, KeyInfo] = {}
        if not names:
            return rows
        meta = await self.run([c for n in names for c in ([b"TYPE", n], [b"PTTL", n])])
        types = [bytes(t).decode() if isinstance(t, (Status, Bulk)) else "?" for t in meta[0::2]]
        ttls = [int(t) if isinstance(t, Int) else -2 for t in meta[1::2]]
        preview_cmds = [_preview_commands(n, t) for n, t in zip(names, types, strict=True)]  # (a type per name)
        flat = [c for cmds in preview_cmds for c in cmds]
        replies = await self.run(flat) if flat else []
        now, i = time.monotonic(), 0
        for name, type_, ttl, cmds in zip(names, types, ttls, preview_cmds, strict=True):
            part = replies[i:i + len(cmds)]
            i += len(cmds)
            if type_ == "none":
                continue
            if len(part) == 2 and isinstance(part[0], Int) and not isinstance(part[1], Err):
                body: Any = part[1]  # (each type's own reply: _preview reads it)
                if type_ in ("set", "hash"):
                    body = body[1]  # SSCAN / HSCAN: [cursor, items]
                size, preview = _preview(type_, int(part[0]), body)
            else:
                size, preview = None, ""
            rows[name] = KeyInfo(name, type_, ttl, size, preview, now)
        return rows

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


def _preview(type_: str, size: int | None, body: Any) -> tuple[int | None, str]:
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


def glob_match(pattern: bytes, name: bytes) -> bool:
    """Does `name` match the SCAN MATCH `pattern` (Redis's stringmatchlen: * ? [abc]
    [^a-z] and backslash escapes)?"""
    if pattern == b"*":
        return True
    return _glob_regex(pattern).fullmatch(name) is not None


def _glob_regex(pattern: bytes) -> re.Pattern[bytes]:
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i:i + 1]
        if c == b"*":
            out.append(b".*")
        elif c == b"?":
            out.append(b".")
        elif c == b"\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i:i + 1]))
        elif c == b"[":
            j, negate, items = i + 1, False, []
            if pattern[j:j + 1] == b"^":
                negate, j = True, j + 1
            while j < n and pattern[j:j + 1] != b"]":
                if pattern[j:j + 1] == b"\\" and j + 1 < n:
                    j += 1
                    items.append(re.escape(pattern[j:j + 1]))
                elif pattern[j + 1:j + 2] == b"-" and j + 2 < n and pattern[j + 2:j + 3] != b"]":
                    lo, hi = sorted((pattern[j], pattern[j + 2]))
                    items.append(re.escape(bytes([lo])) + b"-" + re.escape(bytes([hi])))
                    j += 2
                else:
                    items.append(re.escape(pattern[j:j + 1]))
                j += 1
            out.append(b"[" + (b"^" if negate else b"") + b"".join(items) + b"]" if items
                       else (b"." if negate else b"(?!)"))
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile(b"".join(out), re.DOTALL)
