"""A class's predictions are revealed at the reveal (issue 45), on a real class Redis (both
servers), the teacher played through the protocol: a learner's answer given ahead shows in
neither the learner's header nor the class's record (the overview) until the step runs;
the learner's answers stay through own pace and back (brought back, 0/1, not 0/0, and not
asked again); the overview names each learner's step as their tab does, and marks a
learner whose tab closed as away; a name over the limit is refused, saying so."""

from __future__ import annotations

import time

import pytest
from pilot import wait_until
from class_app import _plain
from class_app import ASKS, DEADLINE, _until_true, join_as
from pilot import panel_text, workers_finished
from textual.app import App
from textual.widgets import Static

from playground.classroom.protocol import (
    ENV_ROLE,
    FOLLOW,
    MAX_NAME,
    OWN,
    ClassLink,
    Learner,
)
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.class_mode.class_member import ClassMember
from playground.tui.class_mode.class_mode import ClassMode
from playground.tui.class_mode.class_screens import (
    ClassOverviewScreen,
    LearnerNameScreen,
)
from playground.tui.dialogs.scenario_dialogs import PredictScreen

pytestmark = [pytest.mark.server, pytest.mark.tui]


async def _record(link: ClassLink) -> Learner:
    (learner,) = await link.learners()
    return learner


async def test_an_answer_given_ahead_shows_at_the_reveal_and_stays_through_own_pace(server_binary, class_env,
                                                                                  monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await join_as(pilot, app)
            epoch = await link.open_lesson("who-wins", False, ASKS)
            await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen), DEADLINE)  # asked ahead
            await pilot.press("1")  # wrong (B wrote last)

            async def answer_sent() -> bool:
                return await link.answers(epoch, 0) == {1: 1}

            await _until_true(pilot, answer_sent, "Ana's answer sent")
            await workers_finished(pilot, app, "class-publish")  # and what comes after it: Ana's progress told
            assert "predictions" not in panel_text(app)  # before the reveal: neither right nor wrong shown
            learner = await _record(link)
            assert (learner.right, learner.answered) == (0, 0)  # nor in the overview

            app.scenario_run.speed_index = 0
            await link.set_step(epoch, 1)  # the teacher reveals: the step runs
            await wait_until(pilot, lambda: app.scenario_run.stepper.cursor == 1 and not app.mode_screen.busy
                             and "predictions 0/1" in panel_text(app), DEADLINE)

            async def scored() -> bool:
                learner = await _record(link)
                return (learner.right, learner.answered, learner.step) == (0, 1, 1)

            await _until_true(pilot, scored, "the reveal in the class's record")

            await link.set_mode(OWN)  # own pace: Ana opens another lesson, then the teacher leads again
            await wait_until(pilot, lambda: app.class_mode.member.state.mode == OWN, DEADLINE)
            await app.open_scenario(load_scenario(resolve("incr-is-atomic")))
            await wait_until(pilot, lambda: app.scenario_run.scenario.id == "incr-is-atomic"
                             and not app.mode_screen.busy,
                             DEADLINE)
            await link.set_mode(FOLLOW)
            await wait_until(pilot, lambda: app.scenario_run.scenario.id == "who-wins" and not app.mode_screen.busy
                             and app.class_mode.member.run_lesson is app.scenario_run
                             and app.scenario_run.stepper.cursor == 1, DEADLINE)
            assert not isinstance(app.screen, PredictScreen)  # not asked again
            await wait_until(pilot, lambda: "predictions 0/1" in panel_text(app), DEADLINE)  # (it said 0/0)

            async def kept() -> bool:
                learner = await _record(link)
                return (learner.epoch, learner.right, learner.answered) == (epoch, 0, 1)

            await _until_true(pilot, kept, "Ana's answer kept in the class's record")
            assert await link.answers(epoch, 0) == {1: 1}  # sent once

            app.tab_shown(False)  # serve: Ana's tab closed (its app kept for the grace)

            async def away() -> bool:
                return (await _record(link)).away > 0

            await _until_true(pilot, away, "Ana marked away")
            app.tab_shown(True)

            async def back() -> bool:
                return (await _record(link)).away == 0

            await _until_true(pilot, back, "Ana back")
    finally:
        await link.close()


async def test_the_overview_says_each_step_as_the_tab_does_and_who_is_away(server_binary, class_env):
    link = class_env
    epoch = await link.open_lesson("watch-retry", False)
    await link.progress(Learner("a1", "Ana", epoch, "watch-retry", step=5, total=11))
    await link.progress(Learner("b2", "Bo", epoch, "watch-retry", step=11, total=11, away=time.time() - 185))

    class Host(App):
        scenario_run = None   # (class_mode.ClassHost: no scenario open in this tab)

    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        member = ClassMember(app, ClassMode(app), ClassLink(link.address), teacher=True)
        app.run_worker(member.run(), group="classroom", exit_on_error=False)
        await app.push_screen(ClassOverviewScreen(member))

        def table() -> str:
            return _plain(app.screen.query_one("#class-learners", Static).content)

        try:
            await wait_until(pilot, lambda: "Ana" in table() and "Bo" in table(), DEADLINE)
        except AssertionError:
            raise AssertionError(table()) from None
        ana = next(line for line in table().splitlines() if "Ana" in line)
        bo = next(line for line in table().splitlines() if "Bo" in line)
        assert "step 6 of 11" in ana and "away" not in ana, ana  # 5 steps run: the tab shows step 6 (it said 5/11)
        assert "done: 11 steps" in bo and "away 3 min" in bo, bo
        await member.close()


async def test_a_name_over_the_limit_is_refused_saying_so(server_binary, class_env, monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LearnerNameScreen)
                             and bool(app.screen.query("Input")), DEADLINE)  # (pushed before its input is mounted)
            long = "N" * (MAX_NAME + 1)
            app.screen.query_one("Input").value = long
            await pilot.press("enter")

            def refusal() -> str:
                return str(app.screen.query_one("#name-refused", Static).render()) \
                    if isinstance(app.screen, LearnerNameScreen) else ""

            await wait_until(pilot, lambda: "characters" in refusal(), DEADLINE)  # (said: the enter was handled)
            assert isinstance(app.screen, LearnerNameScreen)  # not taken, not cut
            refused = refusal()
            assert f"{MAX_NAME + 1} characters" in refused and f"at most {MAX_NAME}" in refused, refused
            app.screen.query_one("Input").value = long[:MAX_NAME]
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.class_mode.member.me.name == long[:MAX_NAME], DEADLINE)

            async def joined() -> bool:
                return [learner.name for learner in await link.learners()] == [long[:MAX_NAME]]

            await _until_true(pilot, joined, "the name in the class")
    finally:
        await link.close()
