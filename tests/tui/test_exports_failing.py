"""Every file the app writes (transcript, SVG and timeline exports, F9 recordings, the
panes' history) can fail to be written: a name that cannot be replaced (a directory is
there; an export is written to a file of its own and renamed over its name, so a link to
/dev/full is replaced, not written through: tests/tui/test_export_files.py) or a directory
that cannot be made. Each is one notice naming the path and the OS's reason,
and the app goes on with nothing else lost."""

from __future__ import annotations

import pytest

from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen
from pilot import hear_notices, notices, reply_to, started, type_command, untimed, wait_until
from pilot import opened, press_and_wait, scenario
from playground.tui.dialogs.scenario_dialogs import TimelineScreen
from servers import shared

UNWRITABLE = "/dev/full/exports"  # a directory under a device: mkdir says "Not a directory"


@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)


def unreplaceable(path):
    """`path` (an export's name) as a directory: the export cannot be renamed over it (EISDIR)."""
    path.mkdir(parents=True)
    return path


async def still_typing(pilot, app):
    await type_command(pilot, app, "B", "SET after 1")
    assert untimed(reply_to(app, "B", "SET after 1")) == ["OK"]


async def test_transcript_that_cannot_be_written_is_a_notice(server_binary, export_dir):
    target = unreplaceable(export_dir / "session-transcript.md")
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        app.action_export_transcript()
        await pilot.pause()
        said = [m for m in notices(app) if "Is a directory" in m]
        assert said and str(target) in said[0] and "\n" not in said[0], notices(app)
        await still_typing(pilot, app)
        assert untimed(reply_to(app, "A", "SET k v")) == ["OK"]  # nothing of the export in the pane


async def test_screenshot_where_no_directory_can_be_made(server_binary, monkeypatch):
    monkeypatch.setenv("REDIS_PLAYGROUND_EXPORT_DIR", UNWRITABLE)
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        app.action_save_svg()
        await pilot.pause()
        said = [m for m in notices(app) if "Could not write" in m]
        assert said and "/dev/full" in said[0] and "Not a directory" in said[0], notices(app)
        await still_typing(pilot, app)


async def test_timeline_export_to_a_unreplaceable(server_binary, export_dir):
    target = unreplaceable(export_dir / "watch-abort-timeline.md")
    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "e")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, TimelineScreen))
        await pilot.press("x")
        await pilot.pause()
        said = [m for m in notices(app) if "Is a directory" in m]
        assert said and str(target) in said[0], notices(app)
        assert isinstance(app.screen, TimelineScreen)  # still open, the app still running


@pytest.fixture
def unwritable_state(monkeypatch):
    monkeypatch.setenv("REDIS_PLAYGROUND_STATE_DIR", "/dev/full/state")


async def test_recording_and_history_where_the_state_dir_cannot_be_made(server_binary, unwritable_state):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k 1")
        said = [m for m in notices(app) if "history kept for this run only" in m]
        assert len(said) == 1 and "/dev/full/state" in said[0] and "Not a directory" in said[0], notices(app)
        await type_command(pilot, app, "A", "SET k 2")  # said once
        assert len([m for m in notices(app) if "history kept" in m]) == 1
        app.mode_screen.action_record()
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.recorder is not None)
        await type_command(pilot, app, "A", "INCR n")
        app.mode_screen.action_record()
        await pilot.pause()
        said = [m for m in notices(app) if "still recording" in m]
        assert said and "/dev/full/state" in said[0] and "Not a directory" in said[0], notices(app)
        assert app.recorder is not None and len(app.recorder) == 1  # nothing lost: F9 tries again
        await still_typing(pilot, app)
        assert len(app.recorder) == 2
