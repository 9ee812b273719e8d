"""Server order on screen (scenario/lanes.py): rows in the order the server ran them,
MULTI…EXEC and scripts as one block at EXEC time, part boundaries, wide text in cells;
and what `run` prints with it. On both servers."""

import json
import re
import subprocess
import sys

from playground.cells import width
from playground.engine.executor import Executor
from playground.scenario import lanes

CJK = re.compile(r"[\u4e00-\u9fff]")


async def play(pg, *steps):
    ex = Executor(pg, explain="en")
    for step in steps:
        client, _, line = step.partition("> ")
        await ex.run_line(client, line)
    return lanes.rows_from_order(pg.order.rows)


async def test_rows_in_server_order_with_a_transaction_as_one_block_at_exec_time(pg):
    await pg.reset([[b"SET", b"balance", b"100"]], label="the race")
    rows = await play(pg, "A> WATCH balance", "B> DECRBY balance 30", "A> MULTI", "A> DECRBY balance 50",
                      "B> GET balance", "A> EXEC", "B> EVAL \"return redis.call('INCR', KEYS[1])\" 1 n")
    assert [(r.seq, r.client, r.lines) for r in rows] == [
        (None, "", ["part: the race"]),
        (1, "A", ["WATCH balance"]),
        (2, "B", ["DECRBY balance 30"]),
        (5, "B", ["GET balance"]),                                 # before the EXEC, though typed after MULTI
        (6, "A", ["MULTI", "DECRBY balance 50", "EXEC"]),           # one block, at EXEC time
        (7, "B", ["EVAL \"return redis.call('INCR', KEYS[1])\" 1 n"])]
    tx, script = rows[4], rows[5]
    assert tx.reply == "(nil)" and not tx.atomic and "aborted" in tx.note
    assert tx.whys and "B changed WATCHed balance (DECRBY balance 30, #2)" in tx.whys[0]
    assert script.atomic and script.reply == "(integer) 1"
    text = lanes.render_text(rows, ("A", "B"))
    lines = text.splitlines()
    assert lines[0].split() == ["#", "│", "A", "│", "B"]
    assert "part: the race" in lines[2]
    numbered = [line.split("│")[0].strip() for line in lines[3:] if line[:4].strip().isdigit()]
    assert numbered == ["1", "2", "5", "6", "7"]
    block = lines[lines.index(next(x for x in lines if x.startswith("   6"))):]
    assert "┌" in block[0] and "│ MULTI" in block[1] and "DECRBY balance 50" in block[2] and "EXEC" in block[3]
    assert any(line.startswith("  ↳ why: B changed WATCHed balance") for line in lines)
    assert all(width(line) <= 80 for line in lines)


async def test_committed_transaction_and_markdown(pg):
    rows = await play(pg, "A> MULTI", "A> SET a 1", "B> SET b 2", "A> INCR a", "A> EXEC")
    assert [(r.seq, r.client) for r in rows] == [(3, "B"), (5, "A")]
    assert rows[1].atomic and rows[1].reply == "1) OK …"
    md = lanes.render_markdown(rows, ("A", "B"))
    assert md.splitlines()[0] == "| # | A | B |"
    assert "| 5 | **one block:** `MULTI`<br>`SET a 1`<br>`INCR a`<br>`EXEC`" in md


async def test_wide_text_lines_up_in_cells(pg):
    key = "用户会话:令牌轮换:一个相当长的键名用来测试换行是否按单元格计算"
    rows = await play(pg, f"A> SET {key} 值", f"B> GET {key}", "A> MULTI", f"A> APPEND {key} 余额",
                      "A> EXEC", 'B> EVAL "return 1" 0')
    for total in (80, 61):
        text = lanes.render_text(rows, ("A", "B"), total)
        lane_lines = [line for line in text.splitlines() if "│" in line]
        assert any(CJK.search(line) for line in lane_lines)
        lane = lanes.lane_width(("A", "B"), total)
        for line in lane_lines:  # the separators sit at the same cell column on every line
            assert at_cell(line, 5) == "│", line
            if width(line) > 5 + lane + 3:
                assert at_cell(line, 5 + lane + 3) == "│", line
        assert all(width(line) <= total for line in text.splitlines())
        lane_a = "".join(line.split(" │ ")[1].strip(" │") for line in lane_lines if line.count(" │ ") >= 1)
        assert "SET" + key + "值" in lane_a.replace(" ", "")


def at_cell(line: str, cell: int) -> str:
    used = 0
    for char in line:
        if used == cell:
            return char
        used += width(char)
    return ""


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True, timeout=120)


def test_run_text_prints_the_server_order_and_the_why(server_binary):
    result = run_cli("run", "watch-abort", "--server", server_binary.path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Server order (#: when the server ran it" in out
    assert "      ↳ why: B changed WATCHed balance (SET balance 200, #3)" in out
    order = out[out.index("Server order"):]
    assert re.search(r"^      6 │ ┌", order, re.M) and "│ │ DECRBY balance 100" in order


def test_run_json_has_a_why_field_on_every_step(server_binary):
    result = run_cli("run", "watch-abort", "--format", "json", "--server", server_binary.path)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert all("why" in r for r in rows)
    explained = [r for r in rows if r["why"]]
    assert [r["step"] for r in explained] == [6]
    assert explained[0]["why"][0]["kind"] == "changed" and explained[0]["why"][0]["seq"] == 6


def test_run_chinese_why(server_binary):
    result = run_cli("run", "watch-abort", "--lang", "zh", "--format", "json", "--server", server_binary.path)
    why = [r for r in map(json.loads, result.stdout.splitlines()) if r["why"]][0]["why"][0]
    assert why["text"].startswith("A WATCH 之后（#1），B 改了被 WATCH 的 balance")


async def test_a_blocks_note_is_in_the_interface_language(pg):
    """The lanes' "(aborted: …)" and "(one script: …)" notes follow the language (issue 28)."""
    from playground.i18n import set_language, tr_in

    await pg.reset([[b"SET", b"k", b"1"]])
    try:
        set_language("zh")
        rows = await play(pg, "A> WATCH k", "B> SET k 2", "A> MULTI", "A> INCR k", "A> EXEC",
                          "B> EVAL \"return 1\" 0")
    finally:
        set_language("en")
    notes = [r.note for r in rows if r.note]
    assert notes == [tr_in("zh", "aborted: nothing ran (a WATCHed key changed)"),
                     tr_in("zh", "one script: nothing interleaves")]
    assert all(CJK.search(note) for note in notes)
