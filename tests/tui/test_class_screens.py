"""Class mode's screens (tui/class_mode/class_screens.py) on a real class Redis, both servers: the
teacher's overview lists each learner's step, predictions and challenge and follows the
class live; the histogram has a bar per answer."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from textual.app import App
from textual.widgets import Static

from playground.classroom import class_server
from playground.classroom.protocol import ClassLink, Learner
from playground.scenario.model import Prediction
from playground.tui.class_mode.class_screens import ClassOverviewScreen, histogram
from playground.tui.class_mode.class_member import ClassMember
from playground.tui.class_mode.class_mode import ClassMode
from class_app import _plain, _until

DEADLINE = 20.0


def test_the_histogram_has_a_bar_per_answer_and_says_how_many_answered():
    prediction = Prediction("What?", ("one", "two", "three"), 2, "because")
    text = histogram(prediction, Counter({1: 1, 2: 3}), learners=5).plain
    lines = text.splitlines()
    assert lines[0] == "1. one" and lines[2] == "2. two" and lines[4] == "3. three"
    assert lines[3].count("█") == 30 and lines[1].count("█") == 10 and lines[5].strip() == "0"
    assert lines[1].endswith(" 1") and lines[3].endswith(" 3")
    assert lines[-1] == "4 of 5 learners answered"




@pytest.mark.asyncio
async def test_the_overview_follows_the_class(private_server):
    address = class_server.address(class_server.private_url(private_server))
    learners = ClassLink(address)
    epoch = await learners.open_lesson("refresh-double-spend", challenge=True)
    await learners.progress(Learner("a1", "Ana", epoch, "refresh-double-spend", step=4, right=1, answered=2, won=True))
    await learners.progress(Learner("b2", "Bo", epoch - 1, "lost-update", step=2, total=6))  # an older lesson's

    await learners.set_step(epoch, 2)

    class Host(App):
        # the teacher's own tab on the class's lesson: its open scenario run, as much of it as
        # the overview reads (the scenario's id, the stepper's steps)
        scenario_run = SimpleNamespace(scenario=SimpleNamespace(id="refresh-double-spend"),
                                       stepper=SimpleNamespace(flat=[None] * 6))

    app = Host()
    async with app.run_test(size=(120, 30)) as pilot:
        classroom = ClassMember(app, ClassMode(app), ClassLink(address), teacher=True)
        app.run_worker(classroom.run(), group="classroom", exit_on_error=False)
        await app.push_screen(ClassOverviewScreen(classroom))
        table = lambda: _plain(app.screen.query_one("#class-learners", Static).content)  # noqa: E731
        head = lambda: _plain(app.screen.query_one("#class-state", Static).content)  # noqa: E731
        await _until(pilot, lambda: "Ana" in table() and "Bo" in table(), "both learners listed")
        assert "refresh-double-spend" in head() and "(challenge)" in head() and "follow me" in head()
        assert "You: step 3 of 6" in head(), head()  # the teacher's own place, from the app's scenario run
        ana = next(line for line in table().splitlines() if "Ana" in line)
        bo = next(line for line in table().splitlines() if "Bo" in line)
        assert "won" in ana and "1/2" in ana and "4" in ana, ana
        assert "won" not in bo and "2/" not in bo, bo  # an older lesson's place is not this one's
        await learners.progress(Learner("c3", "Cy", epoch, "refresh-double-spend", step=1, won=False))
        await _until(pilot, lambda: "Cy" in table(), "a learner who joins later, live")
        assert "not yet" in next(line for line in table().splitlines() if "Cy" in line)
        await pilot.press("m")
        await _until(pilot, lambda: "own pace" in head(), "own pace chosen")
        assert (await learners.state()).mode == "own"
        assert len(classroom.watchers) == 1  # the overview, once (not twice: it would outlive the screen)
        await app.pop_screen()
        await _until(pilot, lambda: not classroom.watchers, "the closed overview no longer follows the class")
        await classroom.close()
    await learners.close()
