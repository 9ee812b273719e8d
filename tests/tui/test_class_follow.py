"""Class mode, follow me (issue 27): while the class follows the teacher, a learner's tab
stays on the teacher's lesson and step. F7 (and the palette's "Open scenario"), closing,
restarting, the learner's own steps, F5 and F8 are refused (F5 not once the server
stopped) with one line saying why, dimmed in the footer and marked in F1; typing in the
panes still works. Once the teacher chooses own pace, the same keys work again. On a real
class Redis (both servers), the teacher played through the protocol."""

from __future__ import annotations

from playground.classroom.protocol import ENV_ROLE, FOLLOW, OWN
from playground.engine.pipeline import TIMING_FROM
from playground.tui.class_mode import class_mode as app_classroom
from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.dialogs.scenario_dialogs import ScenarioPicker
import pytest

from pilot import TIMING_LINE, hear_notices, notices, reply_to, wait_until, workers_finished
from class_app import DEADLINE, join_as

STEPS = '''title = "Three writes"
lesson = "Made in the teacher's tab."

[[steps]]
client = "A"
command = "SET k 1"

[[steps]]
client = "B"
command = "SET k 2"

[[steps]]
client = "A"
command = "SET k 3"
'''

REFUSED = "Your teacher leads the class now"


def loop_held_after_sending(monkeypatch, client: str, seconds: float) -> None:
    """A loaded machine: the app's event loop held `seconds` after each line of `client` is
    sent, before its reply is read (as 4 test workers on 2 cores can). redis-cli's timing
    line, "(0.61s)", then follows the reply in the pane."""
    import time

    from playground.engine.session import Session

    read = Session.reply_to

    async def held(self, argv):
        if self.name == client:
            time.sleep(seconds)  # noqa: ASYNC251 (the point: nothing else runs meanwhile)
        return await read(self, argv)

    monkeypatch.setattr(Session, "reply_to", held)


@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)



def refusals(app) -> int:
    return sum(REFUSED in m for m in notices(app))


def place(app) -> tuple[str, int]:
    return app.scenario_run.scenario.id, app.scenario_run.stepper.cursor


def enabled(app, key: str) -> bool:
    return app.screen.active_bindings[key].enabled


async def following(pilot, app, link, lesson: str, source: str) -> int:
    """A learner's tab joins, and the teacher opens `lesson` (its TOML `source`): until it
    is this learner's run of it; the run's epoch."""
    await join_as(pilot, app)
    epoch = await link.open_lesson(lesson, False, source)
    await wait_until(pilot, lambda: app.scenario_run is not None
                     and app.class_mode.member.run_lesson is app.scenario_run, DEADLINE)
    return epoch


async def at_step(pilot, app, link, epoch: int, lesson: str, step: int) -> None:
    """The teacher's step `step`: until this learner's tab shows it."""
    await link.set_step(epoch, step)
    await wait_until(pilot, lambda: place(app) == (lesson, step) and not app.mode_screen.busy, DEADLINE)


@pytest.mark.slow
async def test_a_following_learner_stays_on_the_teachers_lesson_until_own_pace(server_binary, class_env,
                                                                              monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "learner")
    monkeypatch.setattr(app_classroom, "REFUSED_SHOWN", 3600.0)  # one line per mode, however slow the machine
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await join_as(pilot, app)
            epoch = await link.open_lesson("three-writes", False, STEPS)
            await wait_until(pilot,
                             lambda: app.scenario_run is not None
                             and app.class_mode.member.run_lesson is app.scenario_run,
                             DEADLINE)
            app.scenario_run.speed_index = 0  # no typing animation
            await link.set_step(epoch, 1)  # the teacher's first step
            await wait_until(pilot, lambda: place(app) == ("three-writes", 1) and not app.mode_screen.busy, DEADLINE)
            assert app.class_mode.member.state.mode == FOLLOW

            app.mode_screen.query_one(NarrationPanel).focus()
            await pilot.pause()
            assert not enabled(app, "f7") and not enabled(app, "space") and not enabled(app, "r")  # dimmed
            await pilot.press("f7")  # another lesson: refused, said so
            await wait_until(pilot, lambda: refusals(app) == 1, DEADLINE)
            assert not isinstance(app.screen, ScenarioPicker)
            for key in ("space", "p", "r", "x", "e", "f5", "f8"):  # own steps, restart, close, a fresh server, flush
                await pilot.press(key)
            await workers_finished(pilot, app)  # all the keys started has happened (a question, a step)
            assert not isinstance(app.screen, ConfirmScreen) and not app.mode_screen.busy
            app.action_open_scenario()  # the palette's "Open scenario"
            await workers_finished(pilot, app)
            assert not isinstance(app.screen, ScenarioPicker)
            assert place(app) == ("three-writes", 1) and refusals(app) == 1  # one line, not one per key

            await pilot.press("f1")  # F1 says which keys wait for the teacher
            await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen), DEADLINE)
            lines = str(app.screen.query_one("Static").content).splitlines()
            assert any("F7" in line and "your teacher leads" in line for line in lines)
            assert not any("F2" in line and "your teacher leads" in line for line in lines)
            await pilot.press("escape")

            await pilot.press("f2", *"GET k", "enter")  # the panes still type
            await wait_until(pilot, lambda: reply_to(app, "A", "GET k")[:1] == ['"1"'], DEADLINE)

            await link.set_mode(OWN)  # the teacher: own pace
            await wait_until(pilot, lambda: app.class_mode.member.state.mode == OWN and enabled(app, "f7"), DEADLINE)
            app.mode_screen.query_one(NarrationPanel).focus()
            await pilot.pause()
            await pilot.press("space")  # a step of the learner's own
            await wait_until(pilot, lambda: place(app) == ("three-writes", 2) and not app.mode_screen.busy, DEADLINE)
            await pilot.press("f7")  # and another lesson
            await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker), DEADLINE)
            ids = [s.id for s in app.screen.scenarios]
            app.screen.query_one("OptionList").highlighted = ids.index("incr-is-atomic")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.scenario_run.scenario.id == "incr-is-atomic"
                             and not app.mode_screen.busy,
                             DEADLINE)
            assert refusals(app) == 1

            await link.set_mode(FOLLOW)  # follow me again: back to the teacher's lesson and step, held there
            await wait_until(pilot, lambda: app.scenario_run is not None and app.scenario_run.stepper is not None
                             and place(app) == ("three-writes", 1) and not app.mode_screen.busy
                             and app.class_mode.member.run_lesson is app.scenario_run and not enabled(app, "f7"),
                             DEADLINE)
            await pilot.press("f7")
            await wait_until(pilot, lambda: refusals(app) == 2, DEADLINE)  # said again: the mode changed since
            assert not isinstance(app.screen, ScenarioPicker)

            app.playground.server.process.kill()  # the learner's server stopped (a crash): F5 brings one back
            await wait_until(pilot, app.playground.server_stopped, DEADLINE)
            await pilot.press("f5")
            await wait_until(pilot, lambda: not app.playground.server_stopped(), DEADLINE)
            await pilot.press("f2", *"DBSIZE", "enter")
            await wait_until(pilot, lambda: reply_to(app, "A", "DBSIZE")[:1] == ["(integer) 0"], DEADLINE)
            assert refusals(app) == 2
    finally:
        await link.close()


@pytest.mark.slow
async def test_a_following_learner_runs_the_teachers_step_untyped(server_binary, class_env, monkeypatch):
    """The class watches the teacher type the step; a follower's tab runs it at once (it used
    to type it out again at the learner's speed, 40 characters a second by default, after the
    teacher's own typing: a long command took over a second to reach the class). A step of
    the learner's own, in own pace, is typed at the learner's speed as before."""
    from playground.tui.widgets.client_pane import ClientPane

    typed: list[tuple[str, int]] = []
    type_out = ClientPane.type_out

    async def spy(self, line: str, speed: int) -> None:
        typed.append((line, speed))
        await type_out(self, line, speed)

    monkeypatch.setattr(ClientPane, "type_out", spy)
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await join_as(pilot, app)
            epoch = await link.open_lesson("three-writes", False, STEPS)
            await wait_until(pilot,
                             lambda: app.scenario_run is not None
                             and app.class_mode.member.run_lesson is app.scenario_run,
                             DEADLINE)
            speed = app.scenario_run.speed
            assert speed > 0  # the learner's own setting: typing on
            await link.set_step(epoch, 2)  # the teacher ran two steps
            await wait_until(pilot, lambda: place(app) == ("three-writes", 2) and not app.mode_screen.busy, DEADLINE)
            assert typed == [("SET k 1", 0), ("SET k 2", 0)] and app.scenario_run.speed == speed
            await link.set_mode(OWN)
            await wait_until(pilot, lambda: app.class_mode.member.state.mode == OWN and enabled(app, "space"), DEADLINE)
            app.mode_screen.query_one(NarrationPanel).focus()
            await pilot.press("space")  # the learner's own step: typed at the learner's speed
            await wait_until(pilot, lambda: place(app) == ("three-writes", 3) and not app.mode_screen.busy, DEADLINE)
            assert typed[2:] == [("SET k 3", speed)]
    finally:
        await link.close()


TWO_WRITES = STEPS.replace("Three writes", "Two writes").rsplit("[[steps]]", 1)[0]


@pytest.mark.slow
async def test_after_the_teacher_closed_the_lesson_the_next_one_reaches_the_learner(server_binary, class_env,
                                                                                   monkeypatch):
    """Seen by hand in a class: after the teacher's x, the next lesson the teacher opened
    never reached the learners already in the class (they stayed on "Waiting for your
    teacher"); only a new tab got it. The close had ended the learner's class worker: its
    report's worker was described by repr(), and Textual's AwaitComplete (the close's
    awaitable) has a __rich_repr__ that raises."""
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            epoch = await following(pilot, app, link, "three-writes", STEPS)
            await at_step(pilot, app, link, epoch, "three-writes", 1)
            await link.open_lesson("", False, "")   # the teacher closes it
            await wait_until(pilot, lambda: app.scenario_run is None, DEADLINE)
            epoch = await link.open_lesson("two-writes", False, TWO_WRITES)   # and opens another
            await wait_until(pilot, lambda: app.scenario_run is not None
                             and app.scenario_run.scenario.id == "two-writes"
                             and app.class_mode.member.run_lesson is app.scenario_run, DEADLINE)
            await at_step(pilot, app, link, epoch, "two-writes", 1)
    finally:
        await link.close()


@pytest.mark.slow
async def test_while_the_class_waits_for_the_teachers_next_lesson_f7_is_the_teachers(server_binary, class_env,
                                                                                    monkeypatch):
    """Seen in a browser: after the teacher's x, a following learner's footer offered F7, and
    the lesson the learner opened with it was taken back by the teacher's next one. In follow
    me F7 waits for the teacher as in a lesson (dimmed, said so); in own pace it is the
    learner's."""
    monkeypatch.setenv(ENV_ROLE, "learner")
    monkeypatch.setattr(app_classroom, "REFUSED_SHOWN", 3600.0)
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            epoch = await following(pilot, app, link, "three-writes", STEPS)
            await at_step(pilot, app, link, epoch, "three-writes", 1)
            await link.open_lesson("", False, "")   # the teacher closes it
            await wait_until(pilot, lambda: app.scenario_run is None and not app.class_mode.member.state.lesson,
                             DEADLINE)
            await pilot.pause()
            assert not enabled(app, "f7")  # dimmed in the footer
            await pilot.press("f7")
            await wait_until(pilot, lambda: refusals(app) == 1, DEADLINE)
            assert any("waits for their next lesson" in m for m in notices(app))
            app.action_open_scenario()  # the palette's "Open scenario"
            await pilot.pause()
            assert not isinstance(app.screen, ScenarioPicker)
            await pilot.press("space")  # a step key: no lesson yet, and F7 is not offered for one
            await wait_until(pilot, lambda: any(m.startswith("No lesson yet") for m in notices(app)), DEADLINE)
            assert not any("F7" in m for m in notices(app) if m.startswith("No lesson yet"))
            await pilot.press("f2", *"SET mine 1", "enter")  # the panes are the learner's meanwhile
            await wait_until(pilot, lambda: reply_to(app, "A", "SET mine 1")[:1] == ["OK"], DEADLINE)

            await link.set_mode(OWN)  # own pace: F7 is the learner's
            await wait_until(pilot, lambda: enabled(app, "f7"), DEADLINE)
            await pilot.press("f7")
            await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker), DEADLINE)
    finally:
        await link.close()


@pytest.mark.slow
async def test_a_message_the_learners_tab_fails_on_leaves_the_next_ones_to_come(server_binary, class_env,
                                                                               monkeypatch):
    """One message this tab cannot act on (a bug) ended its class worker: the learner heard
    nothing of the class after it. Now it is logged, and the next message is acted on."""
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            epoch = await following(pilot, app, link, "three-writes", STEPS)
            member = app.class_mode.member
            follow, failed = member.follow, []

            async def fails_once() -> None:
                if not failed:
                    failed.append(True)
                    raise RuntimeError("a bug")
                await follow()

            monkeypatch.setattr(member, "follow", fails_once)
            await link.set_step(epoch, 1)
            await wait_until(pilot, lambda: failed == [True], DEADLINE)
            await at_step(pilot, app, link, epoch, "three-writes", 2)
    finally:
        await link.close()


@pytest.mark.slow
async def test_a_following_learners_narration_offers_no_key_the_teacher_leads(server_binary, class_env,
                                                                             monkeypatch):
    """The narration's line of keys offered Space, p, r and x, and a line typed by hand said
    "w rewinds to this step": each refused while the teacher leads. They are left out."""
    from pilot import panel_text

    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            epoch = await following(pilot, app, link, "three-writes", STEPS)
            await at_step(pilot, app, link, epoch, "three-writes", 1)
            await pilot.press("f2", *"SET k 9", "enter")   # (a write of the lesson's key: noted)
            await wait_until(pilot, lambda: "You typed SET k 9" in panel_text(app), DEADLINE)
            keys = next(line for line in panel_text(app).splitlines() if line.startswith("keys:"))
            assert "next" not in keys and "prev" not in keys and "restart" not in keys and "close" not in keys, keys
            assert "w rewinds" not in panel_text(app)
            await link.set_mode(OWN)  # own pace: the keys are the learner's again
            await wait_until(pilot, lambda: "w rewinds to this step" in panel_text(app), DEADLINE)
            keys = next(line for line in panel_text(app).splitlines() if line.startswith("keys:"))
            assert "next" in keys and "restart" in keys, keys
    finally:
        await link.close()


ASKS_SECOND = '''title = "Asks second"
lesson = "Made in the teacher's tab."

[[steps]]
client = "A"
command = "SET k 1"

[[steps]]
client = "B"
command = "SET k 2"
predict = { question = "What is k now?", choices = ["1", "2"], answer = 2, explain = "B wrote last." }
'''


@pytest.mark.slow
async def test_a_question_asked_ahead_waits_for_the_line_the_learner_is_typing(server_binary, class_env,
                                                                              monkeypatch):
    """Seen by hand in a class: the question came while a learner typed a line in a pane,
    and took its keys (digits answer, Enter chose). It waits until the line is sent."""
    from playground.tui.dialogs.scenario_dialogs import PredictScreen
    from playground.tui.widgets.command_input import CommandInput

    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            epoch = await following(pilot, app, link, "asks-second", ASKS_SECOND)
            await wait_until(pilot, lambda: not app.mode_screen.busy, DEADLINE)
            await pilot.press("f3", *"SET x 12")   # half typed in B (the step runs in A) as the question comes
            field = app.mode_screen.query_one("#pane-B CommandInput", CommandInput)
            assert app.focused is field and field.value == "SET x 12"
            await link.set_step(epoch, 1)   # the next step asks
            await wait_until(pilot, lambda: place(app) == ("asks-second", 1) and not app.mode_screen.busy
                             and not app.class_mode.member.following, DEADLINE)
            assert not isinstance(app.screen, PredictScreen), "asked while a line was half typed"
            assert app.class_mode.member.ask_later is app.scenario_run
            loop_held_after_sending(monkeypatch, "B", TIMING_FROM + 0.1)   # a loaded machine, made sure
            await pilot.press("enter")   # the line sent: now the question
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen), DEADLINE)
            await wait_until(pilot, lambda: reply_to(app, "B", "SET x 12")[:1] == ["OK"], DEADLINE)  # its reply
            # and, the loop held, redis-cli's "(0.61s)" under it: a wait for the log's last line to be OK never ended
            await wait_until(pilot, lambda: TIMING_LINE.fullmatch("".join(reply_to(app, "B", "SET x 12")[1:2])),
                             DEADLINE)
            assert app.scenario_run.answers == {}   # nothing of the line answered it
            await pilot.press("2")
            await wait_until(pilot, lambda: app.scenario_run.answers == {1: 2}, DEADLINE)
    finally:
        await link.close()
