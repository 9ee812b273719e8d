"""Teaching mode as a teacher uses it in front of a class, and the learner's conveniences
around it: Pilot on a real server (issue 12)."""

import time

import pytest
from textual.widgets import Static

import playground.tui.screens.scenario_screen as app_module
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.command_input import CommandInput
from playground.tui.dialogs.confirm import ConfirmScreen
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.dialogs.scenario_dialogs import PredictScreen, ScenarioPicker, choice_label
from pilot import log_text, screen, started, type_command, untimed, wait_until
from pilot import opened, panel_text, press_and_wait, scenario
from servers import shared


@pytest.fixture(autouse=True)
def quick_autoplay(monkeypatch):
    monkeypatch.setattr(app_module, "AUTOPLAY_PAUSE", 0.05)


def hint(app, client="A") -> str:
    return str(app.mode_screen.query_one(f"#pane-{client} #hint", Static).render())


def state_line(app, client) -> str:
    return str(app.mode_screen.query_one(f"#pane-{client} #state", Static).render())


@pytest.mark.slow
async def test_reverse_search_is_incremental_like_readline(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        for line in ["SET user:1 ada", "GET other", "SET user:2 bob", "PING"]:
            await type_command(pilot, app, "A", line)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
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
        # (the line's second echo, the first has its reply already: the log's last lines, the time aside)
        await wait_until(pilot, lambda: untimed(log_text(app, "A"))[-2:] == ["A> GET other", "(nil)"])


async def test_tab_mid_command_stays_in_the_input(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press(*"SET k zzz", "tab")  # nothing to complete
        assert app.focused is field and field.value == "SET k zzz"


def summary(app) -> str:
    return str(app.mode_screen.query_one("KeyInspector #summary", Static).render())


async def dbsize(app) -> int:
    return int((await app.playground.reader.run([[b"DBSIZE"]]))[0])


@pytest.mark.slow
async def test_restart_resets_everything_at_once(server_binary):
    """r: the keys go at once (not at the next Space), the old answer and score are gone,
    and the question is asked again."""
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(5):
            await press_and_wait(pilot, app, "space")
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("2")  # wrong on purpose
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert "You chose 2" in panel_text(app) and "predictions 0/1" in panel_text(app)
        await press_and_wait(pilot, app, "r")
        assert await dbsize(app) == 1  # only the setup's balance: the state before step 1
        await wait_until(pilot, lambda: summary(app) == "1 key")
        text = panel_text(app)
        assert "step 1 of 11" in text and "You chose" not in text and "predictions" not in text
        assert "WATCH" not in state_line(app, "A") and log_text(app, "A") == []
        for _ in range(5):
            await press_and_wait(pilot, app, "space")
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))  # asked again


async def test_another_scenario_from_f7_starts_clean(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(3):
            await press_and_wait(pilot, app, "space")
        await wait_until(pilot, lambda: "dirty" in state_line(app, "A"))
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        ids = [s.id for s in app.screen.scenarios]
        app.screen.query_one("OptionList").highlighted = ids.index("incr-is-atomic")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.scenario_run.scenario.id == "incr-is-atomic" and not app.mode_screen.busy)
        await pilot.pause()
        assert await dbsize(app) == 1  # only its setup's counter: the state before step 1
        assert bytes((await app.playground.reader.run([[b"GET", b"counter"]]))[0]) == b"4"
        assert "WATCH" not in state_line(app, "A") and "dirty" not in state_line(app, "A")
        assert log_text(app, "A") == [] and log_text(app, "B") == []
        await wait_until(pilot, lambda: summary(app) == "1 key")


async def test_the_starting_state_is_there_before_the_first_step(server_binary):
    """open pcall showed 0 keys while its first question asked what is on the server."""
    app = make_app(server=shared(server_binary), open_scenario=scenario("pcall"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await wait_until(pilot, lambda: summary(app) == "1 key")
        assert bytes((await app.playground.reader.run([[b"GET", b"wrong-type"]]))[0]) == b"string"
        assert app.scenario_run.stepper.cursor == 0


async def test_presenter_layout_changes_the_screen(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("pcall"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("escape")  # the question: skipped
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        panel = app.mode_screen.query_one(NarrationPanel)
        inspector = app.mode_screen.query_one("KeyInspector")
        before = (panel.outer_size.height, inspector.outer_size.height)
        await press_and_wait(pilot, app, "f")
        await pilot.pause()
        assert app.screen.has_class("-presenter")
        assert panel.outer_size.height > before[0] and inspector.outer_size.height < before[1]
        text = panel_text(app)  # the next command and its script, whole
        assert "next: B> EVAL $handle 2 wrong-type handled-error" in text
        assert "$handle =" in text and "redis.pcall('LPUSH', KEYS[1], 'item')" in text
        await press_and_wait(pilot, app, "f")
        assert not app.screen.has_class("-presenter") and panel.outer_size.height == before[0]


async def test_teaching_keys_from_a_pane_and_escape_back(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("f2")
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        assert app.focused is field
        keys = {a.binding.key: a for a in app.screen.active_bindings.values() if a.binding.show and a.enabled}
        assert "ctrl+n" in keys  # shown in the footer where Space types a space
        await pilot.press("space")
        assert field.value == " " and "step 1 of 11" in panel_text(app)
        field.value = ""
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "step 2 of 11" in panel_text(app) and not app.mode_screen.busy)
        await pilot.press("escape")
        assert app.focused is app.mode_screen.query_one(NarrationPanel)
        footer = app.mode_screen.query_one("KeyFooter")
        await pilot.pause()
        keys = [w for w in footer.query("FooterKey") if not w.has_class("-command-palette")]
        palette = footer.query_one("FooterKey.-command-palette")
        assert keys and max(w.region.right for w in keys) <= palette.region.x  # nothing cut


@pytest.mark.slow
async def test_a_lease_outlives_the_teachers_pause(server_binary, tmp_path):
    """The lesson's time stands still while the teacher talks (scenario/lesson_clock.py):
    a 1 s lease is still A's after more than a second between Spaces."""
    lesson = tmp_path / "lease.toml"
    lesson.write_text('''title = "A lease"
lesson = "A lock with a short lease."
[[steps]]
client = "A"
command = "SET lock:report a NX EX 1"
reply = "OK"
[[steps]]
client = "B"
command = "SET lock:report b NX"
reply = "(nil)"
''')
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(lesson))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        runner = app.scenario_run.stepper.runner  # the teacher talks longer than the lease
        await wait_until(pilot, lambda: time.monotonic() - runner.lesson_now() > 1.5, timeout=10)
        reader = app.playground.reader
        assert (await reader.run([[b"PTTL", b"lock:report"]]))[0] > 0
        await press_and_wait(pilot, app, "space")
        text = panel_text(app)
        assert "MISMATCH" not in text and "ran out" not in text and "✓ the server agrees" in text


@pytest.mark.slow
async def test_sleep_step_counts_down(server_binary, tmp_path):
    lesson = tmp_path / "wait.toml"
    lesson.write_text('''title = "Time passes"
lesson = "Keys expire."
[[steps]]
client = "A"
command = "SET k v PX 100"
[[steps]]
client = "A"
command = "EXISTS k"
sleep = 1.5
reply = "(integer) 0"
''')
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(lesson))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        assert panel_text(app).startswith(" 0:0")  # the scenario clock
        await press_and_wait(pilot, app, "space")
        assert "(first 1.5 s pass: the step sleeps)" in panel_text(app)
        await pilot.press("space")
        await wait_until(pilot, lambda: "… time passes" in panel_text(app))
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert "time passes" not in panel_text(app) and "✓ the server agrees (1 check)" in panel_text(app)


@pytest.mark.slow
async def test_part_separator_and_header_change_when_the_part_starts(server_binary):
    sc = scenario("refresh-double-spend")
    first, second = sc.parts[0], sc.parts[1]
    app = make_app(server=shared(server_binary), open_scenario=sc)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        app.scenario_run.answers = {i: 1 for i, (_, s) in enumerate(app.scenario_run.stepper.flat) if s.predict}
        for _ in range(len(first.steps)):
            await press_and_wait(pilot, app, "space")
        text = panel_text(app)  # part 1's closing pause is up: still part 1
        assert f"part: {first.name}" in text and f"next part: {second.name}" in text
        assert f"━━ {first.name} ━━" in log_text(app, "A")[0]
        await press_and_wait(pilot, app, "space")
        assert f"part: {second.name}" in panel_text(app)
        assert any(f"━━ {second.name} ━━" in line for line in log_text(app, "B"))


async def test_prediction_dialog_keys_skip_and_one_numbering(server_binary):
    assert choice_label(1, "1) (integer) 100") == "1. (integer) 100"
    assert choice_label(2, "(integer) 2") == "2. (integer) 2"
    app = make_app(server=shared(server_binary), open_scenario=scenario("pcall"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        box = app.screen.query_one("VerticalScroll")
        assert "Esc: skip" in str(box.border_subtitle)
        assert "redis.call('LPUSH', KEYS[2], 'item')" in str(app.screen.query_one("#script", Static).render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        text = panel_text(app)
        assert "step 2 of 3" in text and "predictions" not in text and "You chose" not in text


async def test_challenge_keys_win_text_and_program_conditions(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"), challenge=True)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
        app.scenario_run.speed_index = 0
        shown = {a.binding.key for a in app.screen.active_bindings.values() if a.binding.show and a.enabled}
        assert {"a", "b", "u"} <= shown and "space" not in shown
        for key in "abab":
            await press_and_wait(pilot, app, key)
        assert "✓ Won: the real server ended in the goal's state" in panel_text(app)
        assert 'Final value: counter = "' in panel_text(app)
        await press_and_wait(pilot, app, "a")
        text = panel_text(app)
        assert "✓ Won: the real server ended in the goal's state" in text and "The challenge is over" in text
    app = make_app(server=shared(server_binary), open_scenario=scenario("oversell"), challenge=True)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
        assert "if stock > 0: SET stock ${stock-1}" in panel_text(app)


async def test_close_asks_first(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("incr-is-atomic"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.scenario_run is not None
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.scenario_run is None)


async def test_picker_one_line_per_scenario(server_binary):
    from playground.cells import width

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        options = app.screen.query_one("OptionList")
        inner = options.scrollable_content_region.width
        for i in range(options.option_count):
            assert width(options.get_option_at_index(i).prompt.plain) <= inner


async def test_help_for_the_mode_and_no_broken_screenshot(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Screenshot" not in titles and "Save screen as SVG" in titles
        assert app.mode_screen.query_one("#pane-A #first-run").display  # where to start: shown
        assert "SET greeting hello" in app.mode_screen.query_one("#pane-A #first-run", Static).content.plain
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        assert "Free play" in str(app.screen.query_one(Static).render())
        await pilot.press("escape")
        await type_command(pilot, app, "A", "PING")
        assert not app.mode_screen.query_one("#pane-A #first-run").display
        app.open_scenario(scenario("lost-update"), challenge=True)
        await wait_until(pilot, lambda: app.scenario_run is not None and not app.mode_screen.busy)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        assert "you are the scheduler" in str(app.screen.query_one(Static).render())


async def test_lua_editor_keeps_the_script_and_history_gets_it(server_binary):
    from textual.widgets import Input, TextArea

    from playground.tui.dialogs.script_editor import ScriptEditor

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        app.mode_screen.query_one("#pane-A CommandInput").focus()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, ScriptEditor))
        assert "KEYS" in str(app.screen.query_one("#args-label", Static).render())
        app.screen.query_one(TextArea).text = "return redis.call('GET', KEYS[1]"  # does not compile
        app.screen.query_one("#args", Input).value = "1 k"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: any(line.startswith("(error)") for line in log_text(app, "A")))
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        assert field.history.lines[-1].startswith("EVAL ") and "KEYS[1]" in field.history.lines[-1]
        field.focus()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, ScriptEditor))
        assert app.screen.query_one(TextArea).text == "return redis.call('GET', KEYS[1]"
        assert app.screen.query_one("#args", Input).value == "1 k"


async def test_timeline_wraps_evals_and_shows_replies(pg):
    from playground.scenario.stepper import Stepper

    st = Stepper(pg, scenario("refresh-double-spend"))
    await st.start()
    await st.run_to_end()
    text = st.timeline.render_text(("A", "B"), width=30)
    lane_b = [line.split("│")[-2].strip() if line.count("│") > 1 else "" for line in text.splitlines()]
    assert "refresh:R3 replay:R1" in lane_b and "family:F1 active 600 R3" in lane_b  # wrapped, whole
    assert "→ (integer) 2" in lane_b  # the reply that shows B lost: the replay was detected
    assert "→ (integer) 1" in text and '→ "active"' in text


def test_picker_order_follows_the_course_then_recordings_last():
    from types import SimpleNamespace as S

    from playground.scenario.library import course_place

    items = [S(id="zz", order=None, tags=(), path=None), S(id="watch", order=4, tags=(), path=None),
             S(id="rec", order=None, tags=("recorded",), path=None),
             S(id="lost", order=1, tags=(), path=None), S(id="aa", order=None, tags=(), path=None)]
    assert [s.id for s in sorted(items, key=course_place)] == ["lost", "watch", "aa", "zz", "rec"]


async def test_f6_shows_whole_scripts(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "EVAL \"local a = 1\\nlocal b = 2\\nreturn a + b\" 0")
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        await wait_until(pilot, lambda: "return a + b" in str(app.screen.query_one(Static).render()))
        text = str(app.screen.query_one(Static).render())
        assert "local a = 1" in text and "local b = 2" in text


@pytest.mark.slow
async def test_a_long_narration_scrolls_from_the_keyboard_at_80x24(server_binary):
    """At 80×24 the narration has 8 rows; the presenter's arrows and PgUp/PgDn/Home/End
    reach what is below them, and the stepping keys still step."""
    app = make_app(server=shared(server_binary), open_scenario=scenario("pcall"))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot, app)
        panel = app.mode_screen.query_one(NarrationPanel)
        assert app.focused is panel
        await pilot.pause()
        assert panel.max_scroll_y > 0  # the lesson's text is longer than 8 rows
        await pilot.press("down")
        await wait_until(pilot, lambda: panel.scroll_y >= 1)
        await pilot.press("end")
        await wait_until(pilot, lambda: panel.scroll_y == panel.max_scroll_y)
        await pilot.press("home")
        await wait_until(pilot, lambda: panel.scroll_y == 0)
        await pilot.press("space")
        await wait_until(pilot, lambda: "step 1 of" in panel_text(app))


@pytest.mark.slow
async def test_the_panes_prompts_show_in_a_small_window_without_the_focus(server_binary):
    """Seen in a browser window of 800×600: the panes, stacked and low, drew their first-run
    hints and state line and cut off the A> and B> lines below them, which came into sight
    only when the pane took the focus (scrolled to). The prompt keeps its rows: the log and
    the hints give theirs up first."""
    for lesson in (None, scenario("pcall")):  # free play's first screen (its hints), a lesson's
        app = make_app(server=shared(server_binary), open_scenario=lesson)
        async with app.run_test(size=(60, 24)) as pilot:
            await (opened(pilot, app) if lesson is not None else started(pilot, app))
            app.set_focus(None)
            await pilot.pause()
            assert app.has_class("-narrow") and app.has_class("-short")
            text = screen(app)
            assert "A> type a Redis command" in text and "B> type a Redis command" in text, text


async def test_predictions_show_the_command_as_sent_and_skip_a_step_that_will_not_run(server_binary, tmp_path):
    """The dialog showed `${n+1}` unfilled, and a prediction on a skipped step was asked and
    graded "You predicted right"."""
    path = tmp_path / "predict-skip.toml"
    path.write_text('''title = "t"
lesson = "l"
setup = ["SET n 4"]
[[steps]]
client = "A"
command = "GET n"
save = "n"
[[steps]]
client = "A"
command = "SET n ${n+1}"
[steps.predict]
question = "What does A send?"
choices = ["SET n 5", "SET n ${n+1}"]
answer = 1
explain = "The saved reply is filled in."
[[steps]]
client = "A"
command = "DEL n"
when = "n == 99"
[steps.predict]
question = "Does A delete it?"
choices = ["yes", "no"]
answer = 1
explain = "A saw 4."
''')
    from playground.scenario.loader import load_scenario

    app = make_app(server=shared(server_binary), open_scenario=load_scenario(path))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        assert app.screen.command == "A> SET n 5"
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        await press_and_wait(pilot, app, "space")  # the skipped step: no question
        assert not isinstance(app.screen, PredictScreen)
        assert app.scenario_run.stepper.results[-1].skipped
        assert "predictions 1/1" in panel_text(app)


async def test_f12_while_a_prediction_is_open_translates_the_question(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        while not isinstance(app.screen, PredictScreen):
            await pilot.press("space")
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen) or not app.mode_screen.busy)
        english = app.screen.prediction.question
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.screen.prediction.question != english)
        await pilot.pause()
        assert app.lang == "zh" and "计数器" in app.screen.prediction.question
        labels = [str(label.render()) for label in app.screen.query("Static")]  # (the question wraps: a Static)
        assert any("计数器" in label for label in labels)
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, PredictScreen))


async def test_a_step_gives_back_the_line_half_typed_in_its_pane(server_binary):
    """A step is typed into its client's command line; what the learner had typed there
    was lost (in a class, the teacher's step takes a learner's pane unasked). It comes back."""
    from playground.tui.widgets.command_input import CommandInput

    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        app.scenario_run.speed_index = 0
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        await pilot.press("f2", *"SET x 12", "left")
        assert app.focused is field and field.value == "SET x 12" and field.cursor_position == 7
        await pilot.press("ctrl+n")   # the next step from anywhere: A's, in this pane
        await wait_until(pilot, lambda: log_text(app, "A")[:1] == ["A> GET counter"] and not app.mode_screen.busy)
        assert field.value == "SET x 12" and field.cursor_position == 7
