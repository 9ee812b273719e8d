"""A small msgfmt: a gettext `.po` source read, and compiled to the `.mo` bytes the standard
library's `gettext.GNUTranslations` reads (in memory: nothing is written to disk).

Only what our catalogues use: comments, `msgctxt`, `msgid`, `msgid_plural`, `msgstr`,
`msgstr[n]`, strings continued on the next lines, C escapes; an entry flagged `#, fuzzy`
(or without a translation) is left out, as GNU msgfmt does.
"""

from __future__ import annotations

import ast
import struct
from dataclasses import dataclass, field

__all__ = ["Entry", "parse_po", "compile_mo", "mo_bytes"]

CONTEXT_SEPARATOR = "\x04"  # gettext's: context EOT msgid
PLURAL_SEPARATOR = "\x00"


@dataclass
class Entry:
    """One entry of a .po file: its msgid (in its context, with its plural), its
    translation(s), whether it is fuzzy, and its line (for errors)."""

    msgid: str
    msgstr: str = ""
    context: str | None = None
    plural: str | None = None
    plurals: list[str] = field(default_factory=list)  # msgstr[0], msgstr[1], ... of a plural entry
    fuzzy: bool = False
    line: int = 0

    @property
    def translated(self) -> bool:
        return not self.fuzzy and (all(self.plurals) and bool(self.plurals) if self.plural is not None
                                   else bool(self.msgstr))


def _string(text: str, where) -> str:
    """A quoted string's text; `where()` names the line for an error."""
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"{where()}: expected a quoted string, got {text!r}")
    inner = text[1:-1]
    if "\\" not in inner and '"' not in inner:  # most lines: nothing to unescape (literal_eval
        return inner                            # for each took ~2/3 of a catalogue's parse)
    return ast.literal_eval(text)  # C-like escapes: \" \\ \n \t


def parse_po(source: str, name: str = "<po>") -> list[Entry]:
    """The entries of a `.po` file, the header (msgid "") first if there is one."""
    entries: list[Entry] = []
    entry: Entry | None = None
    keyword = ""
    fuzzy = False
    number = 0

    def where() -> str:  # the line, for an error (built only then)
        return f"{name}:{number}"

    for number, raw in enumerate(source.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        if line.startswith('"'):
            if entry is None or not keyword:
                raise ValueError(f"{where()}: a continued string outside an entry")
            _append(entry, keyword, _string(line, where))
            continue
        word, _, rest = line.partition(" ")
        if word in ("msgctxt", "msgid") and (entry is None or keyword.startswith("msgstr")):
            entry = Entry(msgid="", line=number, fuzzy=fuzzy)
            entries.append(entry)
            fuzzy = False
        if entry is None:
            raise ValueError(f"{where()}: {word} before msgid")
        if word == "msgctxt":
            entry.context = ""
        elif word == "msgid_plural":
            entry.plural = ""
        elif word.startswith("msgstr["):
            entry.plurals.append("")
        elif word not in ("msgid", "msgstr"):
            raise ValueError(f"{where()}: unknown keyword {word!r}")
        keyword = word
        _append(entry, keyword, _string(rest, where))
    return entries


def _append(entry: Entry, keyword: str, text: str) -> None:
    if keyword == "msgctxt":
        entry.context = (entry.context or "") + text
    elif keyword == "msgid":
        entry.msgid += text
    elif keyword == "msgid_plural":
        entry.plural = (entry.plural or "") + text
    elif keyword.startswith("msgstr["):
        entry.plurals[-1] += text
    else:
        entry.msgstr += text


def compile_mo(entries: list[Entry]) -> bytes:
    """The `.mo` file of `entries` (GNU format, little-endian, no hash table)."""
    pairs: dict[bytes, bytes] = {}
    for e in entries:
        if e.msgid and not e.translated:
            continue
        key = e.msgid if e.context is None else e.context + CONTEXT_SEPARATOR + e.msgid
        if e.plural is not None:
            key += PLURAL_SEPARATOR + e.plural
            value = PLURAL_SEPARATOR.join(e.plurals)
        else:
            value = e.msgstr
        pairs[key.encode("utf-8")] = value.encode("utf-8")
    keys = sorted(pairs)
    ids = b"".join(k + b"\0" for k in keys)
    strs = b"".join(pairs[k] + b"\0" for k in keys)
    count = len(keys)
    ids_start = 7 * 4 + count * 16  # header, then the two tables of (length, offset)
    strs_start = ids_start + len(ids)
    table_ids, table_strs, offset_id, offset_str = [], [], 0, 0
    for k in keys:
        table_ids += [len(k), ids_start + offset_id]
        table_strs += [len(pairs[k]), strs_start + offset_str]
        offset_id += len(k) + 1
        offset_str += len(pairs[k]) + 1
    header = struct.pack("<7I", 0x950412DE, 0, count, 7 * 4, 7 * 4 + count * 8, 0, 0)
    return header + struct.pack(f"<{4 * count}I", *table_ids, *table_strs) + ids + strs


def mo_bytes(po_source: str, name: str = "<po>") -> bytes:
    """A `.po` source compiled to `.mo` bytes."""
    return compile_mo(parse_po(po_source, name))
