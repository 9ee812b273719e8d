"""Exports (transcripts, screenshots, timelines) land in the current directory by default,
and the app says where, with the full path."""

from __future__ import annotations

from playground.history import exports_dir
from playground.tui.app import make_app
from test_tui import started, type_command, wait_until


def test_exports_default_to_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_PLAYGROUND_EXPORT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert exports_dir() == tmp_path
    monkeypatch.setenv("REDIS_PLAYGROUND_EXPORT_DIR", "relative/dir")
    assert exports_dir() == tmp_path / "relative" / "dir"  # absolute, to be said on screen


async def test_transcript_and_screenshot_say_their_full_path(server_binary, export_dir):
    app = make_app(server_binary.path)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        app.action_export_transcript()
        app.action_save_svg()
        await pilot.pause()
        transcript = export_dir / "session-transcript.md"
        assert "SET k v" in transcript.read_text()
        messages = [n.message for n in app._notifications]
        assert any(str(transcript) in m for m in messages), messages
        svgs = list(export_dir.glob("*.svg"))
        assert len(svgs) == 1 and any(str(svgs[0]) in m for m in messages), (svgs, messages)
