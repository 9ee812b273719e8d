"""The end of a class (serve --class), on a real class Redis (both servers): the teacher's
Alt+Q ends the class for every learner, and asks first (Esc: no); a learner's app ends when
the teacher ends the class (serve tells its tab, cli/tab_session.py); a learner's name is
asked over nothing, so that no text of the screen under it shows around the box."""

from __future__ import annotations

import asyncio
import os

import pytest

from playground.classroom.protocol import ENDED_EXIT, ENV_ROLE, ENV_URL, ClassLink
from playground.tui.app import make_app
from playground.tui.class_mode.class_screens import LearnerNameScreen
from playground.tui.dialogs.confirm import ConfirmScreen
from class_app import DEADLINE, join_as
from pilot import screen, wait_until


async def _subscribed(link: ClassLink) -> bool:
    _, count = (await link._run([[b"PUBSUB", b"NUMSUB", link.channel]]))[0]
    return int(count) > 0


async def _heard(link: ClassLink, kind: str, into: list) -> None:
    async for message in link.listen():
        into.append(message)
        if message["type"] == kind:
            return


@pytest.mark.slow
async def test_the_teachers_quit_asks_then_ends_the_class_for_every_learner(server_binary, class_env,
                                                                              monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "teacher")
    link = class_env
    await link.open_lesson("three-writes", False, "")  # the class has a lesson: the end closes it
    heard: list = []
    listening = asyncio.ensure_future(_heard(ClassLink(link.address), "end", heard))
    app = make_app(server_binary.path)
    try:
        async with app.run_test(size=(120, 35)) as pilot:
            await wait_until(pilot, lambda: app.class_mode.member is not None, DEADLINE)
            await pilot.press("ctrl+q")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), DEADLINE)
            assert "End the class for every learner?" in screen(app)
            await pilot.press("ctrl+q")  # again while asked: one question, not two
            await pilot.pause()
            assert sum(isinstance(s, ConfirmScreen) for s in app.screen_stack) == 1
            await pilot.press("escape")  # no: the class goes on, the app too
            await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), DEADLINE)
            assert app.is_running and not heard
            assert (await link.state()).lesson == "three-writes"

            await pilot.press("ctrl+q")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), DEADLINE)
            await pilot.press("y")
            async with asyncio.timeout(DEADLINE):
                await listening
            await wait_until(pilot, lambda: not app.is_running, DEADLINE)
        assert app.return_code == ENDED_EXIT  # serve: the teacher's tab says they ended the class
        assert heard[-1]["type"] == "end"
        assert (await link.state()).lesson == ""  # a tab that joins later waits for a lesson
    finally:
        listening.cancel()


@pytest.mark.slow
async def test_a_learners_app_ends_when_the_teacher_ends_the_class(server_binary, class_env, monkeypatch):
    monkeypatch.setenv(ENV_ROLE, "learner")
    link = class_env
    app = make_app(server_binary.path)
    async with app.run_test(size=(120, 35)) as pilot:
        await join_as(pilot, app)
        async with asyncio.timeout(DEADLINE):
            while not await _subscribed(link):  # the learner's app listens to the class
                await pilot.pause(0.05)  # polling a condition, bounded
        await link.end_class()
        await wait_until(pilot, lambda: not app.is_running, DEADLINE)
    assert app.return_code == ENDED_EXIT  # serve: its tab says the teacher ended the class


@pytest.mark.slow
async def test_a_learners_name_is_asked_over_nothing(server_binary, class_env, monkeypatch):
    """A late joiner's tab (a lesson running) asked their name over the waiting line and the
    panes' hints, dimmed but drawn around and under the box: now the box alone."""
    monkeypatch.setenv(ENV_ROLE, "learner")
    await class_env.open_lesson("three-writes", False, "")
    url = os.environ[ENV_URL]
    for size in ((120, 35), (80, 28)):
        monkeypatch.setenv(ENV_URL, url)  # (each app reads it once, and takes it out)
        text = await _asked_name(server_binary, size)
        assert "Your name, as your teacher will see it" in text
        for under in ("Waiting for your teacher", "Start here", "Client A", "Keys"):
            assert under not in text, (size, under, text)


async def _asked_name(server_binary, size: tuple[int, int]) -> str:
    """What a learner's new tab of `size` shows while it asks the learner's name."""
    app = make_app(server_binary.path)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnerNameScreen), DEADLINE)
        await pilot.pause()
        return screen(app)
