"""Command help, completion and argument hints, as redis-cli builds them.

A port of redis-cli's help table (`cliInitHelp` from COMMAND DOCS, `cliAddArgument`),
`cliOutputHelp` (the exact bytes `HELP SET` prints, escapes included), the completion
callback and the hints callback. When the server has no COMMAND DOCS (before Redis 7)
the bundled table in data/command_help.json is used instead.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from playground.resp.cli_lines import SplitError, split_args
from playground.resp.replies import Array, Bulk, Map, Set, Status
from playground.resp.side_connection import SideConnection

BUNDLED = Path(__file__).resolve().parent.parent / "data" / "command_help.json"


@dataclass(frozen=True)
class HelpEntry:
    """One command's (or subcommand's) help, as redis-cli's HELP shows it."""

    argv: tuple[str, ...]   # ("CLIENT", "LIST")
    params: str
    summary: str
    since: str | None
    group: str

    @property
    def full(self) -> str:
        return " ".join(self.argv)


def _text(value: object) -> str:
    return bytes(value).decode("utf-8", "replace") if isinstance(value, (bytes, Bulk, Status)) else str(value)


def _pairs(reply: object) -> list[tuple[str, Any]]:
    """(key, value) pairs of a RESP3 map or a RESP2 flat array. (COMMAND DOCS's values
    are of every shape: each is checked where it is used.)"""
    if isinstance(reply, Map):
        return [(_text(k), v) for k, v in reply]
    if isinstance(reply, list):
        return [(_text(reply[i]), reply[i + 1]) for i in range(0, len(reply) - 1, 2)]
    return []


def _orempty(value: str) -> str:
    return value if value else '""'


def _add_argument(spec: object) -> str:
    """`cliAddArgument`: one argument of COMMAND DOCS as redis-cli writes it."""
    if not isinstance(spec, (Map, Array)):
        return ""
    name = type_ = None
    token = ""
    optional = multiple = multiple_token = False
    arguments = []
    for key, value in _pairs(spec):
        if key == "name":
            name = _text(value)
        elif key == "token":
            token += _orempty(_text(value))
        elif key == "type":
            type_ = _text(value)
        elif key == "arguments":
            arguments = value
        elif key == "flags":
            flags = {_text(f) for f in value} if isinstance(value, (Array, Set)) else set()
            optional = "optional" in flags
            multiple = "multiple" in flags
            multiple_token = "multiple_token" in flags
    if type_ in ("key", "string", "integer", "double", "pattern", "unix-time", "token"):
        repeat = _orempty(name or "")
    elif type_ == "oneof":
        repeat = "|".join(_add_argument(a) for a in arguments)
    elif type_ == "block":
        repeat = " ".join(_add_argument(a) for a in arguments)
    else:
        repeat = ""
    if token and type_ != "pure-token":
        token += " "
    out = "[" if optional else ""
    out += token + repeat
    if multiple:
        out += " [" + (token if multiple_token else "") + repeat + " ...]"
    if optional:
        out += "]"
    return out


class HelpIndex:
    """redis-cli's help table: every command and subcommand, sorted by name."""

    def __init__(self, entries: list[HelpEntry]) -> None:
        self.entries = sorted(entries, key=lambda e: e.full.encode())
        self.groups = sorted({e.group for e in self.entries})
        self._named: dict[str, list[HelpEntry]] = {}  # a command's entries (in order), for each keystroke's hint
        for entry in self.entries:
            self._named.setdefault(entry.argv[0].lower(), []).append(entry)

    @classmethod
    def from_docs(cls, reply: object) -> "HelpIndex":
        """From the typed reply of COMMAND DOCS (RESP2 or RESP3)."""
        entries: list[HelpEntry] = []
        for name, specs in _pairs(reply):
            cls._add(entries, name.upper(), None, specs)
        return cls(entries)

    @classmethod
    def _add(cls, entries: list[HelpEntry], cmd: str, sub: str | None, specs: object) -> None:
        argv = (cmd,) if sub is None else (cmd, sub.split("|", 1)[1].upper())
        fields = dict(_pairs(specs))
        params = " ".join(_add_argument(a) for a in fields.get("arguments", []))
        entries.append(HelpEntry(argv, params, _text(fields.get("summary", "")),
                                 _text(fields["since"]) if "since" in fields else None,
                                 _text(fields.get("group", ""))))
        for subname, subspecs in _pairs(fields.get("subcommands", [])):
            cls._add(entries, cmd, subname, subspecs)

    @classmethod
    def bundled(cls) -> "HelpIndex":
        data = json.loads(BUNDLED.read_text())
        return cls([HelpEntry(tuple(e["argv"]), e["params"], e["summary"], e["since"], e["group"])
                    for e in data])

    def dump(self) -> str:
        return json.dumps([asdict(e) for e in self.entries], indent=0, ensure_ascii=False)

    def command_names(self) -> list[str]:
        return sorted({e.argv[0] for e in self.entries})

    def output_help(self, words: list[str]) -> bytes:
        """`cliOutputHelp`: what redis-cli prints for `HELP words...` (\\r\\n and colours included)."""
        if not words:
            return GENERIC_HELP
        group = words[0][1:] if words[0].startswith("@") else None
        out = []
        for entry in self.entries:
            if group is None:
                if len(words) <= len(entry.argv) and all(
                        w.lower() == a.lower() for w, a in zip(words, entry.argv, strict=False)):  # (prefix)
                    out.append(_entry_help(entry, with_group=True))
            elif group.lower() == entry.group.lower():
                out.append(_entry_help(entry, with_group=False))
        return ("".join(out) + "\r\n").encode()

    def complete(self, buf: str) -> list[str]:
        """redis-cli's completion: full lines that start with what was typed."""
        if buf[:5].lower() == "help ":
            start = 5
            while start < len(buf) and buf[start].isspace():
                start += 1
            names = [e.full for e in self.entries] + ["@" + g for g in self.groups]
        else:
            start = 0
            names = [e.full for e in self.entries]
        typed = buf[start:].lower()
        return [buf[:start] + n for n in sorted(names, key=str.encode) if n.lower().startswith(typed)]

    def hint(self, buf: str) -> str | None:
        """redis-cli's hint: the arguments still to type after `buf`, or None."""
        try:
            argv = [a.decode("utf-8", "replace") for a in split_args(buf)]
        except SplitError:
            return None
        if not argv:
            return None
        entry = self.lookup(argv)
        if entry is None:
            return None
        matchlen = len(entry.argv)
        hint = entry.params
        to_remove = len(argv) - matchlen
        while to_remove > 0 and hint:
            if hint[0] == "[":
                break
            if hint[0] == " ":
                to_remove -= 1
            hint = hint[1:]
        if not (buf and buf[-1].isspace()):
            hint = " " + hint
        return hint

    def lookup(self, argv: list[str]) -> HelpEntry | None:
        """The most specific entry for a command line (CLIENT LIST over CLIENT)."""
        best = None
        words = [a.lower() for a in argv]
        for e in self._named.get(words[0], []) if words else []:  # the entries of that command only
            if len(e.argv) <= len(words) and all(  # (its words a prefix of the line's)
                    a.lower() == b for a, b in zip(e.argv, words, strict=False)):
                if best is None or len(e.argv) > len(best.argv):
                    best = e
        return best


def _entry_help(entry: HelpEntry, with_group: bool) -> str:
    out = f"\r\n  \x1b[1m{entry.full}\x1b[0m \x1b[90m{entry.params}\x1b[0m\r\n"
    out += f"  \x1b[33msummary:\x1b[0m {entry.summary}\r\n"
    if entry.since is not None:
        out += f"  \x1b[33msince:\x1b[0m {entry.since}\r\n"
    if with_group:
        out += f"  \x1b[33mgroup:\x1b[0m {entry.group}\r\n"
    return out


# redis-cli prints its own version here; the playground says what it is instead.
GENERIC_HELP = (
    b"redis-playground (help as in redis-cli)\n"
    b"To get help about Redis commands type:\n"
    b"      \"help @<group>\" to get a list of commands in <group>\n"
    b"      \"help <command>\" for help on <command>\n"
    b"      \"quit\" to exit\n"
)


async def load_help(reader: SideConnection) -> HelpIndex:
    """From the server's COMMAND DOCS over `reader` (a SideConnection), else the bundled table."""
    reply, = await reader.run([[b"COMMAND", b"DOCS"]])
    if isinstance(reply, (Array, Map)) and reply:
        return HelpIndex.from_docs(reply)
    return HelpIndex.bundled()
