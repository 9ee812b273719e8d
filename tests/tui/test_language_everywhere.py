"""After F12 the screen speaks one language (issue 44): a pane's state line, the lanes'
why notes, the dialogs open (a confirmation, F1's help, a question), the footer behind a
dialog, the empty panes' hints; and a dialog's question is wrapped, never cut."""

import pytest

from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.dialogs.scenario_dialogs import PredictScreen
from playground.tui.widgets.key_footer import KeyFooter
from playground.tui.widgets.lanes_view import LanesView
from pilot import started, state_text, wait_until
from pilot import opened, press_and_wait, scenario
from pilot import screen

pytestmark = [pytest.mark.server, pytest.mark.tui]


async def test_state_line_and_lanes_follow_f12(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("ctrl+t")
        for _ in range(5):
            await press_and_wait(pilot, app, "space")
        await pilot.press("space")                       # EXEC, after its question
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        lanes = app.mode_screen.query_one(LanesView)
        await wait_until(pilot, lambda: "why" in lanes.text(120)[1].plain)
        assert "EXEC aborted" in state_text(app, "A")
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.lang == "zh")
        await pilot.pause()
        assert "EXEC 被放弃" in state_text(app, "A") and "aborted" not in state_text(app, "A")
        rows = lanes.text(120)[1].plain
        assert "原因" in rows and "changed WATCHed" not in rows, rows
        await pilot.press("f12")                         # and back
        await wait_until(pilot, lambda: app.lang == "en")
        await pilot.pause()
        assert "EXEC aborted" in state_text(app, "A") and "changed WATCHed" in lanes.text(120)[1].plain


async def test_open_dialogs_and_the_footer_behind_them_follow_f12(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("set-nx-lock"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await pilot.press("x")                           # close? (asks)
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.lang == "zh")
        await pilot.pause()
        shown = screen(app)
        assert "关闭 set-nx-lock" in shown and "Close set-nx-lock" not in shown, shown
        footer = app.mode_screen.query_one(KeyFooter)   # behind the dialog
        assert "帮助" in " ".join(str(getattr(w, "description", "")) for w in footer.children)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.lang == "en")
        await pilot.pause()
        assert "this help" in screen(app) and "帮助" not in screen(app)


async def test_a_question_is_wrapped_whole_at_80_columns(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("pcall"))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot, app)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.pause()
        shown = screen(app)
        assert "What is left on the" in shown and "server?" in shown, shown


async def test_the_first_run_hints_follow_f12(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: "Start here" in screen(app))
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.lang == "zh")
        await pilot.pause()
        assert "Start here" not in screen(app) and "F7" in screen(app)
