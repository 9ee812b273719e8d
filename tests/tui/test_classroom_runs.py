"""Class mode in the app, on a real class Redis (both servers), the other side played
through the protocol: the teacher's restart is a new run (the answers given before it
neither show in the histogram nor count), and a learner's app opens the lesson the
teacher opened from the text the class carries, though its own library has no such
lesson, and answers for the run it opened only; the teacher closing the lesson closes
the learners' too."""

from __future__ import annotations


import pytest
from playground.classroom.protocol import ENV_ROLE, ClassLink, Learner
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.class_mode.class_screens import ClassAnswersScreen
from playground.tui.dialogs.scenario_dialogs import PredictScreen
from pilot import wait_until
from pilot import panel_text
from class_app import ASKS, _until_true, DEADLINE, join_as






@pytest.mark.slow
async def test_the_teachers_restart_is_a_new_run(server_binary, class_env, monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "teacher")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_until(pilot, lambda: app.class_mode.member is not None, DEADLINE)
            app.open_scenario(load_scenario(resolve("pcall")))
            await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app), DEADLINE)

            async def published() -> bool:
                return (await link.state()).lesson == "pcall" and app.class_mode.member.state.lesson == "pcall"

            await _until_true(pilot, published, "the lesson published")
            first = (await link.state()).epoch
            await link.progress(Learner("a1", "Ana", first, "pcall"))
            await link.answer("a1", first, 0, 2)
            await pilot.press("space")  # the first step asks: the class's answers first
            await wait_until(pilot, lambda: isinstance(app.screen, ClassAnswersScreen), DEADLINE)
            histogram = lambda: str(app.screen.query_one("#histogram").content)  # noqa: E731
            await wait_until(pilot, lambda: "1 of 1 learners answered" in histogram(), DEADLINE)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, ClassAnswersScreen) and not app.mode_screen.busy,
                             DEADLINE)

            await pilot.press("r")  # restart: a new run for the class
            await wait_until(pilot, lambda: not app.mode_screen.busy and "Press Space" in panel_text(app), DEADLINE)
            second = (await link.state()).epoch
            assert second != first and app.class_mode.member.state.epoch == second
            await pilot.press("space")
            await wait_until(pilot, lambda: isinstance(app.screen, ClassAnswersScreen), DEADLINE)
            # Ana's was the last run's
            await wait_until(pilot, lambda: "0 of 0 learners answered" in histogram(), DEADLINE)
            await link.progress(Learner("b2", "Bo", second, ""))  # on no lesson (he closed his): not counted
            await link.progress(Learner("a1", "Ana", second, "pcall"))
            await link.answer("a1", second, 0, 1)
            await wait_until(pilot, lambda: "1 of 1 learners answered" in histogram(), DEADLINE)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not app.mode_screen.busy, DEADLINE)

            await pilot.press("x", "y")  # the teacher closes the lesson: so does the class

            async def closed() -> bool:
                state = await link.state()
                return state.lesson == "" and state.epoch not in (first, second)

            await _until_true(pilot, closed, "the class's lesson closed")
            assert app.scenario_run is None
    finally:
        await link.close()


@pytest.mark.slow
async def test_a_learner_opens_the_teachers_own_lesson_and_answers_for_its_run(server_binary, class_env,
                                                                                monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await join_as(pilot, app)
            first = await link.open_lesson("who-wins", False, ASKS)
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen), DEADLINE)  # asked ahead
            assert app.scenario_run.scenario.id == "who-wins"
            await pilot.press("2")

            async def answered(epoch: int, counts: dict):
                async def check() -> bool:
                    return await link.answers(epoch, 0) == counts
                return check

            await _until_true(pilot, await answered(first, {2: 1}), "Ana's answer, for the first run")
            second = await link.open_lesson("who-wins", False, ASKS)  # the teacher restarts
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen)
                             and app.class_mode.member.run_lesson is app.scenario_run, DEADLINE)  # asked again

            async def placed() -> bool:
                return [(one.name, one.epoch) for one in await link.learners()] == [("Ana", second)]

            await _until_true(pilot, placed, "Ana on the new run")
            assert await link.answers(second, 0) == {}
            await pilot.press("1")
            await _until_true(pilot, await answered(second, {1: 1}), "Ana's answer, for the second run")
            app.close_scenario()  # Ana leaves the class's lesson (x) in "follow me"

            async def left() -> bool:
                return [one.lesson for one in await link.learners()] == [""]

            await _until_true(pilot, left, "the overview told Ana left")  # not shown on the lesson
            await link.set_step(second, 0)  # the teacher's next step brings her back
            await wait_until(pilot,
                             lambda: app.scenario_run is not None
                             and app.class_mode.member.run_lesson is app.scenario_run,
                             DEADLINE)
            await link.open_lesson("", False, "")  # the teacher closes the lesson
            await wait_until(pilot, lambda: app.scenario_run is None, DEADLINE)  # back to free play
    finally:
        await link.close()


BOUND = '''title = "Bound"
lesson = "A step and the one bound to it, then one more."

[[steps]]
client = "A"
command = "SET k 1"

[[steps]]
client = "B"
command = "SET k 2"
bound = true

[[steps]]
client = "A"
command = "GET k"
'''


async def test_the_teachers_step_goes_to_the_class_at_the_key_not_once_typed(server_binary, class_env,
                                                                             monkeypatch, tmp_path):
    """Follow me: the learners' apps run the step while the projector still types it; the
    step sent is where the teacher will be once the step and the one bound to it ran."""
    import asyncio

    monkeypatch.setenv(ENV_ROLE, "teacher")
    link, listener = class_env, ClassLink(class_env.address)
    path = tmp_path / "bound.toml"
    path.write_text(BOUND)
    app = make_app(server_binary.path)
    heard: list[tuple[int, int, str]] = []  # (the step sent, the teacher's cursor, its pane's input) as it came

    async def listen() -> None:
        async for message in listener.listen():
            if message["type"] == "step":
                heard.append((message["step"], app.scenario_run.stepper.cursor, app.scenario_run.pane("A").query_one(
                    "CommandInput").value))

    listening = asyncio.ensure_future(listen())
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_until(pilot, lambda: app.class_mode.member is not None, DEADLINE)
            app.open_scenario(load_scenario(path))
            await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app), DEADLINE)

            async def published() -> bool:
                return (await link.state()).lesson == app.scenario_run.scenario.id == app.class_mode.member.state.lesson

            await _until_true(pilot, published, "the lesson published")
            app.scenario_run.speed_index = 1  # 20 characters a second: "SET k 1" takes 0.35 s to type
            await pilot.press("space")
            await wait_until(pilot, lambda: app.scenario_run.stepper.cursor == 2 and not app.mode_screen.busy, DEADLINE)
            await pilot.press("space")
            await wait_until(pilot, lambda: app.scenario_run.stepper.cursor == 3 and not app.mode_screen.busy, DEADLINE)
            await wait_until(pilot, lambda: len(heard) >= 2, DEADLINE)
            assert heard[0][:2] == (2, 0) and heard[0][2] != "SET k 1", heard  # sent before typed and run
            assert [step for step, _, _ in heard] == [2, 3], heard  # once each: after() had nothing to set right
            assert (await link.state()).step == 3
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        await listener.close()
        await link.close()


@pytest.mark.slow
async def test_f7_in_the_class_overview_picks_the_lesson(server_binary, class_env, monkeypatch):
    """The overview's line says "F7: pick the lesson"; F7 there did nothing (the mode
    screen's F7 is not bound on it). It brings the lessons to pick from."""
    from playground.tui.class_mode.class_screens import ClassOverviewScreen
    from playground.tui.dialogs.scenario_dialogs import ScenarioPicker

    monkeypatch.setenv(ENV_ROLE, "teacher")
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_until(pilot, lambda: app.class_mode.member is not None, DEADLINE)
            app.action_class_overview()   # (Alt+C: bound only when served)
            await wait_until(pilot, lambda: isinstance(app.screen, ClassOverviewScreen), DEADLINE)
            await pilot.press("f7")
            await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker), DEADLINE)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.mode_screen, DEADLINE)
    finally:
        await class_env.close()
