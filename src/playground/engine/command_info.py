"""What the server says about a command: its reply to COMMAND INFO, read into flags,
tips and key specifications (where the keys are, whether each is written), and the
keys a spec finds in a command line. The catalogue (engine/catalogue.py) answers from
it; no I/O here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playground.resp.replies import Array, Int, Map


@dataclass(frozen=True)
class _Spec:
    """One key specification: where its keys are, and whether they are written."""

    begin: tuple[Any, ...]  # ("index", pos) | ("keyword", word, startfrom) | ("unknown",)
    find: tuple[Any, ...]   # ("range", lastkey, step, limit) | ("keynum", idx, first, step) | ("unknown",)
    writes: bool
    incomplete: bool


@dataclass(frozen=True)
class CommandInfo:
    """One command as COMMAND INFO describes it (`parse_command_info`)."""

    name: bytes                        # the server's own name (after rename-command: not the typed one)
    flags: frozenset[bytes]
    specs: tuple[_Spec, ...] | None    # None: the server gave no key specs (before 7.0)
    first: int
    last: int
    step: int
    tips: frozenset[bytes] = frozenset()   # e.g. nondeterministic_output (7.0 and later)
    subcommands: tuple[tuple[bytes, CommandInfo], ...] = ()   # (subcommand, its own description): OBJECT ENCODING's
    dangerous: frozenset[bytes] = frozenset()  # "cmd" or "cmd|sub" the server files under @dangerous
    categories: frozenset[bytes] = frozenset()  # its ACL categories (6.0 and later): @keyspace, @write ...

    def subcommand(self, word: bytes) -> CommandInfo | None:
        """The description of subcommand `word` (lower case: b"encoding" of OBJECT), or
        None (no such subcommand, or a server before 7.0, which describes none).

        Args:
            word: the subcommand as the line names it, in lower case.
        """
        return next((info for sub, info in self.subcommands if sub == word), None)

    @property
    def undeclared_writes(self) -> bool:
        """Flagged `write`, yet no key spec writes: the specs under-declare (XREADGROUP's
        says RO, though it moves the group's last-delivered id and fills its pending
        entries list), so every key it names is taken as written."""
        return b"write" in self.flags and bool(self.specs) and not any(s.writes for s in self.specs or ())


def _bytes(value: object, default: bytes = b"") -> bytes:
    """A string of the reply as bytes (`default`: not a string)."""
    return bytes(value) if isinstance(value, (bytes, bytearray)) else default


def _pairs(value: object) -> dict[bytes, Any]:
    """A RESP2 flat array of name, value or a RESP3 map, as a dict with lower-case names.
    (COMMAND INFO's values are of every shape: each is checked where it is used.)"""
    if isinstance(value, Map):
        items = list(value)
    elif isinstance(value, (Array, list, tuple)):
        items = list(zip(value[::2], value[1::2], strict=False))
    else:
        return {}
    return {_bytes(k).lower(): v for k, v in items}


def _words(value: object) -> frozenset[bytes]:
    return frozenset(_bytes(f).lower() for f in value) if isinstance(value, (Array, list, tuple)) else frozenset()


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _parse_spec(raw: object) -> _Spec:
    spec = _pairs(raw)
    flags = _words(spec.get(b"flags"))
    begin, find = _pairs(spec.get(b"begin_search")), _pairs(spec.get(b"find_keys"))
    b_type, b_spec = _bytes(begin.get(b"type"), b"unknown").lower(), _pairs(begin.get(b"spec"))
    f_type, f_spec = _bytes(find.get(b"type"), b"unknown").lower(), _pairs(find.get(b"spec"))
    where: tuple[str, *tuple[bytes | int, ...]]
    how: tuple[str, *tuple[int, ...]]
    if b_type == b"index":
        where = ("index", _int(b_spec.get(b"index")))
    elif b_type == b"keyword":
        where = ("keyword", _bytes(b_spec.get(b"keyword")).lower(), _int(b_spec.get(b"startfrom")))
    else:
        where = ("unknown",)
    if f_type == b"range":
        how = ("range", _int(f_spec.get(b"lastkey")), _int(f_spec.get(b"keystep"), 1), _int(f_spec.get(b"limit")))
    elif f_type == b"keynum":
        how = ("keynum", _int(f_spec.get(b"keynumidx")), _int(f_spec.get(b"firstkey")),
               _int(f_spec.get(b"keystep"), 1))
    else:
        how = ("unknown",)
    writes = bool(flags & {b"rw", b"ow", b"rm", b"variable_flags"})
    return _Spec(where, how, writes, b"incomplete" in flags or "unknown" in (where[0], how[0]))


def parse_command_info(info: object) -> CommandInfo | None:
    """One entry of COMMAND INFO's reply, read (None: not a command's description; the
    server answers nil for a name it does not know).

    Args:
        info: the entry, as the connection parsed it (an Array).
    """
    if not isinstance(info, Array) or len(info) < 6:
        return None
    specs = tuple(_parse_spec(s) for s in info[8]) if len(info) > 8 and isinstance(info[8], Array) else None
    first, last, step = (_int(x) if isinstance(x, Int) else 0 for x in info[3:6])
    tips = _words(info[7]) if len(info) > 7 else frozenset()
    subcommands = []
    for sub in info[9] if len(info) > 9 and isinstance(info[9], Array) else ():   # ("object|idletime", ...)
        described = parse_command_info(sub)
        if described is not None:
            subcommands.append((described.name.partition(b"|")[2], described))
    return CommandInfo(_bytes(info[0]).lower(), _words(info[2]), specs, first, last, step, tips, tuple(subcommands),
                       _dangerous(info), _words(info[6]) if len(info) > 6 else frozenset())


def _dangerous(info: Array) -> frozenset[bytes]:
    """The names ("cmd", "cmd|sub") of `info` and its subcommands whose ACL categories
    (6.0 and later; subcommands 7.0 and later) include @dangerous."""
    found: set[bytes] = set()
    for entry in [info, *(info[9] if len(info) > 9 and isinstance(info[9], Array) else ())]:
        if isinstance(entry, Array) and len(entry) > 6 and b"@dangerous" in _words(entry[6]):
            found.add(_bytes(entry[0]).lower())
    return frozenset(found)


def spec_keys(spec: _Spec, argv: Sequence[bytes]) -> list[bytes] | None:
    """The keys this spec finds in argv (None: cannot tell), as the server's
    getKeysUsingKeySpecs finds them."""
    positions = spec_positions(spec, argv)
    return None if positions is None else [bytes(argv[i]) for i in positions]


def spec_positions(spec: _Spec, argv: Sequence[bytes]) -> list[int] | None:
    """Where in argv this spec finds its keys (None: cannot tell)."""
    argc = len(argv)
    if spec.begin[0] == "index":
        first = spec.begin[1]
    elif spec.begin[0] == "keyword":
        _, word, start = spec.begin
        indexes = range(start, argc) if start > 0 else range(argc + start, 0, -1)
        first = next((i + 1 for i in indexes if 0 < i < argc and bytes(argv[i]).lower() == word), None)
        if first is None:
            return []          # no keyword, no keys (XREAD without STREAMS is refused anyway)
    else:
        return None
    if spec.find[0] == "range":
        _, lastkey, step, limit = spec.find
        if lastkey >= 0:
            last = first + lastkey
        elif limit <= 1:
            last = argc + lastkey
        else:
            last = first + (argc - first) // limit + lastkey
    elif spec.find[0] == "keynum":
        _, idx, offset, step = spec.find
        if first + idx >= argc:
            return None
        count = _int(argv[first + idx], -1)
        if count < 0:
            return None
        first += offset
        last = first + (count - 1) * step
    else:
        return None
    if step <= 0 or first <= 0 or last >= argc:
        return None if last >= argc else []
    return list(range(first, last + 1, step))
