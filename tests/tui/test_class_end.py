"""A class's learner tab (serve --class), on a real class Redis (both servers): a learner's
name is asked over nothing, so that no text of the screen under it shows around the box."""

from __future__ import annotations

import os

import pytest

from playground.classroom.protocol import ENV_ROLE, ENV_URL
from playground.tui.app import make_app
from playground.tui.class_mode.class_screens import LearnerNameScreen
from class_app import DEADLINE
from pilot import screen, wait_until


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
