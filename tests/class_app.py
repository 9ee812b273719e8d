"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

import pytest
from pilot import wait_until

from playground.classroom import class_server
from playground.classroom.protocol import ENV_NAME, ENV_URL, ClassLink
from playground.tui.class_mode.class_screens import LearnerNameScreen

DEADLINE = 20.0


@pytest.fixture
def class_env(private_server, monkeypatch, tmp_path):
    """The class's Redis (a private server of its own) in the app's environment, as serve sets it."""
    url = class_server.private_url(private_server)
    monkeypatch.setenv(ENV_URL, url)
    monkeypatch.setenv(ENV_NAME, "class")
    monkeypatch.setenv("REDIS_PLAYGROUND_STATE_DIR", str(tmp_path / "state"))
    return ClassLink(class_server.address(url))


async def join_as(pilot, app, name: str = "Ana") -> None:
    """A learner's tab: its name asked first, then given."""
    await wait_until(pilot, lambda: isinstance(app.screen, LearnerNameScreen), DEADLINE)
    await pilot.press(*name, "enter")


async def _until(pilot, predicate, what: str) -> None:
    import time

    end = time.monotonic() + DEADLINE
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.05)  # polling a condition, bounded

async def _until_true(pilot, check, what: str) -> None:
    import time

    end = time.monotonic() + DEADLINE
    while not await check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await pilot.pause(0.05)  # polling a condition, bounded


def _plain(renderable) -> str:
    """What a Static shows, as text (a rich Table or Text)."""
    import io

    from rich.console import Console

    console = Console(width=110, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


ASKS = '''title = "Who wins?"
lesson = "Made in the teacher's tab: no learner's library has it."

[[steps]]
client = "A"
command = "SET k a"
predict = { question = "What does GET k say after both writes?", choices = ["a", "b"], answer = 2, explain = "B wrote last." }

[[steps]]
client = "B"
command = "SET k b"
'''  # noqa: E501 (a TOML inline table is one line)
