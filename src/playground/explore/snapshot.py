"""The outcome of one schedule: every key in every database, its type, its exact value
and its TTL class, read over the playground's read-only connection.

Two outcomes are the same only if every byte is: values are compared as the server
holds them and shown as redis-cli escapes them (`sdscatrepr`: never a raw control byte
to the terminal), except that text which is valid UTF-8 and printable is shown as text
(a Chinese value reads as Chinese; the escaping keeps the two forms apart). A stream is
its entries in order (an id the server made from the clock is shown as `*`: it differs
from run to run). A stream is also its consumer groups (`XINFO STREAM key FULL`): each group's
last-delivered id and entries read, its consumers, and its pending entries with the
consumer each waits for and how many times it was delivered (an entry left pending by
a consumer that crashed is another outcome than one acknowledged); the times the server
keeps (idle, seen, delivery time) are left out, as they differ from run to run. A TTL is
a class a teacher can read: none, expires within the lesson (`LESSON_SECONDS`), or
later; the remaining milliseconds depend on when it is read.

Usually one round trip: the keys of the clients' database seen after earlier schedules
are read together with `KEYS *` and `INFO keyspace`, by the type they had then (a
stream with its groups); a key that is new or changed type, or a key in another
database, costs one more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.engine.value_reads import TYPES, read_value
from playground.i18n import tr
from playground.resp.cli_format import repr_bytes
from playground.resp.info_text import parse_info
from playground.resp.replies import Array, Bulk, Int, Map, Nil, Status, flat_items, string_bytes
from playground.scenario.checks import judge as _judge
from playground.scenario.model import StateCheck

LESSON_SECONDS = 60          # a TTL up to this long "expires within the lesson"
_CLOCK_IDS = 10 ** 12        # a stream id's milliseconds past this came from the clock (after 2001)

TTL_NONE, TTL_SOON, TTL_LATER = "none", "soon", "later"


@dataclass(frozen=True)
class GroupState:
    """A stream's consumer group as an outcome compares it (no times: they differ from
    run to run)."""

    name: str                                       # shown as a key name is (escaped)
    last_delivered: str                             # the id of the last entry delivered ("*": the clock's)
    entries_read: int | None                        # None: the server does not count (before 7.0), or lost count
    pending: tuple[tuple[str, str, int], ...]       # (entry id, consumer, deliveries), in id order
    consumers: tuple[str, ...]                      # every consumer's name, sorted

    def as_json(self) -> dict:
        return {"name": self.name, "last_delivered": self.last_delivered, "entries_read": self.entries_read,
                "pending": [{"id": i, "consumer": c, "deliveries": n} for i, c, n in self.pending],
                "consumers": list(self.consumers)}


@dataclass(frozen=True)
class KeyState:
    """One key at the end of a schedule: its type, its value as shown, and its TTL's class."""
    type: str
    shown: str                          # the value as the report prints it (escaped)
    ttl_class: str                      # TTL_NONE, TTL_SOON or TTL_LATER
    ttl: int                            # seconds (-1: no expiry), for judging a goal only
    items: tuple = ()                   # the value as text (a string: one item), for goals and JSON
    groups: tuple[GroupState, ...] = ()  # a stream's consumer groups, by name

    @property
    def expires(self) -> bool:
        return self.ttl_class != TTL_NONE


@dataclass
class Snapshot:
    """The keys at the end of a schedule (shown name -> state): what outcomes are compared by."""
    keys: dict[str, KeyState] = field(default_factory=dict)   # shown key name -> state

    @property
    def signature(self) -> tuple:
        """What makes two outcomes the same: each key's type, exact value and TTL class
        (key names as shown are exact too: see `show_key`)."""
        return tuple(sorted((k, s.type, s.shown, s.ttl_class, s.groups) for k, s in self.keys.items()))

    def describe_groups(self, key: str) -> list[str]:
        """A stream's consumer groups, one line each: `group "workers": last delivered
        1-1 (1 read); pending: 1-1 for a (delivered 1×); consumers: a, b`."""
        state = self.keys.get(key)
        return [describe_group(g) for g in state.groups] if state is not None else []

    def describe(self, key: str) -> str:
        state = self.keys.get(key)
        if state is None:
            return tr("(absent)")
        if state.ttl_class == TTL_SOON:
            return state.shown + " " + tr("(expires within {seconds} s)", seconds=LESSON_SECONDS)
        if state.ttl_class == TTL_LATER:
            return state.shown + " " + tr("(expires later)")
        return state.shown


def show(value: bytes) -> str:
    """A value as the report prints it: printable UTF-8 text in quotes (\\ and " escaped),
    anything else as redis-cli prints it (\\xff, \\n, \\x1b ...)."""
    value = bytes(value)
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and text.isprintable():
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr_bytes(value).decode("ascii")


def show_key(key: bytes, db: int | None = None) -> str:
    """A key's name as the report prints it: bare when it is plain text (no quote or
    backslash either), else escaped in quotes; a key in another database than the
    clients' own (`db`) says which."""
    key = bytes(key)
    text, shown = key.decode("utf-8", "replace"), show(key)
    name = text if shown == f'"{text}"' else shown
    return name if db is None else f"{name} [db {db}]"


def describe_group(group: GroupState) -> str:
    """One consumer group as the report prints it (in the interface's language)."""
    read = "" if group.entries_read is None else tr(" ({n} read)", n=group.entries_read)
    pending = tr(", ").join(tr("{id} for {consumer} (delivered {n}×)", id=i, consumer=c, n=n)
                            for i, c, n in group.pending) or tr("nothing")
    consumers = tr(", ").join(group.consumers) or tr("none")
    return tr("group {name}: last delivered {id}{read}; pending: {pending}; consumers: {consumers}",
              name=group.name, id=group.last_delivered, read=read, pending=pending, consumers=consumers)


def _text(value: object) -> str:
    return string_bytes(value).decode("utf-8", "replace")


def _fields(value) -> dict[bytes, Any]:
    """A reply of field/value pairs (RESP2's flat array, or a RESP3 map) as a dict."""
    if isinstance(value, Map):
        return {string_bytes(k).lower(): v for k, v in value}
    if isinstance(value, Array):
        return {bytes(k).lower(): v for k, v in zip(value[::2], value[1::2], strict=True)
                if isinstance(k, (Bulk, Status))}
    return {}


def _groups(info) -> tuple[GroupState, ...]:
    """The consumer groups of `XINFO STREAM key FULL COUNT 0`'s reply, without times."""
    out = []
    for raw in _fields(info).get(b"groups") or ():
        group = _fields(raw)
        if b"name" not in group:
            continue
        pending = []
        for entry in group.get(b"pending") or ():   # [id, consumer, delivery time, deliveries]
            if isinstance(entry, Array) and len(entry) >= 4 and isinstance(entry[-1], Int):
                pending.append((_stream_id(entry[0]), show_key(string_bytes(entry[1])), int(entry[-1])))
        read = group.get(b"entries-read")
        consumers = sorted(show_key(bytes(_fields(c).get(b"name", b""))) for c in group.get(b"consumers") or ())
        out.append(GroupState(show_key(bytes(group[b"name"])), _stream_id(group.get(b"last-delivered-id", b"")),
                              int(read) if isinstance(read, Int) else None,
                              tuple(sorted(pending, key=lambda p: _id_order(p[0]))), tuple(consumers)))
    return tuple(sorted(out, key=lambda g: g.name))


def _id_order(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return (int(ms), int(seq)) if ms.isdigit() and seq.isdigit() else (-1, -1)


def _stream_id(raw) -> str:
    entry_id = _text(raw)
    ms, _, _ = entry_id.partition("-")
    return "*" if ms.isdigit() and int(ms) >= _CLOCK_IDS else entry_id


def _decode(type_: str, raw) -> tuple[str, tuple]:
    if type_ == "string":
        value = bytes(raw) if isinstance(raw, (Bulk, Status)) else b""
        return show(value), (_text(value),)
    if type_ == "stream":
        entries = []
        for entry in raw if isinstance(raw, Array) else ():
            if not isinstance(entry, Array):   # (each entry: [id, [field, value, ...]])
                continue
            fields = [string_bytes(f) for f in entry[1]] if len(entry) > 1 and isinstance(entry[1], Array) else []
            body = ", ".join(f"{show(f)}: {show(v)}" for f, v in zip(fields[::2], fields[1::2], strict=True))
            entries.append(f"{_stream_id(entry[0])} {{{body}}}")
        return "[" + ", ".join(entries) + "]", tuple(entries)
    values = [string_bytes(x) for x in flat_items(raw)] if isinstance(raw, (Array, Map)) else []
    if type_ == "set":
        values = sorted(values)
        return "{" + ", ".join(map(show, values)) + "}", tuple(map(_text, values))
    if type_ == "hash":
        pairs = sorted(zip(values[::2], values[1::2], strict=True))
        return "{" + ", ".join(f"{show(f)}: {show(v)}" for f, v in pairs) + "}", \
            tuple(_text(x) for p in pairs for x in p)
    if type_ == "zset":
        pairs = list(zip(values[::2], values[1::2], strict=True))
        return "[" + ", ".join(f"{show(m)} {_text(s)}" for m, s in pairs) + "]", tuple(map(_text, values))
    return "[" + ", ".join(map(show, values)) + "]", tuple(map(_text, values))


def _databases(info, own: int) -> list[int]:
    """The databases INFO keyspace lists (those holding keys), other than `own`."""
    return sorted(int(name[2:]) for name in parse_info(info)
                  if name.startswith("db") and name[2:].isdigit() and int(name[2:]) != own)


class Snapshotter:
    """Reads outcomes; remembers the type of each key of the clients' own database (0,
    or a --url's /db, where the read connection is) between schedules."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.types: dict[bytes, str] = {}
        self.own_db = getattr(pg.url, "db", 0) or 0    # a private server: 0

    async def read(self) -> Snapshot:
        known = list(self.types.items())
        commands = [[b"INFO", b"keyspace"], [b"KEYS", b"*"]]
        for key, type_ in known:
            commands += [[b"TYPE", key], *_reads(type_, key)]
        replies = await self.pg.reader.run(commands)
        present = {string_bytes(k) for k in replies[1]} if isinstance(replies[1], Array) else set()
        if hasattr(self.pg.reader, "every_key"):     # a cluster: every primary's keys
            present = set(await self.pg.reader.every_key())
        out = Snapshot()
        retry = [k for k in present if k not in self.types]
        at = 2
        for key, type_ in known:
            size = 1 + len(_reads(type_, key))
            got_type, *read = replies[at: at + size]
            at += size
            if key not in present:
                continue
            if _text(got_type) != type_:
                retry.append(key)
                continue
            out.keys[show_key(key)] = self._state(type_, *read)
        if retry:
            for key, state, type_ in await self._read_keys(self.own_db, retry):
                self.types[key] = type_
                out.keys[show_key(key)] = state
        for db in _databases(replies[0], self.own_db):
            keys, = await self._in_db(db, [[b"KEYS", b"*"]])
            for key, state, _ in await self._read_keys(db, [bytes(k) for k in keys]):
                out.keys[show_key(key, db)] = state
        return out

    async def _in_db(self, db: int, commands: list[list[bytes]]) -> list:
        if db == self.own_db:
            return await self.pg.reader.run(commands)
        replies = await self.pg.reader.run([[b"SELECT", b"%d" % db], *commands,
                                            [b"SELECT", b"%d" % self.own_db]])
        return replies[1:-1]

    async def _read_keys(self, db: int, keys: list[bytes]) -> list[tuple[bytes, KeyState, str]]:
        types = await self._in_db(db, [[b"TYPE", k] for k in keys])
        typed = [(k, _text(t)) for k, t in zip(keys, types, strict=True) if _text(t) in TYPES]
        replies = await self._in_db(db, [c for k, t in typed for c in _reads(t, k)])
        out, at = [], 0
        for key, type_ in typed:
            size = len(_reads(type_, key))
            out.append((key, self._state(type_, *replies[at: at + size]), type_))
            at += size
        return out

    @staticmethod
    def _state(type_: str, pttl, raw, info=None) -> KeyState:
        shown, items = _decode(type_, raw)
        ms = int(pttl) if isinstance(pttl, Int) else -1
        ttl = (ms + 500) // 1000 if ms > 0 else ms
        ttl_class = TTL_NONE if ms < 0 else TTL_SOON if ms <= LESSON_SECONDS * 1000 else TTL_LATER
        groups = _groups(info) if info is not None and info is not Nil else ()
        return KeyState(type_, shown, ttl_class, ttl, items, groups)


def _reads(type_: str, key: bytes) -> list[list[bytes]]:
    """What is read of a key of this type: its PTTL and value; a stream's groups too."""
    out = [[b"PTTL", key], read_value(type_, key) or [b"TYPE", key]]   # (every type of TYPES has a reader)
    if type_ == "stream":
        out.append([b"XINFO", b"STREAM", key, b"FULL", b"COUNT", b"0"])
    return out


def judge(shot: Snapshot, checks: tuple[StateCheck, ...]) -> bool:
    """Do these state checks (a challenge's goal) hold in the outcome? The runner's own
    judge, given the snapshot's values instead of the server's."""
    for check in checks:
        state = shot.keys.get(show_key(check.key))
        got = dict.fromkeys(("value", "list", "set", "hash", "zset", "scard", "llen"))
        type_, ttl = "none", -2
        if state is not None:
            type_, ttl = state.type, state.ttl
            items = list(state.items)
            if type_ == "string":
                got["value"] = items[0]
            elif type_ in ("list", "set", "hash", "zset"):
                got[type_] = items
                got["llen" if type_ == "list" else "scard"] = len(items)
        if not _judge(check, type_, ttl, got).ok:
            return False
    return True
