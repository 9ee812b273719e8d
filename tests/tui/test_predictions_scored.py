"""A prediction is never scored against the server: in the TUI, when the server answers
otherwise than the lesson (here because the learner typed over a key), the panel says
why and the prediction counts neither right nor wrong."""

import pytest

import playground.tui.screens.scenario_screen as app_module
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.dialogs.scenario_dialogs import PredictScreen
from pilot import type_command, wait_until
from pilot import opened, panel_text, press_and_wait
from servers import shared

LESSON = '''
title = "typed over"
lesson = "x"

[[steps]]
client = "A"
command = "SET n 1"
reply = "OK"

[[steps]]
client = "B"
command = "INCR n"
reply = "(integer) 2"

[steps.predict]
question = "What does INCR answer?"
choices = ["1", "2"]
answer = 2
explain = "1 + 1."
'''


@pytest.fixture(autouse=True)
def quick_autoplay(monkeypatch):
    monkeypatch.setattr(app_module, "AUTOPLAY_PAUSE", 0.05)


def lesson_app(server_binary, tmp_path):
    """The app on LESSON (written where the test may write)."""
    path = tmp_path / "typed-over.toml"
    path.write_text(LESSON)
    return make_app(server=shared(server_binary), open_scenario=load_scenario(path))


async def test_a_prediction_is_not_scored_when_the_learners_typing_changed_the_reply(server_binary, tmp_path):
    app = lesson_app(server_binary, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        await type_command(pilot, app, "B", "SET n 10")
        await wait_until(pilot, lambda: "You typed SET n 10 in B at step 2 by hand" in panel_text(app))
        app.mode_screen.narration.focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("2")  # the lesson's answer; the server will say 11
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        text = panel_text(app)
        assert "expected '(integer) 2', got '(integer) 11'" in text
        assert "Your own typing, not the server: you typed SET n 10 in B at step 2" in text
        assert "You predicted right" not in text and "Your prediction is not scored" in text
        assert app.scenario_run.score() == (0, 0)


async def test_the_question_has_no_answer_chosen_for_the_learner(server_binary, tmp_path):
    """Enter alone answers nothing: in a class a learner typing a line as the question
    came (asked ahead) had its Enter taken for answer 1, the one highlighted at first.
    ↓ then Enter answers; F12 keeps what is highlighted."""
    app = lesson_app(server_binary, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        app.mode_screen.narration.focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        asking = app.screen
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is asking and app.scenario_run.answers == {}
        await pilot.press("down", "down")
        await pilot.press("f12")  # 中文: asked again in it, the same answer highlighted
        await wait_until(pilot, lambda: app.lang == "zh" and app.screen is asking)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert app.scenario_run.answers == {1: 2}
