"""Teaching mode as a teacher uses it in front of a class, and the learner's conveniences
around it: Pilot on a real server (issue 12)."""

import pytest
from textual.widgets import Static

import playground.tui.app as app_module
from playground.scenario.library import bundled_dir
from playground.scenario.model import load_scenario
from playground.tui.app import make_app
from playground.tui.command_input import CommandInput
from playground.tui.confirm import ConfirmScreen
from playground.tui.info_screens import InfoScreen
from playground.tui.narration import NarrationPanel
from playground.tui.teaching_screens import PredictScreen, ScenarioPicker, choice_label
from test_tui import log_text, started, type_command, wait_until
from test_tui_teaching import opened, panel_text, press_and_wait, scenario


@pytest.fixture(autouse=True)
def quick_autoplay(monkeypatch):
    monkeypatch.setattr(app_module, "AUTOPLAY_PAUSE", 0.05)


def hint(app, client="A") -> str:
    return str(app.query_one(f"#pane-{client} #hint", Static).render())


def state_line(app, client) -> str:
    return str(app.query_one(f"#pane-{client} #state", Static).render())


async def test_reverse_search_is_incremental_like_readline(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        for line in ["SET user:1 ada", "GET other", "SET user:2 bob", "PING"]:
            await type_command(pilot, app, "A", line)
        field = app.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press("ctrl+r", *"us")
        assert field.value == "SET user:2 bob"
        await wait_until(pilot, lambda: "reverse-i-search)`us'" in hint(app))
        await pilot.press("e", "r", ":", "1")  # narrows to the older line
        assert field.value == "SET user:1 ada"
        await pilot.press("backspace", "backspace", "ctrl+r")  # "user": newest, then older
        assert field.value == "SET user:1 ada"
        await pilot.press("escape")  # cancels: back to what was typed
        assert field.value == "" and "reverse-i-search" not in hint(app)
        await pilot.press("ctrl+r", *"oth", "enter")  # Enter keeps the match, does not send it
        assert field.value == "GET other"
        assert log_text(app, "A")[-1] != "A> GET other"
        await pilot.press("enter")
        await wait_until(pilot, lambda: log_text(app, "A")[-2:] == ["A> GET other", "(nil)"])


async def test_tab_mid_command_stays_in_the_input(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        field = app.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press(*"SET k zzz", "tab")  # nothing to complete
        assert app.focused is field and field.value == "SET k zzz"
