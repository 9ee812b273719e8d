"""Text laid out in terminal cells, not characters: 余 takes two cells, e and é one.

`pad`, `cut` and `wrap` are what a column layout needs (transcripts, timelines, panes).
Width comes from `rich.cells` (Rich's own Unicode tables; importing it does not import Textual).
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

__all__ = ["width", "pad", "cut", "wrap", "wrap_spans", "chop"]

# Where a line may break (after Unicode's line breaking rules, UAX #14, for what our texts
# hold): at a space, or between two characters when either is wide (CJK); never before
# closing punctuation (，。、：；！？）」』】 and ASCII .,;:!?) ...), never after opening
# punctuation (（「『【 ...), and never after a lone symbol ("▸ ", "→ ", "↳ "), which
# stays with the word after it.
_NO_BREAK_BEFORE = set("，。、：；！？）」』】〕〉》〗〙〛”’・ー～…—‥,.;:!?)]}%")
_NO_BREAK_AFTER = set("（「『【〔〈《〖〘〚“‘([{$")
_SYMBOLS = set("▸▶►•·→←↳↲⇒✓✗✘⏸#*-–—")

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


def _may_break_between(a: str, b: str) -> bool:
    """Whether a line may break between two adjacent non-space characters."""
    if b in _NO_BREAK_BEFORE or a in _NO_BREAK_AFTER:
        return False
    return _is_wide(a) or _is_wide(b)


def _words(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each unit that is not broken: runs of spaces, and runs of
    non-space characters between break opportunities; a lone symbol joins the space and
    the unit after it (so "▸" never ends a line alone)."""
    words: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i < len(text):
            a, b = text[i - 1], text[i]
            if a.isspace() == b.isspace() and (a.isspace() or not _may_break_between(a, b)):
                continue
        words.append((start, i))
        start = i
    glued: list[tuple[int, int]] = []
    for start, end in words:
        after_space = len(glued) >= 2 and text[glued[-1][0]].isspace() and not text[start].isspace()
        if after_space and (all(c in _SYMBOLS for c in text[slice(*glued[-2])]) or text[start] in _NO_BREAK_BEFORE):
            glued[-2:] = [(glued[-2][0], end)]  # "▸ word", "(nil) 。": one unit
        else:
            glued.append((start, end))
    return glued


def wrap_spans(text: str, cells: int) -> list[tuple[int, int]]:
    """The (start, end) in `text` (one paragraph, no newline) of each line of at most
    `cells` cells: spaces at a break are left out (the paragraph's leading ones kept);
    a unit wider than a line is cut."""
    cells = max(cells, 2)
    lines: list[tuple[int, int]] = []
    line_start: int | None = None  # the first character of the line being filled
    line_end, used = 0, 0  # its end without trailing spaces, and the cells up to there
    pending = 0  # cells of the spaces after line_end
    if text[:1].isspace() and text.strip():
        line_start = 0  # a paragraph's indentation is kept (on its first line)
    for start, end in _words(text):
        if text[start].isspace():
            if line_start is not None:
                pending += cell_len(text[start:end])
            continue
        w = cell_len(text[start:end])
        if line_start is not None and used + pending + w > cells:
            lines.append((line_start, line_end))
            line_start, used, pending = None, 0, 0
        if line_start is None:
            line_start, used, pending = start, 0, 0
        else:
            used += pending
            pending = 0
        while used + w > cells:  # a unit wider than what is left of a whole line: cut it
            room, taken = cells - used, start
            while taken < end and cell_len(text[start:taken + 1]) <= room:
                taken += 1
            while start + 1 < taken < end and (text[taken] in _NO_BREAK_BEFORE or text[taken - 1] in _NO_BREAK_AFTER):
                taken -= 1  # not "，" first on the next line, nor "（" last on this one
            if taken == start and used == 0:
                taken += 1  # a wide character in a line of less than two cells
            lines.append((line_start, taken))
            line_start, start, used = taken, taken, 0
            w = cell_len(text[start:end])
        used += w
        line_end = end
    if line_start is not None:
        lines.append((line_start, line_end))
    return lines


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
    one piece. Linear in the line's length (a reply of 200 KB is one line)."""
    cells = max(cells, 2)
    pieces, pos, end = [], 0, len(line)
    while True:
        fits = _fitting(line, pos, cells)
        if pos + fits >= end:
            break
        at = line.rfind(" ", pos + 1, min(pos + fits + 1, end))  # the last space within reach
        if at != -1 and not line[pos:at].strip():  # (only spaces before it: no break there)
            at = -1
        if at == -1:
            pieces.append(line[pos:pos + fits])
            pos += fits
            continue
        pieces.append(line[pos:at + 1] if at + 1 - pos <= fits else line[pos:at])
        pos = at + 1
    rest = line[pos:]
    return pieces + [rest] if rest or not pieces else pieces


def _fitting(line: str, start: int, cells: int) -> int:
    """How many characters of `line` from `start` fit in `cells` cells (a wide character
    that would be split in half does not)."""
    used = 0
    for i in range(start, len(line)):
        used += cell_len(line[i])
        if used > cells:
            return i - start
    return len(line) - start


def wrap(text: str, cells: int) -> list[str]:
    """Lines of at most `cells` cells: English breaks at spaces, Chinese between characters
    (see _may_break_between); runs of spaces and newlines count as one space. A word longer
    than a line is cut into pieces. Empty text gives no lines (like textwrap)."""
    text = " ".join(text.split())
    return [text[start:end] for start, end in wrap_spans(text, cells)]
