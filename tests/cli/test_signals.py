"""Signals and missing terminals, tried as a CI job or a careless shell would: whatever
hangs, SIGTERM and SIGINT end `repl` within 3 s with its server gone; the app without a
terminal says so in one line instead of spinning or hanging."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HANGS = {  # input that leaves client A waiting for ever, then a line of B's to know when
    "blpop-forever": (b"A> BLPOP l 0\nB> PING\n", b"PONG\n"),
    "client-reply-skip": (b"A> CLIENT REPLY SKIP\nB> PING\n", b"PONG\n"),
    "busy-script": (b'A> EVAL "while true do end" 0\nB> PING\n', b"(error) BUSY"),
}


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def _servers_of(pid: int) -> list[int]:
    """The server processes whose parent is `pid` (by executable: a server rewrites its title)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            exe = os.path.basename(os.readlink(entry / "exe"))
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and exe.endswith("-server"):
            found.append(int(entry.name))
    return found


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if "State:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("hang", sorted(HANGS))
def test_the_first_signal_ends_a_hanging_repl_within_3_s_and_its_server(hang, sig):
    """stdin stays open (a person at the keyboard, or `timeout 60 redis-playground repl`):
    the first SIGTERM used to be ignored while a client waited."""
    text, answer = HANGS[hang]
    app = subprocess.Popen([sys.executable, "-m", "playground", "repl", "--server", "bundled"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        app.stdin.write(text)
        app.stdin.flush()
        assert app.stdout.readline().startswith(answer)  # A hangs now; B was answered
        servers = _servers_of(app.pid)
        assert len(servers) == 1
        app.send_signal(sig)
        app.wait(timeout=3)
        assert _gone(servers[0], within=1), "the server outlived the app"
        assert b"Traceback" not in app.stderr.read()
    finally:
        app.kill()
        app.wait()


def test_the_app_without_a_terminal_says_so_in_one_line_and_ends():
    """`redis-playground </dev/null | head -c 100`: no terminal to draw on or read keys
    from. It used to spin at full CPU, and after SIGTERM with the pipe closed, hang with
    its server alive; now it says so and exits before starting a server."""
    app = subprocess.Popen([sys.executable, "-m", "playground", "--server", "bundled"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        app.stdout.close()  # what `head -c 100` does once it has enough (here: at once)
        app.wait(timeout=5)
        err = app.stderr.read().decode()
        assert app.returncode == 2
        assert err == ("redis-playground: the app needs a terminal: its input (stdin) or its screen (stderr) "
                       "is not one; for scripts use repl, run or check\n")
    finally:
        app.kill()
        app.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_ends_the_app_on_a_terminal_within_3_s_and_its_server(sig):
    """The app on a terminal (a pty): `kill -TERM`, `kill -INT` (Ctrl+C is a key there,
    not a signal) and a hang-up each end it within 3 s, its server too. (This held
    before: it guards the terminal case beside the one above, which did not.)"""
    import pty
    import threading

    master, slave = pty.openpty()
    app = subprocess.Popen([sys.executable, "-m", "playground", "--server", "bundled"], stdin=slave,
                           stdout=slave, stderr=slave, env=dict(_env(), TERM="xterm-256color"),
                           start_new_session=True)
    os.close(slave)
    seen = bytearray()
    drawn = threading.Event()

    def drain() -> None:  # the terminal's reader: the app never blocks writing to it
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen.extend(chunk)
            if b"Valkey" in seen:  # the server bar: mounted, and the playground started
                drawn.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        assert drawn.wait(30), bytes(seen[-500:])
        servers = _servers_of(app.pid)
        assert len(servers) == 1
        app.send_signal(sig)
        app.wait(timeout=3)
        assert _gone(servers[0], within=1), "the server outlived the app"
    finally:
        app.kill()
        app.wait()
        os.close(master)


@pytest.mark.slow
def test_the_first_sigterm_ends_check_during_a_setup_that_never_answers(tmp_path):
    """`check` stuck in a setup (a script that loops for ever, a time limit far away):
    one SIGTERM ends it within 3 s, and its server."""
    (tmp_path / "loop.toml").write_text('title = "Loop"\nlesson = "Never ends."\n'
                                        "setup = ['EVAL \"while true do end\" 0']\n"
                                        '[[steps]]\nclient = "A"\ncommand = "GET k"\n', encoding="utf-8")
    app = subprocess.Popen([sys.executable, "-m", "playground", "check", "--server", "bundled", "--time-limit", "600",
                            str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        assert app.stdout.readline().startswith(b"on Valkey")
        servers = _servers_of(app.pid)
        assert len(servers) == 1
        deadline = time.monotonic() + 10  # the script runs: the server's CPU time grows
        while _cpu_ticks(servers[0]) < 20:
            assert time.monotonic() < deadline, "the setup's script never ran"
            time.sleep(0.05)
        app.send_signal(signal.SIGTERM)
        app.wait(timeout=3)
        assert _gone(servers[0], within=1), "the server outlived the app"
    finally:
        app.kill()
        app.wait()


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime + stime
