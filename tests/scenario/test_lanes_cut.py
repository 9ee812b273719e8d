"""The server order's lanes cut long commands and replies as a pane cuts a long reply
(scenario/lanes.py): before, a 200 KB reply was laid out whole, in thousands of lines, on
every draw (and folding it took time growing with the square of its length), and Ctrl+T
froze the app for 20-60 s. Each unit's row is made once; the lanes view lays out the
newest rows that fit SHOWN_TEXT characters."""

from __future__ import annotations

import pytest
from commands import line

from playground.cells import fold, width
from playground.scenario import lanes

pytestmark = [pytest.mark.server]

BIG = 200 * 1024


async def test_a_long_command_and_reply_are_cut_and_say_how_much(pg):
    await line(pg, "A", [b"SET", b"big", b"x" * BIG])
    await line(pg, "A", [b"GET", b"big"])
    set_row, get_row = lanes.rows_from_order(list(pg.order.rows))
    command, = set_row.lines
    assert command.startswith("SET big xxx") and len(command) < lanes.SHOWN_CHARS + 100
    assert command.endswith(f"… ({BIG + 8 - lanes.SHOWN_CHARS:,} more bytes of this command not shown)")
    assert get_row.reply.startswith('"xxx') and len(get_row.reply) < lanes.SHOWN_CHARS + 100
    assert get_row.reply.endswith(f"… ({BIG + 2 - lanes.SHOWN_CHARS:,} more bytes of this reply not shown)")
    laid_out = lanes.layout([set_row, get_row], ("A", "B"), 120)
    assert len(laid_out) < 2 * (lanes.SHOWN_CHARS // 40 + 6)  # tens of lines, not thousands


async def test_a_long_transaction_shows_its_first_commands_and_its_end(pg):
    commands = [[b"MULTI"], *[[b"INCR", b"n%d" % i] for i in range(120)], [b"EXEC"]]
    for argv in commands:
        await line(pg, "A", argv, refresh=False)
    row, = lanes.rows_from_order(list(pg.order.rows))
    assert len(row.lines) == lanes.SHOWN_COMMANDS
    assert row.lines[0] == "MULTI" and row.lines[-1] == "EXEC"
    assert row.lines[-2] == f"… ({122 - (lanes.SHOWN_COMMANDS - 1):,} more commands not shown)"
    assert row.lines[-3] == f"INCR n{lanes.SHOWN_COMMANDS - 4}"


async def test_each_units_row_is_made_once_and_its_whys_follow(pg, monkeypatch):
    await line(pg, "A", [b"SET", b"k", b"1"])
    await line(pg, "B", [b"GET", b"k"])
    made = []
    real = lanes.row_for
    monkeypatch.setattr(lanes, "row_for", lambda unit, *a, **k: made.append(unit) or real(unit, *a, **k))
    memo: dict = {}
    first = lanes.rows_from_order(list(pg.order.rows), memo)
    order_rows = list(pg.order.rows)
    order_rows[1].whys.append("because")
    again = lanes.rows_from_order(order_rows, memo)
    assert len(made) == 2  # not again for the second drawing
    assert [r.lines for r in first] == [r.lines for r in again]
    assert first[1].whys == [] and again[1].whys == ["because"]


def test_the_lanes_view_lays_out_the_newest_rows_that_fit():
    rows = [lanes.LaneRow(i, "A", ["x" * 1000]) for i in range(500)]
    kept = lanes.newest_within(rows, 64 * 1024)
    assert kept == rows[-65:] and kept[-1].seq == 499  # 65 × 1000 characters fit in 64 KiB
    assert lanes.newest_within([lanes.LaneRow(1, "A", ["x" * 100_000])], 10) != []  # the newest, always


def test_fold_keeps_every_character_of_a_long_line():
    text = ("word " * 30_000) + "x" * 100_000
    pieces = fold(text, 55)
    assert "".join(pieces) == text
    assert all(width(p) <= 55 for p in pieces)
