"""The outcome of one schedule: every key on the server, its type, value and whether it
expires, read over the playground's read-only connection.

Usually one round trip: the keys seen after earlier schedules are read together with
`KEYS *`, by the type they had then; a key that is new or changed type costs one more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.resp.replies import Array, Bulk, Int, Map, Status
from playground.scenario.model import StateCheck
from playground.scenario.checks import judge as _judge

_READS = {
    "string": lambda k: [b"GET", k],
    "list": lambda k: [b"LRANGE", k, b"0", b"-1"],
    "set": lambda k: [b"SMEMBERS", k],
    "hash": lambda k: [b"HGETALL", k],
    "zset": lambda k: [b"ZRANGE", k, b"0", b"-1", b"WITHSCORES"],
    "stream": lambda k: [b"XLEN", k],   # entry ids carry the time: only the length is an outcome
}


@dataclass(frozen=True)
class KeyState:
    type: str
    shown: str                          # the value as the report prints it
    expires: bool
    ttl: int                            # seconds (-1: no expiry), for judging a goal only
    items: tuple = ()                   # the decoded value: text, or a tuple of texts


@dataclass
class Snapshot:
    keys: dict[str, KeyState] = field(default_factory=dict)

    @property
    def signature(self) -> tuple:
        """What makes two outcomes the same: each key's type, value and expiry (not the
        remaining TTL, which depends on when it is read)."""
        return tuple(sorted((k, s.type, s.shown, s.expires) for k, s in self.keys.items()))

    def describe(self, key: str) -> str:
        state = self.keys.get(key)
        if state is None:
            return "(absent)"
        return state.shown + (" (expires)" if state.expires else "")


def _text(value) -> str:
    return bytes(value).decode("utf-8", "replace")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _decode(type_: str, raw) -> tuple[str, tuple]:
    if type_ == "string":
        text = _text(raw) if isinstance(raw, (Bulk, Status)) else ""
        return _quote(text), (text,)
    if type_ == "stream":
        n = int(raw) if isinstance(raw, Int) else 0
        return f"stream of {n}", (n,)
    items = [_text(x) for pair in (raw or ()) for x in (pair if isinstance(raw, Map) else (pair,))] \
        if isinstance(raw, (Array, Map)) else []
    if type_ == "set":
        items = sorted(items)
        return "{" + ", ".join(map(_quote, items)) + "}", tuple(items)
    if type_ == "hash":
        pairs = sorted(zip(items[::2], items[1::2]))
        return "{" + ", ".join(f"{_quote(f)}: {_quote(v)}" for f, v in pairs) + "}", \
            tuple(x for p in pairs for x in p)
    if type_ == "zset":
        pairs = list(zip(items[::2], items[1::2]))
        return "[" + ", ".join(f"{_quote(m)} {s}" for m, s in pairs) + "]", tuple(items)
    return "[" + ", ".join(map(_quote, items)) + "]", tuple(items)


class Snapshotter:
    """Reads outcomes; remembers each key's type between schedules."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.types: dict[bytes, str] = {}

    async def read(self) -> Snapshot:
        known = list(self.types.items())
        commands = [[b"KEYS", b"*"]]
        for key, type_ in known:
            commands += [[b"TYPE", key], [b"PTTL", key], _READS[type_](key)]
        replies = await self.pg.reader.run(commands)
        present = {bytes(k) for k in replies[0]} if isinstance(replies[0], Array) else set()
        out = Snapshot()
        retry = [k for k in present if k not in self.types]
        for i, (key, type_) in enumerate(known):
            if key not in present:
                continue
            got_type, pttl, raw = replies[1 + 3 * i: 4 + 3 * i]
            if _text(got_type) != type_:
                retry.append(key)
                continue
            out.keys[key.decode("utf-8", "replace")] = self._state(type_, pttl, raw)
        if retry:
            types = await self.pg.reader.run([[b"TYPE", k] for k in retry])
            retry = [(k, _text(t)) for k, t in zip(retry, types) if _text(t) in _READS]
            replies = await self.pg.reader.run([c for k, t in retry for c in ([b"PTTL", k], _READS[t](k))])
            for i, (key, type_) in enumerate(retry):
                self.types[key] = type_
                out.keys[key.decode("utf-8", "replace")] = self._state(type_, replies[2 * i], replies[2 * i + 1])
        return out

    @staticmethod
    def _state(type_: str, pttl, raw) -> KeyState:
        shown, items = _decode(type_, raw)
        ms = int(pttl) if isinstance(pttl, Int) else -1
        ttl = (ms + 500) // 1000 if ms > 0 else ms
        return KeyState(type_, shown, ms >= 0, ttl, items)


def judge(shot: Snapshot, checks: tuple[StateCheck, ...]) -> bool:
    """Do these state checks (a challenge's goal) hold in the outcome? The runner's own
    judge, given the snapshot's values instead of the server's."""
    for check in checks:
        state = shot.keys.get(check.key.decode("utf-8", "replace"))
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
