"""SVG snapshots of the main screens (pytest-textual-snapshot), on the bundled Valkey.

What varies from run to run (the temp socket path, memory, timers) is pinned in
`settle()` before the picture is taken; everything else is the real app on a real server.
Update after an intended change with: python -m pytest tests/tui/test_tui_snapshots.py --snapshot-update
"""


import pytest

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.key_inspector import KeyInspector
from pilot import started, type_command, wait_until
from commands import send
from pilot import run, settle


@pytest.fixture(autouse=True)
def no_flash(monkeypatch):
    monkeypatch.setattr(KeyInspector, "FLASH_SECONDS", 0.0)
    import playground.tui.scenario_runs.scenario_run as view

    monkeypatch.setattr(view, "clock", lambda seconds: "1:23")  # the scenario clock, pinned
    import playground.tui.widgets.key_inspector as inspector

    # a TTL counts down with the wall clock: shown to the next ten seconds (a 600 s lock: 600.0s)
    monkeypatch.setattr(inspector, "format_ttl", lambda info, now=None: "—" if info.ttl_left(now) is None
                        else f"{-(-info.ttl_left(now) // 10) * 10:.1f}s")


def test_empty(snap_compare):
    assert snap_compare(make_app("bundled"), terminal_size=(120, 35), run_before=run())


@pytest.mark.slow
def test_commands_in_both_panes(snap_compare):
    assert snap_compare(make_app("bundled"), terminal_size=(120, 35), run_before=run(
        ("A", "SET counter 4"), ("A", "GET counter"), ("B", "INCR counter"),
        ("B", "RPUSH queue a b c"), ("A", "HSET user:1 name Ada lang Lua"), ("A", "HGETALL user:1"),
        ("B", "GET nope"), ("B", "LPUSH counter x")))


@pytest.mark.slow
def test_transaction_with_dirty_watch(snap_compare):
    assert snap_compare(make_app("bundled"), terminal_size=(120, 35), run_before=run(
        ("A", "SET balance 150"), ("A", "WATCH balance"), ("A", "GET balance"),
        ("B", "SET balance 200"), ("A", "MULTI"), ("A", "DECRBY balance 100")))


def test_blocked_pane(snap_compare):
    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        pane = app.mode_screen.query_one("#pane-A", ClientPane)
        pane.query_one("CommandInput").value = "BLPOP jobs 0"
        pane.query_one("CommandInput").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: pane.state is not None and pane.state.blocked)
        await type_command(pilot, app, "B", "LLEN jobs")
        await settle(pilot, app)

    assert snap_compare(make_app("bundled"), terminal_size=(120, 35), run_before=run_before)


def test_inspector_with_many_keys(snap_compare):
    """255 keys: one SCAN sees them all (the scan budget is 300), so the 100 shown are
    the first by name on every run."""
    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        await send(app.executor, "B", [b"EVAL", (
            b"for i = 1, 250 do redis.call('SET', string.format('key:%03d', i), i) end "
            b"redis.call('RPUSH', 'list', 'a', 'b', 'c', 'd', 'e', 'f', 'g') "
            b"redis.call('SADD', 'set', 1, 2, 3) redis.call('ZADD', 'zs', 1, 'one', 2, 'two') "
            b"redis.call('HSET', 'h', 'f', 'v') redis.call('XADD', 'st', '1-1', 'field', 'value') return 1"), b"0"],
            quiet=True)
        app.mode_screen.query_one(KeyInspector).refresh_keys()
        await wait_until(pilot, lambda: app.mode_screen.query_one(KeyInspector).snapshot is not None
                         and app.mode_screen.query_one(KeyInspector).snapshot.total == 255)
        await settle(pilot, app)

    assert snap_compare(make_app("bundled"), terminal_size=(120, 35), run_before=run_before)


def _teaching_app():
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario

    return make_app("bundled", open_scenario=load_scenario(bundled_dir() / "watch-abort.toml"))


async def _step(pilot, app, times):
    for _ in range(times):
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.mode_screen.busy)


def test_narration_panel(snap_compare):
    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in app.narration.body.plain)
        app.scenario_run.speed_index = 0
        await _step(pilot, app, 3)
        await settle(pilot, app)

    assert snap_compare(_teaching_app(), terminal_size=(120, 40), run_before=run_before)


def test_timeline_screen(snap_compare):
    from playground.tui.dialogs.scenario_dialogs import TimelineScreen

    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in app.narration.body.plain)
        app.scenario_run.speed_index = 0
        await pilot.press("e")  # to the end: questions skipped
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        await settle(pilot, app)
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.pause()

    assert snap_compare(_teaching_app(), terminal_size=(120, 40), run_before=run_before)


# -- teaching mode in front of a class (issue 12): the three headline scenarios ----------

def _lesson(sid, challenge=False):
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario

    return make_app("bundled", open_scenario=load_scenario(bundled_dir() / f"{sid}.toml"), challenge=challenge)


def teach(steps=0, keys=(), answer=None, presenter=False):
    """Open the lesson, step `steps` times, press `keys` (a/b in a challenge), then either
    leave the prediction dialog of the next step up (`answer` == "ask") or not."""
    from playground.tui.dialogs.scenario_dialogs import PredictScreen

    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and not app.mode_screen.busy
                         and ("Challenge" in app.narration.body.plain or "Press Space" in app.narration.body.plain))
        app.scenario_run.speed_index = 0
        # the keys the lesson starts with are read before the first step: the key table's cursor
        # stays on the key it was on, so a first read only after a step put it on another row
        inspector = app.mode_screen.query_one(KeyInspector)
        inspector.refresh_keys()
        await wait_until(pilot, lambda: not inspector._loading and inspector.snapshot is not None)
        if app.scenario_run.stepper:
            app.scenario_run.answers = {i: s.predict.answer
                                        for i, (_, s) in enumerate(app.scenario_run.stepper.flat[:steps]) if s.predict}
        await _step(pilot, app, steps)
        for key in keys:
            await pilot.press(key)
            await wait_until(pilot, lambda: not app.mode_screen.busy)
        if presenter:
            await pilot.press("f")
        await settle(pilot, app)
        if answer == "ask":
            await pilot.press("space")
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        app.clear_notifications()
        app.scenario_run.render()
        await pilot.pause()
    return run_before


def test_teach_watch_abort_narration_80x24(snap_compare):
    assert snap_compare(_lesson("watch-abort"), terminal_size=(80, 24), run_before=teach(steps=3))


def test_teach_watch_abort_prediction_120x35(snap_compare):
    assert snap_compare(_lesson("watch-abort"), terminal_size=(120, 35), run_before=teach(steps=5, answer="ask"))


def test_teach_watch_abort_prediction_80x24(snap_compare):
    """The question's line of keys wraps inside the dialog (it was cut at "(not sc")."""
    assert snap_compare(_lesson("watch-abort"), terminal_size=(80, 24), run_before=teach(steps=5, answer="ask"))


def test_teach_pcall_prediction_with_script_160x45(snap_compare):
    assert snap_compare(_lesson("pcall"), terminal_size=(160, 45), run_before=teach(answer="ask"))


def test_teach_pcall_next_script_120x35(snap_compare):
    assert snap_compare(_lesson("pcall"), terminal_size=(120, 35), run_before=teach(steps=1))


@pytest.mark.slow
def test_teach_refresh_presenter_160x45(snap_compare):
    assert snap_compare(_lesson("refresh-double-spend"), terminal_size=(160, 45),
                        run_before=teach(steps=8, presenter=True))


def test_teach_watch_abort_presenter_120x35(snap_compare):
    assert snap_compare(_lesson("watch-abort"), terminal_size=(120, 35), run_before=teach(steps=4, presenter=True))


def test_teach_watch_abort_presenter_80x24(snap_compare):
    """A projector at 80×24: the commands and replies stay visible (bar and footer go)."""
    assert snap_compare(_lesson("watch-abort"), terminal_size=(80, 24), run_before=teach(steps=4, presenter=True))


def test_teach_pcall_presenter_script_120x35(snap_compare):
    """The next step's Lua source must not take the panes' room."""
    assert snap_compare(_lesson("pcall"), terminal_size=(120, 35), run_before=teach(steps=1, presenter=True))


@pytest.mark.slow
def test_teach_refresh_challenge_won_120x35(snap_compare):
    assert snap_compare(_lesson("refresh-double-spend", challenge=True), terminal_size=(120, 35),
                        run_before=teach(keys="abababab"))


@pytest.mark.slow
def test_teach_refresh_challenge_won_80x24(snap_compare):
    assert snap_compare(_lesson("refresh-double-spend", challenge=True), terminal_size=(80, 24),
                        run_before=teach(keys="abababab"))


# -- one screen per mode: each mode's footer and layout at the three sizes (issue 25) ------

SIZES = [(80, 24), (120, 35), (160, 45)]


def _free_play(pilot_commands=("SET balance 150", "GET balance")):
    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        for line in pilot_commands:
            await type_command(pilot, app, "A", line)
        await settle(pilot, app)
        app.clear_notifications()
        await pilot.pause()
    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mode_free_play(snap_compare, size):
    assert snap_compare(make_app("bundled"), terminal_size=size, run_before=_free_play())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mode_lesson(snap_compare, size):
    assert snap_compare(_lesson("watch-abort"), terminal_size=size, run_before=teach(steps=2))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mode_challenge(snap_compare, size):
    assert snap_compare(_lesson("lost-update", challenge=True), terminal_size=size, run_before=teach(keys=("a",)))
