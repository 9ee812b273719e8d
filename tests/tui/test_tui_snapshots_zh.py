"""SVG snapshots of the app in Chinese (--lang zh), on the bundled Valkey: the narration
panel, the prediction dialog, the timeline, and the panes and inspector with Chinese key
names. CJK characters take two cells each: the borders, columns and the timeline's lanes
must still line up (look at each picture before accepting it).

Update after an intended change with:
python -m pytest tests/tui/test_tui_snapshots_zh.py --snapshot-update
"""

import pytest

from playground.i18n import set_language
from playground.tui.app import make_app
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.dialogs.scenario_dialogs import PredictScreen, TimelineScreen
from pilot import started, wait_until
from pilot import run, settle

FIRST_STEP = "按空格"  # the narration panel's first message, in Chinese


@pytest.fixture(autouse=True)
def no_flash(monkeypatch):
    monkeypatch.setattr(KeyInspector, "FLASH_SECONDS", 0.0)
    import playground.tui.scenario_runs.scenario_run as view

    monkeypatch.setattr(view, "clock", lambda seconds: "1:23")  # the scenario clock, pinned (it read 0:01 under load)
    import playground.tui.widgets.key_inspector as inspector

    # a TTL counts down with the wall clock: shown to the next ten seconds (a 600 s lock: 600.0s)
    monkeypatch.setattr(inspector, "format_ttl", lambda info, now=None: "—" if info.ttl_left(now) is None
                        else f"{-(-info.ttl_left(now) // 10) * 10:.1f}s")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en")  # the app set the process's interface language


def _teaching_app():
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario

    return make_app("bundled", open_scenario=load_scenario(bundled_dir() / "watch-abort.toml", "zh"), lang="zh")


async def _open(pilot):
    app = pilot.app
    await started(pilot, app)
    await wait_until(pilot, lambda: app.scenario_run is not None and FIRST_STEP in app.narration.body.plain)
    app.scenario_run.speed_index = 0
    return app


async def settle_under_dialog(pilot, app):
    """settle() without waiting for the teaching worker, which waits for the dialog."""
    from playground.tui.widgets.server_bar import ServerBar

    bar = app.mode_screen.query_one(ServerBar)
    bar.where = "/tmp/redis-playground-…/redis.sock"
    bar.show_stats = False
    inspector = app.mode_screen.query_one(KeyInspector)
    await wait_until(pilot, lambda: not inspector._loading)
    await pilot.pause()


async def _step(pilot, app, times):
    for _ in range(times):
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.mode_screen.busy)


async def _step_to_question(pilot, app):
    """Space until the next step asks its question (e runs to the end without asking)."""
    for _ in range(len(app.scenario_run.stepper.flat)):
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen) or not app.mode_screen.busy)
        if isinstance(app.screen, PredictScreen):
            return
    raise AssertionError("no question in the scenario")


def test_narration_panel_in_chinese(snap_compare):
    async def run_before(pilot):
        app = await _open(pilot)
        await _step(pilot, app, 3)
        await settle(pilot, app)
        assert "第 4 步，共 11 步" in app.narration.body.plain

    assert snap_compare(_teaching_app(), terminal_size=(120, 40), run_before=run_before)


def test_prediction_dialog_in_chinese(snap_compare):
    async def run_before(pilot):
        app = await _open(pilot)
        await _step_to_question(pilot, app)
        await settle_under_dialog(pilot, app)

    assert snap_compare(_teaching_app(), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.slow
def test_timeline_in_chinese(snap_compare):
    async def run_before(pilot):
        app = await _open(pilot)
        await _step_to_question(pilot, app)
        await pilot.press("3")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        await pilot.press("e")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        await settle(pilot, app)
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.pause()

    assert snap_compare(_teaching_app(), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.slow
def test_chinese_key_names_in_chinese(snap_compare):
    assert snap_compare(make_app("bundled", lang="zh"), terminal_size=(120, 35), run_before=run(
        ("A", "SET 余额 150"), ("A", "WATCH 余额"), ("B", "SET 余额 200"), ("B", "HSET 用户:1 名字 小明"),
        ("A", "MULTI"), ("A", "DECRBY 余额 100")))


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
def test_a_why_note_and_the_lanes_in_chinese(snap_compare, size):
    """Up to A's aborted EXEC: its why-note wraps in the pane (never cut with "…"), and the
    lanes' columns line up beside Chinese text, at the two sizes a class meets most."""
    async def run_before(pilot):
        app = await _open(pilot)
        for _ in range(6):  # a question on the way is skipped (Escape)
            await pilot.press("space")
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen) or not app.mode_screen.busy)
            if isinstance(app.screen, PredictScreen):
                await pilot.press("escape")
                await wait_until(pilot, lambda: not app.mode_screen.busy)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        assert "第 7 步，共 11 步" in app.narration.body.plain

    assert snap_compare(_teaching_app(), terminal_size=size, run_before=run_before)
