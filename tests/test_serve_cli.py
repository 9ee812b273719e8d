"""`redis-playground serve` without a browser: its --help and its refusals, and the end of
an app process that leaves asyncio nothing to warn about."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from playground.cli.main import build_parser
from playground.cli.web_server import end_process
from playground import served

SRC = str(Path(__file__).resolve().parents[1] / "src")
DEADLINE = 30.0


def _serve_help() -> str:
    parser = build_parser()
    serve = parser._subparsers._group_actions[0].choices["serve"]
    return serve.format_help()


def test_serve_help_lists_only_what_serve_accepts():
    text = _serve_help()
    for option in ("--host", "--port", "--max-tabs", "--ready", "--session-grace", "--class", "--class-url", "--class-name", "--new-period", "--server", "--clients", "--topology", "--scenarios", "--lang"):
        assert option in text
    for option in ("--url", "--allow-flush", "--tls", "--cacert", "--cert", "--key", "--insecure", "--user", "TLS"):
        assert option not in text, option


@pytest.mark.parametrize("argv, option", [(["serve", "--url", "redis://127.0.0.1:1"], "--url"),
                                          (["--url", "redis://127.0.0.1:1", "serve"], "--url"),
                                          (["serve", "--tls"], "--tls"), (["serve", "--allow-flush"], "--allow-flush"),
                                          (["serve", "--max-tabs", "0"], "--max-tabs"),
                                          (["serve", "--session-grace", "-1"], "--session-grace"),
                                          (["serve", "--ready", "-1"], "--ready"),
                                          (["serve", "--class-url", "redis://127.0.0.1:1"], "--class-url"),
                                          (["serve", "--class", "--class-url", "http://x"], "--class-url"),
                                          (["serve", "--class", "--class-name", "a/b"], "--class-name"),
                                          (["serve", "--new-period"], "--new-period")])
def test_url_options_are_refused_in_one_line(argv, option):
    result = subprocess.run([sys.executable, "-m", "playground", "--lang", "en", *argv], capture_output=True,
                            text=True, timeout=DEADLINE, env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("redis-playground: ") and option in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreachable_class_url_is_one_line_without_its_password():
    result = subprocess.run([sys.executable, "-m", "playground", "--lang", "en", "serve", "--class", "--class-url",
                             "redis://:hunter2secret@127.0.0.1:1"], capture_output=True, text=True, timeout=DEADLINE,
                            env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot use the class's Redis" in lines[0], result.stderr
    assert "hunter2secret" not in result.stderr + result.stdout


def test_an_app_that_has_just_exited_is_ended_without_a_warning(caplog):
    """The race on a tab's close: the app exits on its own just as serve ends it. The exit is
    left unreaped here (a child watcher that reaps only when the loop runs), so the old
    Process.terminate (which polls, and so reaps) made asyncio warn "Unknown child process"."""
    if not hasattr(asyncio, "SafeChildWatcher"):
        pytest.skip("this Python has no SafeChildWatcher to hold the exit unreaped")

    async def scenario() -> None:
        process = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
        end = time.monotonic() + DEADLINE
        stat = Path(f"/proc/{process.pid}/stat")
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":  # exited, not yet reaped
            assert time.monotonic() < end, "the child did not exit"
            time.sleep(0.01)  # polling a condition without running the loop (that would reap it)
        await end_process(process, 5.0)
        assert process.returncode == 0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        policy = asyncio.get_event_loop_policy()
        loop = asyncio.new_event_loop()
        watcher = asyncio.SafeChildWatcher()
        watcher.attach_loop(loop)
        policy.set_child_watcher(watcher)
        try:
            with caplog.at_level(logging.WARNING, logger="asyncio"):
                loop.run_until_complete(scenario())
        finally:
            watcher.close()
            policy.set_child_watcher(None)
            loop.close()
    assert not [r for r in caplog.records if "Unknown child process" in r.getMessage()], caplog.text


def test_served_keys_only_under_serve(monkeypatch):
    monkeypatch.delenv(served.ENV, raising=False)
    assert served.keys("ctrl+n") == "ctrl+n" and served.key_display("ctrl+n") is None
    assert served.label("Space/Ctrl+N next") == "Space/Ctrl+N next"
    monkeypatch.setenv(served.ENV, "1")
    assert served.keys("ctrl+n") == "alt+n,ctrl+n" and served.key_display("ctrl+n") == "Alt+N"
    assert served.keys("escape,ctrl+w") == "escape,alt+w,ctrl+w" and served.key_display("f1") is None
    assert served.label("Space/Ctrl+N next · Ctrl+T · Ctrl+P · Ctrl+Q") == "Space/Alt+N next · Alt+T · Ctrl+P · Alt+Q"
