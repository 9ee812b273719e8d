"""Files the app writes never follow a planted symlink and never overwrite each other:
exports are written to a file of their own and renamed over their name
(history.write_private), recordings are new files (history.create_private: a second one
of the same second gets -2); under `serve`, F9's recordings stay in the learner's own
session, never in a shared --scenarios folder."""

from __future__ import annotations

import os
import stat

import pytest

from playground import served
from playground.history import write_private
from playground.scenario import recorder as recorder_module
from playground.scenario.recorder import Recorder
from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen
from pilot import hear_notices, notices, started, type_command, wait_until
from servers import shared as shared_server


def _planted(tmp_path, name: str):
    """A file of someone else's (the victim) and a symlink to it at `name` in `tmp_path`/out."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / name).symlink_to(victim)
    return victim, out / name


def test_an_export_replaces_a_planted_symlink_and_leaves_its_target_alone(tmp_path):
    victim, link = _planted(tmp_path, "session-transcript.md")
    assert write_private(link, "# transcript\n") == link
    assert victim.read_text() == "precious\n"
    assert not link.is_symlink() and link.read_text() == "# transcript\n"
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert sorted(p.name for p in link.parent.iterdir()) == ["session-transcript.md"]  # no temp file left


def test_an_export_overwrites_its_own_earlier_file(tmp_path):
    path = tmp_path / "t.md"
    write_private(path, "one\n")
    write_private(path, "two\n")
    assert path.read_text() == "two\n"


def _recorder(line: str) -> Recorder:
    rec = Recorder()
    rec.sent("A", line)
    rec.replied("A", "OK\n", b"OK")
    return rec


def test_two_recordings_of_the_same_second_are_two_files(tmp_path, monkeypatch):
    monkeypatch.setattr(recorder_module.time, "strftime", lambda fmt: "20260101-120000")
    victim, _ = _planted(tmp_path, "recorded-session-20260101-120000.toml")
    first = _recorder("SET first 1").save(tmp_path / "out", "Recorded session", ("A", "B"))
    second = _recorder("SET second 2").save(tmp_path / "out", "Recorded session", ("A", "B"))
    assert victim.read_text() == "precious\n"  # the planted name was taken: not followed
    assert (first.name, second.name) == ("recorded-session-20260101-120000-2.toml",
                                         "recorded-session-20260101-120000-3.toml")
    assert "SET first 1" in first.read_text() and "SET second 2" in second.read_text()
    assert stat.S_IMODE(first.stat().st_mode) == 0o600


@pytest.mark.asyncio
async def test_a_served_recording_stays_in_the_session_not_the_shared_scenarios_folder(
        server_binary, tmp_path, monkeypatch, private_state_dir):
    hear_notices(monkeypatch)
    monkeypatch.setenv(served.ENV, "1")
    shared = tmp_path / "shared-scenarios"
    shared.mkdir()
    app = make_app(server=shared_server(server_binary), scenario_dirs=[str(shared)])
    sent = []
    monkeypatch.setattr(app, "deliver_binary", lambda path, **kwargs: sent.append(path))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        for n in (1, 2):  # two recordings: within the same second, or not, two files
            app.mode_screen.action_record()
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await wait_until(pilot, lambda: app.recorder is not None)
            await type_command(pilot, app, "A", f"SET k{n} {n}")
            app.mode_screen.action_record()
            await wait_until(pilot, lambda n=n: len(sent) == n)
    assert os.listdir(shared) == []
    own = private_state_dir / "scenarios"
    assert sorted(sent) == sorted(own.glob("*.toml")) and len(set(sent)) == 2
    assert any("SET k1 1" in p.read_text() for p in sent) and any("SET k2 2" in p.read_text() for p in sent)
    assert any("sent to your browser" in m for m in notices(app))
