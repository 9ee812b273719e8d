"""`redis-playground serve` without a browser: its --help and its refusals, and the end of
an app process that leaves asyncio nothing to warn about."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from playground.cli.main import build_parser
from playground.cli.served_app import end_process
from playground import served
from paths import SRC as SRC_DIR

SRC = str(SRC_DIR)
DEADLINE = 30.0


def _serve_help() -> str:
    parser = build_parser()
    serve = parser._subparsers._group_actions[0].choices["serve"]
    return serve.format_help()


def test_serve_help_lists_only_what_serve_accepts():
    text = _serve_help()
    for option in ("--host", "--port", "--max-tabs", "--ready", "--session-grace", "--class", "--class-url",
                   "--class-url-file", "--class-name", "--new-period", "--server", "--clients", "--topology",
                   "--scenarios", "--lang"):
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


def _serve_class(*argv: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground", "--lang", "en", "serve", "--class", *argv],
                          capture_output=True, text=True, timeout=DEADLINE,
                          env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin", **env})


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("redis-playground: "), result.stderr
    assert "Traceback" not in result.stderr and "hunter2secret" not in result.stderr + result.stdout
    return lines[0]


def test_an_unreachable_class_url_is_one_line_without_its_password():
    line = _one_line(_serve_class("--class-url", "redis://127.0.0.1:1",
                                  REDIS_PLAYGROUND_CLASS_PASSWORD="hunter2secret"))
    assert "cannot use the class's Redis" in line


@pytest.mark.parametrize("url", ["redis://:hunter2secret@127.0.0.1:1", "rediss://me:hunter2secret@h:6380/2",
                                 "unix://me:hunter2secret@/tmp/class.sock"])
def test_a_class_password_on_the_command_line_is_refused_saying_how_to_give_it(url):
    line = _one_line(_serve_class("--class-url", url))
    assert "--class-url" in line and "REDIS_PLAYGROUND_CLASS_PASSWORD" in line and "--class-url-file" in line


def test_a_class_url_file_is_read_only_when_it_is_yours_alone(tmp_path):
    path = tmp_path / "class-url"
    path.write_text("redis://:hunter2secret@127.0.0.1:1\n")
    path.chmod(0o644)
    line = _one_line(_serve_class("--class-url-file", str(path)))
    assert f"chmod 600 {path}" in line
    path.chmod(0o600)
    assert "cannot use the class's Redis" in _one_line(_serve_class("--class-url-file", str(path)))
    assert "not both" in _one_line(_serve_class("--class-url-file", str(path), "--class-url", "redis://127.0.0.1:1"))
    assert "not a file" in _one_line(_serve_class("--class-url-file", "/dev/null"))
    path.write_text("\n")
    assert "empty" in _one_line(_serve_class("--class-url-file", str(path)))
    assert "No such file" in _one_line(_serve_class("--class-url-file", str(tmp_path / "none")))


@pytest.mark.parametrize("url, expected", [
    ("redis://127.0.0.1:6390", "redis://:p%40ss%3Aw@127.0.0.1:6390"),
    ("rediss://me@class.example:6380/2", "rediss://me:p%40ss%3Aw@class.example:6380/2"),
    ("unix:///tmp/class.sock?db=1", "unix://:p%40ss%3Aw@/tmp/class.sock?db=1"),
])
def test_the_password_from_the_environment_goes_into_the_url(url, expected):
    from playground.cli.class_serve import given_url
    from playground.classroom.class_server import address

    assert given_url(url, None, "p@ss:w") == expected
    assert address(expected).password == "p@ss:w"
    assert given_url(url, None, None) == url


def test_the_class_password_is_taken_out_of_serves_environment(server_binary, tmp_path, monkeypatch):
    """Given in the environment, the password reaches the apps in the class's URL only: serve
    removes the variable, which every app would otherwise inherit."""
    import argparse
    import os
    import secrets

    from playground.cli.class_serve import CLASS_PASSWORD_ENV, class_setup
    from playground.classroom.protocol import ENV_URL

    port, password = _free_port(), secrets.token_hex(16)
    proc = subprocess.Popen([server_binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path), "--requirepass", password],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        monkeypatch.setenv(CLASS_PASSWORD_ENV, password)
        args = argparse.Namespace(class_name="class", class_url=f"redis://127.0.0.1:{port}", class_url_file=None,
                                  server=None)
        setup = _wait_for_server(lambda: class_setup(args))
        assert not isinstance(setup, str), setup
        assert CLASS_PASSWORD_ENV not in os.environ
        assert setup.environment(teacher=False)[ENV_URL] == f"redis://:{password}@127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(attempt):
    """`attempt()` until the server listens (a string says what went wrong), bounded."""
    import os

    from playground.cli.class_serve import CLASS_PASSWORD_ENV

    given, end = os.environ.get(CLASS_PASSWORD_ENV), time.monotonic() + DEADLINE
    while True:
        result = attempt()
        if not isinstance(result, str) or time.monotonic() > end:
            return result
        os.environ[CLASS_PASSWORD_ENV] = given  # taken by the attempt that failed
        time.sleep(0.05)  # polling for the server to listen, bounded


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
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":  # noqa: ASYNC240 (procfs or a local path: no wait) — exited, not yet reaped
            assert time.monotonic() < end, "the child did not exit"
            time.sleep(0.01)  # noqa: ASYNC251 (on purpose) — polling a condition without running the loop (that would reap it)
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
