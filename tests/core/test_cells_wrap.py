"""Line breaking in cells (playground/cells.py wrap/wrap_spans, tui/wrapped_text.Wrapped):
Chinese breaks between characters, English at spaces; no line starts with closing
punctuation or ends with opening punctuation; no symbol alone at a line's end; a note is
wrapped, never cut with "…"."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from playground.cells import wrap, wrap_spans, width
from playground.tui.widgets.wrapped_text import Wrapped

CLOSING = "，。、；：！？）」』】》,.;:!?)"
OPENING = "（「『【《(["
NOTE = ("A 的脚本（EVAL，已运行 3 秒）已经写过数据：杀掉它会留下一半的修改，所以 SCRIPT KILL 拒绝。"
        "只能等它结束，或者 SHUTDOWN NOSAVE（服务器停止，未保存的写入丢失）。")


@pytest.mark.parametrize("cells", range(6, 41))
def test_chinese_breaks_between_characters_and_keeps_punctuation_in_place(cells):
    lines = wrap(NOTE, cells)
    assert all(width(line) <= cells for line in lines)
    assert "".join(lines).replace(" ", "") == NOTE.replace(" ", "")  # nothing lost, nothing cut
    assert not any(line[0] in CLOSING for line in lines), lines
    assert not any(line[-1] in OPENING for line in lines), lines
    assert all(width(line) > cells - 12 for line in lines[:-1])  # not broken only at spaces


def test_english_breaks_at_spaces_and_a_long_word_is_cut():
    assert wrap("compare and delete in one script", 12) == ["compare and", "delete in", "one script"]
    assert wrap("averyveryverylongword x", 10) == ["averyveryv", "erylongwor", "d x"]
    assert wrap("", 10) == [] and wrap("   ", 10) == []


def test_a_lone_symbol_stays_with_the_word_after_it():
    for cells in range(4, 30):
        lines = wrap("下一步 ▸ 按空格继续，带 TTL 的 Key 会过期 → 再读一次", cells)
        assert not any(line.endswith(("▸", "→")) for line in lines), (cells, lines)
        assert not any(line.startswith(tuple(CLOSING)) for line in lines)


def test_spans_keep_a_paragraphs_indentation_and_leave_out_the_spaces_at_a_break():
    text = "  ↳ 原因：被 WATCH 的 Key 变了"
    assert [text[a:b] for a, b in wrap_spans(text, 14)] == ["  ↳ 原因：被", "WATCH 的 Key", "变了"]


def test_wrapped_text_keeps_styles_and_is_never_cut_with_an_ellipsis():
    note = Text("↳ 原因：", style="bold") + Text(NOTE, style="yellow")
    grid = Table.grid(expand=True)  # as the client pane lays out a why-note: a hanging indent
    grid.add_column(width=8, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(note[:5], Wrapped(note[5:]))
    console = Console(width=40, record=True, color_system=None)
    console.print(grid)
    shown = console.export_text()
    assert "…" not in shown and all(width(line) <= 40 for line in shown.splitlines())
    assert "".join(line[8:].strip() if i else line.strip() for i, line in enumerate(shown.splitlines())
                   ).replace(" ", "").endswith(NOTE.replace(" ", "")[-20:])
    lines = Wrapped(note).lines(20)
    # styles kept
    assert all(line.style == "bold" and [s.style for s in line.spans] == ["yellow"] for line in lines[1:])
    assert not any(line.plain[:1] in CLOSING for line in lines)
