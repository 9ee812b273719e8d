"""State checks: `[steps.state]` read from the file (`parse_state`), and judged against
the server after a step (`check_state`), with one pipeline per step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from playground.engine.value_reads import SIZE, read_value
from playground.i18n import N_, tr
from playground.resp.replies import Array, Bulk, Int, Map, Status, flat_items, string_bytes
from playground.scenario.fields import check_unknown, read_list, read_typed
from playground.scenario.model import StateCheck

if TYPE_CHECKING:
    from playground.engine.key_reader import Inspector
    from playground.engine.playground import Playground

COUNTS = ("scard", "llen", "zcard")  # a set's size, a list's length, a sorted set's size
FIELDS = {"value", "absent", "exists", "type", "ttl", "pttl", "list", "set", "hash", "hash_has", "zset", *COUNTS}
TYPES = {"string", "list", "set", "zset", "hash", "stream", "none"}


@dataclass
class CheckResult:
    """One check's verdict: what was checked, whether it held, and on failure what was expected vs got."""
    what: str            # e.g. 'reply', 'error WRONGTYPE', 'state balance'
    ok: bool
    detail: str = ""     # on failure: expected vs got


# -- reading [steps.state] ----------------------------------------------------------

def parse_state(raw, where, part, n) -> tuple[StateCheck, ...]:
    """The checks of one `state` table; `where.error(...)` (one line) for a mistake."""
    if not isinstance(raw, dict):
        raise where.error(tr('a table: key = "value" or key = {table}', table="{ absent = true, ttl = [1, 60], ... }"),
                          part=part, step=n, field_name="state")
    return tuple(_key_check(key, spec, where, part, n) for key, spec in raw.items())


def _key_check(key: str, spec, where, part, n) -> StateCheck:
    """The check of one key of a `state` table: its text value, or its table of checks."""
    fname = f"state.{key}"
    if isinstance(spec, str):
        return StateCheck(key.encode(), value=spec)
    if not isinstance(spec, dict) or not spec:
        raise where.error(tr("text (the string value) or a table of checks"), part=part, step=n, field_name=fname)
    check_unknown(spec, FIELDS, where, part=part, step=n, prefix=fname)
    kw: dict = {}
    if "value" in spec:
        kw["value"] = read_typed(spec, "value", str, where, part, n, fname)
    for flag in ("absent", "exists"):
        if flag in spec:
            kw[flag] = read_typed(spec, flag, bool, where, part, n, fname)
    if "type" in spec:
        t = read_typed(spec, "type", str, where, part, n, fname)
        if t not in TYPES:
            raise where.error(tr("type {type}: one of {types}", type=repr(t), types=", ".join(sorted(TYPES))),
                              part=part, step=n, field_name=fname)
        kw["type"] = t
    for name, unit in (("ttl", N_("seconds")), ("pttl", N_("milliseconds"))):
        if name in spec:
            kw[name] = _range(spec[name])
            if kw[name] is None:
                raise where.error(tr("{name}: {unit}, -1 for no expiry, or [min, max]", name=name, unit=tr(unit)),
                                  part=part, step=n, field_name=fname)
    kw.update(_contents(spec, where, part, n, fname))
    for count in COUNTS:
        if count in spec:
            kw[count] = read_typed(spec, count, int, where, part, n, fname)
    if kw.get("absent") and len(kw) > 1:
        raise where.error(tr("absent = true cannot be combined with other checks"), part=part, step=n,
                          field_name=fname)
    return StateCheck(key.encode(), **kw)


def _contents(spec: dict, where, part, n, fname: str) -> dict:
    """The checks of a key's whole contents (list, set, hash, hash_has, zset) in one key's table."""
    kw: dict = {}
    if "list" in spec:
        kw["list"] = tuple(read_list(spec["list"], where, fname + ".list", part, n))
    if "set" in spec:
        kw["set"] = frozenset(read_list(spec["set"], where, fname + ".set", part, n))
    for name in ("hash", "hash_has"):
        if name in spec:
            h = spec[name]
            if not isinstance(h, dict) or not all(isinstance(v, str) for v in h.values()):
                raise where.error(tr("{name}: a table of field = \"value\"", name=name), part=part, step=n,
                                  field_name=fname)
            kw[name] = dict(h)
    if "zset" in spec:
        z = spec["zset"]
        if not isinstance(z, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                              and isinstance(p[1], (int, float)) for p in z):
            raise where.error(tr('zset: a list of ["member", score] pairs'), part=part, step=n, field_name=fname)
        kw["zset"] = tuple((p[0], float(p[1])) for p in z)
    return kw


def _range(value) -> tuple[int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in value) and value[0] <= value[1]):
        return (value[0], value[1])
    return None


# -- judging against the server -----------------------------------------------------

def reader_of(pg: Playground) -> Inspector:
    """The playground's read-only connection, which it has once started.

    Args:
        pg: a started playground.
    """
    if pg.reader is None:
        raise RuntimeError("the playground is not started: it has no reader")
    return pg.reader


async def describe_key(pg: Playground, key: bytes) -> dict:
    """type, ttl and value of one key, as plain JSON-able values."""
    type_, ttl = await reader_of(pg).run([[b"TYPE", key], [b"TTL", key]])
    t = bytes(type_).decode() if isinstance(type_, (Status, Bulk)) else "?"
    kind = "value" if t == "string" else t
    value = None
    if kind in READS:
        raw, = await reader_of(pg).run([READS[kind](key)])
        value = decode_value(kind, raw)
    return {"type": t, "ttl": int(ttl) if isinstance(ttl, Int) else None, "value": value}


def decode_value(kind: str, raw) -> object:
    """A reply to one of READS's commands as a plain value: text, a list of texts (sorted for a set), an int, or None.

    Args:
        kind: the kind of read (a READS key): "set" sorts its members.
        raw: the server's reply to that read.
    """
    if isinstance(raw, Bulk):
        return bytes(raw).decode("utf-8", "replace")
    if isinstance(raw, (Array, Map)):
        items = [string_bytes(x).decode("utf-8", "replace") for x in flat_items(raw)]
        return sorted(items) if kind == "set" else items
    if isinstance(raw, Int):
        return int(raw)
    return None


def _whole(type_: str) -> Callable[[bytes], list[bytes]]:
    """The command that reads a whole value of `type_`, one engine/value_reads.py reads."""
    def command(key: bytes) -> list[bytes]:
        argv = read_value(type_, key)
        if argv is None:
            raise ValueError(f"no command reads a {type_}")
        return argv
    return command


READS: dict[str, Callable[[bytes], list[bytes]]] = {
    "value": _whole("string"), "list": _whole("list"), "set": _whole("set"), "hash": _whole("hash"),
    "zset": _whole("zset"),
         "scard": lambda k: [SIZE["set"], k], "llen": lambda k: [SIZE["list"], k], "zcard": lambda k: [SIZE["zset"], k]}
"""What to read for each kind of check (and for describe_key, each type of key)."""
_CHECK_READS = dict(READS, hash_has=READS["hash"], pttl=lambda k: [b"PTTL", k])


async def check_state(pg: Playground, checks: tuple[StateCheck, ...]) -> list[CheckResult]:
    """Each state check against the server: one pipeline for all of a step's checks
    (TYPE, TTL and the reads each check needs), over the read-only connection."""
    commands, plan = [], []
    for check in checks:
        reads = [kind for kind in _CHECK_READS if getattr(check, kind) is not None]
        plan.append((check, reads))
        commands += [[b"TYPE", check.key], [b"TTL", check.key]] + [_CHECK_READS[k](check.key) for k in reads]
    replies = await reader_of(pg).run(commands) if commands else []
    results, i = [], 0
    for check, reads in plan:
        type_, ttl = replies[i], replies[i + 1]
        got = {kind: decode_value(kind, replies[i + 2 + j]) for j, kind in enumerate(reads)}
        i += 2 + len(reads)
        t = bytes(type_).decode() if isinstance(type_, (Status, Bulk)) else "?"
        results.append(judge(check, t, int(ttl) if isinstance(ttl, Int) else None, got))
    return results


def _in_range(name: str, want: tuple[int, int], got: int | None, problems: list[str]) -> None:
    low, high = want
    if not (low <= (got if got is not None else -2) <= high):
        shown = f"{low}" if low == high else f"{low}..{high}"
        problems.append(tr("expected {name} {want}, got {got}", name=name, want=shown, got=got))


def judge(check: StateCheck, type_: str, ttl: int | None, got: dict) -> CheckResult:
    """One state check's verdict from what the server answered for its key.

    Args:
        check: the check, from the step's [steps.state].
        type_: the key's TYPE ("none" when absent).
        ttl: the key's TTL in seconds, or None when it could not be read.
        got: each read the check needed (a READS kind, "hash_has", "pttl") -> its decoded value.
    """
    problems: list[str] = []
    exists = type_ != "none"
    if check.absent and exists:
        problems.append(tr("expected absent, it is a {type}", type=type_))
    if check.exists and not exists:
        problems.append(tr("expected to exist, it is absent"))
    if check.type and type_ != check.type:
        problems.append(tr("expected type {want}, got {got}", want=check.type, got=type_))
    if check.value is not None and (type_ != "string" or got["value"] != check.value):
        shown = (repr(got["value"]) if type_ == "string"
                 else tr("absent") if not exists else tr("a {type}", type=type_))
        problems.append(tr("expected {want}, got {got}", want=repr(check.value), got=shown))
    if check.ttl is not None:
        _in_range("TTL", check.ttl, ttl, problems)
    if check.pttl is not None:
        _in_range("PTTL", check.pttl, got["pttl"], problems)
    problems += _content_problems(check, type_, got)
    for count in COUNTS:
        want = getattr(check, count)
        if want is not None and got[count] != want:
            problems.append(tr("expected {name} {want}, got {got}", name=count, want=want, got=repr(got[count])))
    name = check.key.decode("utf-8", "replace")
    return CheckResult(f"state {name}", not problems, tr("; ").join(problems))


def _content_problems(check: StateCheck, type_: str, got: dict) -> list[str]:
    """What differs in a key's whole contents (list, set, hash, hash_has, zset) from the check's."""
    problems: list[str] = []
    if check.list is not None and (type_ != "list" or tuple(got["list"] or ()) != check.list):
        problems.append(tr("expected list {want}, got {got}", want=list(check.list),
                               got=got['list'] if type_ == 'list' else type_))
    if check.set is not None and (type_ != "set" or frozenset(got["set"] or ()) != check.set):
        problems.append(tr("expected set {want}, got {got}", want=sorted(check.set),
                           got=got['set'] if type_ == 'set' else type_))
    for name in ("hash", "hash_has"):
        want = getattr(check, name)
        if want is None:
            continue
        pairs = got[name] or []
        # HGETALL: field, value, field, value ...
        value = dict(zip(pairs[::2], pairs[1::2], strict=True)) if type_ == "hash" else None
        if name == "hash" and value != want:
            problems.append(tr("expected hash {want}, got {got}", want=want, got=value))
        elif name == "hash_has" and (value is None or any(value.get(f) != v for f, v in want.items())):
            problems.append(tr("expected a hash with {want}, got {got}", want=want, got=value))
    if check.zset is not None:
        pairs = got["zset"] or []
        members = tuple((pairs[i], float(pairs[i + 1])) for i in range(0, len(pairs), 2)) if type_ == "zset" else None
        if members != check.zset:
            problems.append(tr("expected zset {want}, got {got}", want=list(check.zset), got=members))
    return problems
