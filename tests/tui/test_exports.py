"""Exports (transcripts, screenshots, timelines) land in the current directory by default,
and the app says where, with the full path."""

from __future__ import annotations

import pytest

from playground.history import exports_dir
from playground.tui.app import make_app
from pilot import hear_notices, log_text, notices, started, type_command, wait_until
from servers import shared


@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)



def test_exports_default_to_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_PLAYGROUND_EXPORT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert exports_dir() == tmp_path
    monkeypatch.setenv("REDIS_PLAYGROUND_EXPORT_DIR", "relative/dir")
    assert exports_dir() == tmp_path / "relative" / "dir"  # absolute, to be said on screen


async def test_transcript_and_screenshot_say_their_full_path(server_binary, export_dir):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        app.action_export_transcript()
        app.action_save_svg()
        await pilot.pause()
        transcript = export_dir / "session-transcript.md"
        assert "SET k v" in transcript.read_text()
        messages = notices(app)
        assert any(str(transcript) in m for m in messages), messages
        svgs = list(export_dir.glob("*.svg"))
        assert len(svgs) == 1 and any(str(svgs[0]) in m for m in messages), (svgs, messages)


# -- secrets: every export leaves them out, through one function (cli_secrets.redact_exchange)

import stat  # noqa: E402


from playground.resp.cli_secrets import redact_exchange  # noqa: E402
from playground.scenario import transcript  # noqa: E402
from playground.scenario.loader import load_scenario  # noqa: E402
from playground.scenario.runner import Runner  # noqa: E402
from playground.scenario.stepper import Stepper  # noqa: E402


@pytest.mark.parametrize("line,shown", [
    ("AUTH hunter2", "AUTH <secret>"),
    ("AUTH default hunter2", "AUTH default <secret>"),
    ("CONFIG SET requirepass hunter2", "CONFIG SET requirepass <secret>"),
    ("CONFIG SET maxmemory 1mb masterauth hunter2", "CONFIG SET maxmemory 1mb masterauth <secret>"),
    ("ACL SETUSER bob on >hunter2 ~* +@all", "ACL SETUSER bob on <secret> ~* +@all"),
    ("HELLO 3 AUTH u hunter2", "HELLO 3 AUTH u <secret>"),
    ("MIGRATE 127.0.0.1 1 k 0 10 AUTH hunter2", "MIGRATE 127.0.0.1 1 k 0 10 AUTH <secret>"),
    ('MIGRATE 127.0.0.1 1 "" 0 10 AUTH2 u hunter2 KEYS a', 'MIGRATE 127.0.0.1 1 "" 0 10 AUTH2 u <secret> KEYS a'),
    ("SET hunter2 x", "SET hunter2 x"),
])
def test_commands_with_a_secret_are_redacted(line, shown):
    assert redact_exchange(line)[0] == shown


@pytest.mark.parametrize("line,reply,shown", [
    ("CONFIG GET requirepass", '1) "requirepass"\n2) "hunter2"', '1) "requirepass"\n2) "<secret>"'),
    ("CONFIG GET masterauth", 'masterauth\nhunter2', 'masterauth\n<secret>'),
    ("CONFIG GET *", '1# "masterauth" => "hunter2"\n2# "port" => "6379"',
     '1# "masterauth" => "<secret>"\n2# "port" => "6379"'),
    ("ACL LIST", '1) "user bob on #' + "ab" * 32 + ' ~* +@all"', '1) "user bob on #<secret> ~* +@all"'),
    ("GET requirepass", '"hunter2"', '"hunter2"'),  # a key's value is no password
    ("EXEC", '1) OK\n2) 1) "requirepass"\n   2) "hunter2"', '1) OK\n2) 1) "requirepass"\n   2) "<secret>"'),
    ("EVAL \"return redis.call('CONFIG','GET','masterauth')\" 0", '1) "masterauth"\n2) "hunter2"',
     '1) "masterauth"\n2) "<secret>"'),
    ("LRANGE l 0 -1", '1) "requirepass"\n2) "hunter2"', '1) "requirepass"\n2) "hunter2"'),  # data, not CONFIG
])
def test_replies_that_echo_a_secret_are_redacted(line, reply, shown):
    assert redact_exchange(line, reply)[1] == shown


SECRET_SCENARIO = """title = "Secrets"
lesson = "Passwords never reach a transcript."
setup = ["SET k v"]

[[steps]]
client = "A"
command = "AUTH hunter2"

[[steps]]
client = "A"
command = "CONFIG GET masterauth"

[[steps]]
client = "B"
command = "ACL SETUSER bob on >bobpw"

[[steps]]
client = "B"
command = "HELLO 3 AUTH bob hunter2"

[[steps]]
client = "B"
command = "MIGRATE 127.0.0.1 1 nokey 0 10 AUTH hunter2"

[[steps]]
client = "A"
command = "CONFIG SET requirepass hunter2"
"""


async def set_masterauth(pg, value: bytes = b"hunter2") -> None:
    """A password the server echoes (CONFIG GET masterauth), set on the app's own admin
    connection: learners may not CONFIG SET (server/sandbox.py)."""
    assert await pg.admin.run([[b"CONFIG", b"SET", b"masterauth", value]]) == [b"OK"]


async def test_scenario_transcripts_and_timeline_leave_secrets_out(tmp_path, pg):
    path = tmp_path / "secrets.toml"
    path.write_text(SECRET_SCENARIO)
    scenario = load_scenario(path)
    await set_masterauth(pg)
    result = await Runner(pg).run(scenario)
    assert result.error is None and result.steps[1].value == [b"masterauth", b"hunter2"]
    outputs = {"text": transcript.render_text(result, server_order=True),
               "markdown": transcript.render_markdown(result),
               "json": "".join(transcript.json_step(result.server, scenario, s) for s in result.steps)}
    stepper = Stepper(pg, scenario)
    await stepper.start()
    await set_masterauth(pg)
    await stepper.run_to_end()
    outputs["timeline"] = stepper.timeline.render_markdown(scenario.clients)
    outputs["timeline text"] = stepper.timeline.render_text(scenario.clients)
    for kind, text in outputs.items():
        assert "hunter2" not in text and "bobpw" not in text, (kind, text)
        assert "<secret>" in text, kind


async def test_session_exports_leave_secrets_out_and_are_0600(server_binary, export_dir):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await set_masterauth(app.playground)
        for line in ("AUTH hunter2", "CONFIG SET masterauth hunter2", "CONFIG GET masterauth",
                     "ACL SETUSER bob on >bobpw", "MULTI", "CONFIG GET masterauth", "EXEC"):
            await type_command(pilot, app, "A", line)
        app.action_export_transcript()
        app.action_save_svg()
        await wait_until(pilot, lambda: list(export_dir.glob("*.svg")))
        transcript_file = export_dir / "session-transcript.md"
        svg = list(export_dir.glob("*.svg"))[0]
        for path in (transcript_file, svg):
            text = path.read_text()
            assert "hunter2" not in text and "bobpw" not in text, path
            assert "secret" in text, path
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert "CONFIG SET masterauth <secret>" in transcript_file.read_text()
        shown = "\n".join(log_text(app, "A"))
        assert "AUTH hunter2" in shown and '2) "hunter2"' in shown  # the screen is drawn again as it was


async def test_explore_reports_leave_secrets_out(pg):
    from playground.explore.explorer import explore
    from playground.explore.free_play import typed_scenario
    from playground.explore.report import RENDERERS

    result = await explore(pg, typed_scenario([("A", "AUTH hunter2"), ("B", "SET k 1")]))
    for kind, render in RENDERERS.items():
        text = render(result)
        assert "hunter2" not in text and "<secret>" in text, (kind, text)
