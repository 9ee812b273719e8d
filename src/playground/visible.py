"""The one escaping function for every text the app writes to a terminal or a file that
someone else's words reach (a scenario's title, lesson, tags and narration, a reply in a
transcript, a learner's name): each C0 or C1 control character, and DEL, is written out
as Python writes it in a string (`\\x1b`, `\\r`, `\\x9b`), so an escape sequence (a window
title, a cleared screen, OSC 52 writing the clipboard) is read, not obeyed.

What redis-cli itself prints is not the app's: `repl` and the panes stay byte-faithful to
redis-cli (which quotes the bytes of a bulk string but prints status and error replies as
they are); the panes draw through Textual, which shows a control character instead of
sending it. JSON keeps every value as it is: `json_text` writes control characters as
JSON's `\\u` escapes (json.dumps leaves DEL and C1 raw)."""

from __future__ import annotations

import re
from typing import Any

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 control characters and DEL: what a terminal obeys instead of showing."""

LINES = "\n\t"
"""What `visible` keeps of a text of several lines (a transcript, an export)."""

_RAW_IN_JSON = re.compile(r"[\x7f-\x9f]")  # (json.dumps escapes C0 itself)


def visible(text: str, keep: str = "") -> str:
    """`text` with each control character written out as Python writes it in a string.

    Args:
        text: someone else's words, or a text that holds them.
        keep: the control characters kept as they are (e.g. `LINES`: newline and tab).
    """
    if not CONTROL.search(text):
        return text
    return CONTROL.sub(lambda m: m[0] if m[0] in keep else m[0].encode("unicode_escape").decode("ascii"), text)


def json_text(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, **options)` with no raw control character in
    it: C0 as json.dumps writes it (`\\u001b`), DEL and C1 as `\\u007f` … `\\u009f`.

    Args:
        value: what to encode.
        options: more of json.dumps's options (`indent`, ...).
    """
    import json  # (here: the command line's start imports this module, and rarely writes JSON)

    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(value, ensure_ascii=False, **options))
