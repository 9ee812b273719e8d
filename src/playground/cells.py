"""Text laid out in terminal cells, not characters: 余 takes two cells, e and é one.

`pad`, `cut` and `wrap` are what a column layout needs (transcripts, timelines, panes).
Width comes from `rich.cells` (Rich's own Unicode tables; importing it does not import Textual).
"""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size

__all__ = ["width", "pad", "cut", "wrap"]

# A break may come after a space or between two wide characters; closing punctuation
# (，。、：；！？）」』 and ASCII .,;:!?) stays with what it closes.
_TOKENS = re.compile(r"\s+|[^\s]")
_NO_BREAK_BEFORE = set("，。、：；！？）」』》〉…—,.;:!?)]}")


def width(text: str) -> int:
    """How many terminal cells `text` takes."""
    return cell_len(text)


def cut(text: str, cells: int) -> str:
    """The longest start of `text` that fits in `cells` cells (a wide character that would
    be split in half is left out)."""
    if cells <= 0:
        return ""
    if cell_len(text) <= cells:
        return text
    out, used = [], 0
    for char in text:
        w = cell_len(char)
        if used + w > cells:
            break
        out.append(char)
        used += w
    return "".join(out)


def pad(text: str, cells: int) -> str:
    """`text` cut or filled with spaces to exactly `cells` cells."""
    if cells <= 0:
        return ""
    return set_cell_size(text, cells)


def _is_wide(char: str) -> bool:
    return cell_len(char) > 1


def _words(text: str) -> list[str]:
    """Units that are not broken: runs of narrow non-space characters, single wide
    characters (with any closing punctuation after them), and runs of spaces."""
    words: list[str] = []
    for token in _TOKENS.findall(text):
        if token.isspace():
            words.append(" ")
            continue
        prev = words[-1] if words else " "
        if prev != " " and (token in _NO_BREAK_BEFORE or not (_is_wide(token) or _is_wide(prev[-1]))):
            words[-1] = prev + token
        else:
            words.append(token)
    return words


def chop(line: str, cells: int) -> list[str]:
    """`line` cut into pieces of at most `cells` cells, not re-flowed at spaces (a command
    or reply is shown as typed, continued on the next line). Empty text gives one piece."""
    pieces, piece, used = [], "", 0
    for char in line:
        w = width(char)
        if used + w > cells and piece:
            pieces.append(piece)
            piece, used = "", 0
        piece, used = piece + char, used + w
    return pieces + [piece] if piece or not pieces else pieces


def fold(line: str, cells: int) -> list[str]:
    """`line` in pieces of at most `cells` cells, broken at the last space that fits
    (nothing re-flowed or collapsed: a reply's own spacing stays; the space a piece ends
    at is kept when it fits); a run with no space is cut as `chop` does. Empty text gives
    one piece."""
    cells = max(cells, 2)
    pieces = []
    while width(line) > cells:
        fits = len(cut(line, cells))
        at = max((i for i in range(1, min(fits + 1, len(line))) if line[i] == " " and line[:i].strip()),
                 default=None)
        if at is None:
            pieces.append(line[:fits])
            line = line[fits:]
            continue
        pieces.append(line[:at + 1] if at + 1 <= fits else line[:at])
        line = line[at + 1:]
    return pieces + [line] if line or not pieces else pieces


def wrap(text: str, cells: int) -> list[str]:
    """Lines of at most `cells` cells: English breaks at spaces, Chinese between characters.
    A word longer than a line is cut into pieces. Empty text gives no lines (like textwrap)."""
    cells = max(cells, 2)
    lines: list[str] = []
    line, used = "", 0
    for word in _words(" ".join(text.split())):
        w = cell_len(word)
        if word == " ":
            if line:
                line, used = line + " ", used + 1
            continue
        if used + w > cells and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
        while w > cells:  # a word wider than a whole line
            head = cut(word, cells - used)
            lines.append(line + head)
            word, line, used = word[len(head):], "", 0
            w = cell_len(word)
        line, used = line + word, used + w
    if line.strip():
        lines.append(line.rstrip())
    return lines
