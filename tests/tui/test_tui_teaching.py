"""Teaching mode driven from the keyboard with Pilot, on a real server."""

import subprocess
import sys

import pytest
from textual.widgets import Static

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.dialogs.scenario_dialogs import PredictScreen, ScenarioPicker, TimelineScreen
from pilot import log_text, started, type_command, wait_until
from commands import send
from servers import shared
from pilot import opened, panel_text, press_and_wait, scenario, workers_finished

pytestmark = pytest.mark.usefixtures("quick_autoplay")


async def test_next_previous_restart_on_watch_abort(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(3):
            await press_and_wait(pilot, app, "space")
        assert "step 4 of 11" in panel_text(app)
        assert log_text(app, "B")[:2] == ["B> SET balance 200", "OK"]
        assert "dirty" in str(app.mode_screen.query_one("#pane-A #state", Static).render())
        assert "⏸" in panel_text(app)  # the pause marker of step 3
        await press_and_wait(pilot, app, "p")
        assert "step 3 of 11" in panel_text(app) and "Rewound" in panel_text(app)
        assert log_text(app, "B") == []  # B's step is undone, and so is its effect
        assert await send(app.executor, "B", [b"GET", b"balance"], quiet=True) == b"150"
        assert "dirty" not in str(app.mode_screen.query_one("#pane-A #state", Static).render())
        await press_and_wait(pilot, app, "r")
        assert "step 1 of 11" in panel_text(app) and log_text(app, "A") == []


@pytest.mark.slow
async def test_predict_then_reveal_and_score(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(5):
            await press_and_wait(pilot, app, "space")
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        assert log_text(app, "A")[-1] != "A> EXEC"  # the step waits for the prediction
        await pilot.press("2")  # wrong on purpose
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        text = panel_text(app)
        assert "You chose 2; the answer is 3" in text and "predictions 0/1" in text
        lines = log_text(app, "A")
        assert lines[lines.index("A> EXEC") + 1] == "(nil)"
        await press_and_wait(pilot, app, "p")  # back before the question: it is asked again
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("3")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        text = panel_text(app)
        assert "You predicted right" in text and "predictions 1/1" in text


@pytest.mark.slow
async def test_after_f4_the_lesson_keys_still_step_or_say_esc(server_binary):
    """The teacher's walkthrough: F4 (the keys), then Space did nothing and said nothing."""
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("f4")
        await wait_until(pilot, lambda: app.focused is app.mode_screen.query_one("#inspector #keys"))
        await press_and_wait(pilot, app, "space")
        assert "step 2 of 11" in panel_text(app)
        await press_and_wait(pilot, app, "f")
        assert app.mode_screen.has_class("-presenter")
        app.mode_screen.pane("A").query_one("CommandInput").focus()  # in a pane, letters type
        await pilot.press("r")
        assert app.mode_screen.pane("A").query_one("CommandInput").value == "r"
        assert "step 2 of 11" in panel_text(app)


async def test_run_to_end_and_jump_on_pcall(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("pcall"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "e")  # to the end without asking: questions skipped
        assert not isinstance(app.screen, PredictScreen)
        assert "done: 3 steps" in panel_text(app) and "predictions" not in panel_text(app)
        assert any(line.startswith("(error) WRONGTYPE") for line in log_text(app, "A"))
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("3", "enter")  # step 3 next: steps 1 and 2 replayed
        await wait_until(pilot, lambda: "step 3 of 3" in panel_text(app))
        assert await send(app.executor, "A", [b"GET", b"handled-error"], quiet=True) == b"handled"
        assert await send(app.executor, "A", [b"EXISTS", b"new-list"], quiet=True) == 0


async def test_autoplay_stops_at_pause_and_prediction(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("refresh-double-spend"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))  # step 2 asks
        await pilot.press("2")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert not app.scenario_run.autoplay  # a prediction stops autoplay
        await pilot.press("o")
        await wait_until(pilot, lambda: not app.scenario_run.autoplay and not app.mode_screen.busy, timeout=20)
        assert "⏸" in panel_text(app)  # stopped at the pause marker after the fork
        assert log_text(app, "B")[-2:] == ["(integer) 1", "  ✓ reply · state refresh:R2, refresh:R3, family:F1"]


async def test_mismatch_is_loud(server_binary, tmp_path):
    bad = tmp_path / "wrong.toml"
    bad.write_text((bundled_dir() / "incr-is-atomic.toml").read_text().replace("(integer) 6", "(integer) 7"))
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(bad))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        await press_and_wait(pilot, app, "space")
        assert "✗ MISMATCH reply: expected '(integer) 7', got '(integer) 6'" in panel_text(app)
        assert any("✗ reply" in line for line in log_text(app, "B"))


async def test_free_typing_mid_scenario_is_noticed(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        await type_command(pilot, app, "B", "SET balance 999")
        await wait_until(pilot, lambda: "You typed SET balance 999 in B at step 2 by hand" in panel_text(app))
        app.mode_screen.query_one(NarrationPanel).focus()
        await press_and_wait(pilot, app, "w")
        assert await send(app.executor, "B", [b"GET", b"balance"], quiet=True) == b"150"
        assert "You typed" not in panel_text(app)


@pytest.mark.slow
async def test_challenge_won_and_not_won(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"), challenge=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
        app.scenario_run.speed_index = 0
        for key in "aabb":  # one client after the other: no race
            await press_and_wait(pilot, app, key)
        assert "did not end in the goal's state" in panel_text(app)
        for _ in range(3):
            await press_and_wait(pilot, app, "u")
        assert app.scenario_run.challenge.moves == ["A"]
        for key in "bab":
            await press_and_wait(pilot, app, key)
        assert "✓ Won: the real server ended in the goal's state" in panel_text(app)
        assert log_text(app, "B")[-2:] == ["B> SET counter 5", "OK"]


async def test_timeline_view(server_binary, export_dir):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "e")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, TimelineScreen))
        text = str(app.screen.query_one("#timeline", Static).render())
        assert "┌" in text and "DECRBY balance 100" in text and "aborted: nothing ran" in text
        await pilot.press("x")
        await pilot.pause()
        exported = export_dir / "watch-abort-timeline.md"
        assert "**atomic:** `MULTI`<br>`DECRBY balance 100`<br>`EXEC`" in exported.read_text()


@pytest.mark.slow
async def test_picker_opens_a_scenario(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        ids = [s.id for s in app.screen.scenarios]
        for _ in range(ids.index("incr-is-atomic")):
            await pilot.press("down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.scenario_run is not None
                     and app.scenario_run.scenario.id == "incr-is-atomic")


@pytest.mark.slow
async def test_picker_searches_as_you_type_and_letters_are_never_actions(server_binary):
    """Typing "pcall" used to open lost-update in challenge mode (c) and then make a move (a)."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        picker = app.screen
        labels = [picker.query_one("OptionList").get_option_at_index(i).prompt.plain
                  for i in range(picker.query_one("OptionList").option_count)]
        assert any("refresh-double-spend " in label for label in labels)  # whole ids, even at 80 columns
        for key in "pcall":
            await pilot.press(key)
        assert [s.id for s in picker.scenarios] == ["pcall"] and app.screen is picker
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.scenario_run is not None and app.scenario_run.scenario.id == "pcall")
        assert app.scenario_run.challenge is None  # step mode, not challenge mode
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        for key in ["l", "o", "s", "t", "space", "u", "p"]:
            await pilot.press(key)
        assert app.screen.scenarios[0].id == "lost-update"  # (and its Python and Node.js forms)
        # named so first; then the lessons whose text alone says "lost update"
        assert [s.id for s in app.screen.scenarios][:3] == ["lost-update", "lost-update-python", "lost-update-node"]
        await pilot.press("ctrl+e")  # challenge mode, from the keyboard, without a letter
        await wait_until(pilot, lambda: app.scenario_run is not None and app.scenario_run.scenario.id == "lost-update")
        assert app.scenario_run.challenge is not None


@pytest.mark.parametrize("columns", [80, 120, 160])
async def test_picker_marks_every_challenge_at_every_width(columns):
    """A long title used to push "[challenge]" off the line at 80 columns (issue 35)."""
    app = make_app("bundled")
    async with app.run_test(size=(columns, 40)) as pilot:
        await started(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        picker = app.screen
        options = picker.query_one("OptionList")
        labels = [options.get_option_at_index(i).prompt.plain for i in range(options.option_count)]
        marked = [s.id for s, label in zip(picker.scenarios, labels, strict=True) if "[challenge]" in label]
        assert marked == [s.id for s in picker.scenarios if s.challenge is not None]
        assert "refresh-double-spend" in marked and "watch-abort" not in marked


@pytest.mark.slow
async def test_recording_round_trip(server_binary, private_state_dir):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET stale 1")
        await pilot.press("f9")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.recorder is not None)
        assert await send(app.executor, "A", [b"EXISTS", b"stale"], quiet=True) == 0  # recording starts empty
        await type_command(pilot, app, "A", "SET counter 4")
        await type_command(pilot, app, "A", "GET counter")
        await type_command(pilot, app, "B", "INCR counter")
        await type_command(pilot, app, "B", "HSET counter f v")
        await type_command(pilot, app, "A", "2 INCR counter")
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.recorder is None)
    files = list((private_state_dir / "scenarios").glob("*.toml"))
    assert len(files) == 1
    text = files[0].read_text()
    assert 'command = "INCR counter"' in text and 'error = "WRONGTYPE"' in text
    result = subprocess.run([sys.executable, "-m", "playground", "check", str(files[0]),  # noqa: ASYNC221 (one short command)
                             "--server", server_binary.path], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed"


async def test_a_step_that_never_answers_stops_the_lesson_and_says_so(server_binary, tmp_path):
    """After `CLIENT PAUSE 600000 ALL` nothing answers, the app's own reads included: the
    lesson stops within its time limit and says so in red (it stayed at "Press Space"),
    on a fresh server where typed commands answer again."""
    paused = tmp_path / "paused.toml"
    paused.write_text('title = "Paused"\nlesson = "Everyone waits."\n[[steps]]\nclient = "A"\n'
                      'command = "CLIENT PAUSE 600000 ALL"\n[[steps]]\nclient = "B"\ncommand = "GET k"\n')
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(paused))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        app.scenario_run.stepper.runner.time_limit_given = 1
        await pilot.press("space")
        await wait_until(pilot, lambda: "The scenario stopped" in panel_text(app), timeout=20)
        assert f"{paused}: step 1 (A> CLIENT PAUSE 600000 ALL): no answer within 1s" in panel_text(app)
        assert "r restarts it; x closes it." in panel_text(app)
        assert await send(app.executor, "B", [b"PING"], quiet=True) == b"PONG"


@pytest.mark.slow
async def test_a_key_pressed_while_a_step_runs_is_not_lost(server_binary):
    """Space twice, the second while the first step still runs: two steps (a teacher's
    key is never silently dropped), and not three. (Pilot's press waits until a step's
    typing is done, so the keys come as the bindings deliver them: action_teach.)"""
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        screen = app.mode_screen
        screen.action_teach("next")  # while the lesson's start (its setup) may still run
        await wait_until(pilot, lambda: "step 2 of 11" in panel_text(app) and not screen.busy)
        screen.action_teach("next")
        assert screen.busy  # the step runs (it types itself out) ...
        screen.action_teach("next")  # ... when the second key comes
        await wait_until(pilot, lambda: "step 4 of 11" in panel_text(app) and not screen.busy)
        await workers_finished(pilot, app)  # a third step a worker would start: started by now
        assert "step 4 of 11" in panel_text(app) and not screen.busy and app.scenario_run.stepper.cursor == 3
        assert log_text(app, "B")[:2] == ["B> SET balance 200", "OK"]


async def test_a_short_screen_shows_how_to_start_and_that_the_lesson_is_over(server_binary):
    """At 80×24 the narration panel has a few rows: the lesson's summary came first, before
    and after the steps, and pushed "Press Space" and "The scenario is over" out of sight
    (they were there only for a learner who scrolled the panel)."""
    from pilot import screen

    app = make_app(server=shared(server_binary), open_scenario=scenario("transfer-python"))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot, app)
        await pilot.pause()
        assert app.has_class("-short") and "Press Space" in screen(app)
        await press_and_wait(pilot, app, "e")
        assert "done: 6 steps" in panel_text(app)
        assert "90 paid out" in screen(app)  # the last step's outcome
        await press_and_wait(pilot, app, "space")
        assert "The scenario is over" in screen(app)
        assert "Alice has 60" in panel_text(app)  # the summary is still there, below
