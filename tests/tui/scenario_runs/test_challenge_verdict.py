"""A challenge's verdict: the goal's keys as the key inspector shows them, whatever their
type (a zset, a list), or absent, in English and in Chinese; and words that fit a goal
that is the correct behaviour, not only a race."""

import pytest
from commands import send
from pilot import started, wait_until
from pilot import panel_text, press_and_wait

from playground.engine.key_reader import Inspector
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.key_table import KeyTable

pytestmark = [pytest.mark.server]

LOCK_HELD = """
title = "The lock held"
title_zh = "锁守住了"
lesson = "Two workers, one lock."
lesson_zh = "两个工作者，一把锁。"

[challenge]
goal = "Schedule A and B so that the lock held: one worker recorded, both in the log."
goal_zh = "安排 A 和 B，让锁守住：只记录了一个工作者，日志里有两条。"

[challenge.state]
board = { zcard = 2 }
log = { llen = 2 }
stray = { absent = true }

[[steps]]
client = "A"
command = "ZADD board 1 a"

[[steps]]
client = "A"
command = "RPUSH log a"

[[steps]]
client = "B"
command = "ZADD board 2 b"

[[steps]]
client = "B"
command = "RPUSH log b"
"""


def lock_held(tmp_path):
    path = tmp_path / "lock-held.toml"
    path.write_text(LOCK_HELD)
    return path


async def test_rows_read_as_the_inspector_shows_each_type(pg):
    """Inspector.rows (what a verdict shows) is the snapshot's row of each key, every type;
    a key that does not exist has no row."""
    for argv in ([b"SET", b"s", b"v"], [b"RPUSH", b"l", b"x", b"y"], [b"SADD", b"set", b"m"],
                 [b"ZADD", b"z", b"1", b"one", b"2", b"two"], [b"HSET", b"h", b"f", b"v"],
                 [b"XADD", b"st", b"1-1", b"k", b"v"]):
        await send(pg, "A", argv)
    names = [b"s", b"l", b"set", b"z", b"h", b"st", b"nothing"]
    rows = await pg.reader.rows(names)
    fresh = Inspector(pg.address)
    await fresh.connect()
    try:
        shown = {k.name: k for k in (await fresh.snapshot()).keys}
    finally:
        await fresh.close()
    assert set(rows) == set(names) - {b"nothing"}
    for name, row in rows.items():
        assert (row.type, row.size, row.preview) == (shown[name].type, shown[name].size, shown[name].preview)
    assert rows[b"z"].preview == '["one": "1", "two": "2"]' and rows[b"z"].type == "zset"
    assert rows[b"l"].preview == '["x", "y"]' and rows[b"l"].size == 2


async def test_a_won_challenge_shows_every_goal_key_as_the_inspector_does(server_binary, tmp_path):
    app = make_app(server_binary.path, open_scenario=load_scenario(lock_held(tmp_path)), challenge=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
        app.scenario_run.speed_index = 0
        for key in "abab":
            await press_and_wait(pilot, app, key)
        text = panel_text(app)
        # the server's own state, read apart from the app
        assert await send(app.executor, "A", [b"ZRANGE", b"board", b"0", b"-1", b"WITHSCORES"], quiet=True) \
            == [b"a", b"1", b"b", b"2"]
        assert await send(app.executor, "A", [b"LRANGE", b"log", b"0", b"-1"], quiet=True) == [b"a", b"b"]
        assert ('Final values: board = ["a": "1", "b": "2"] (zset), log = ["a", "b"] (list), stray is absent'
                in text), text
        assert "(nil)" not in text
        assert "✓ Won: the real server ended in the goal's state" in text and "race" not in text
        # the key inspector shows the same values
        table = app.mode_screen.query_one(KeyTable)
        await wait_until(pilot, lambda: table.row_count == 2)
        cells = {table.row(i)[0].plain: table.row(i)[3].plain for i in range(table.row_count)}
        assert cells == {"board": '["a": "1", "b": "2"]', "log": '["a", "b"]'}
        await pilot.press("f12")  # the verdict in Chinese, the values as they are
        await wait_until(pilot, lambda: "最终值" in panel_text(app))
        text = panel_text(app)
        assert 'board = ["a": "1", "b": "2"]（zset）' in text and "stray 不存在" in text
        assert "Final" not in text and "absent" not in text


async def test_a_lost_challenge_shows_what_the_server_ended_with(server_binary):
    from pilot import scenario

    app = make_app(server_binary.path, open_scenario=scenario("oversell"), challenge=True, lang="zh")
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "挑战" in panel_text(app))
        app.scenario_run.speed_index = 0
        for key in "aaabbb":  # one after the other: sold once
            await press_and_wait(pilot, app, key)
        await wait_until(pilot, lambda: app.scenario_run.won is False)
        orders = await send(app.executor, "A", [b"LRANGE", b"orders", b"0", b"-1"], quiet=True)
        assert len(orders) == 1
        text = panel_text(app)
        assert "最终值：orders = [" in text and "（list）" in text, text
        assert "(nil)" not in text
