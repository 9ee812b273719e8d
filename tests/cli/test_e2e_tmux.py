"""End to end in a real terminal: the installed `redis-playground` in tmux, typing into
both panes and reading the screen, then quitting and checking nothing is left behind."""

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest


# A tmux server of our own, shared with no one, and a fresh one for every test: a server
# told to kill-server exits asynchronously, and a new session asked of it meanwhile dies
# with it (the next test then saw an empty screen).
SOCKET = ""


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=20).stdout


def screen(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session)


def wait_for(session: str, text: str, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = screen(session)
        if text in content:
            return content
        time.sleep(0.1)
    state = tmux("list-panes", "-a", "-F", "#{session_name} dead=#{pane_dead} status=#{pane_dead_status}")
    raise AssertionError(f"{text!r} never appeared on screen:\n{screen(session)}\npanes: {state or 'none'}")


def wait_for_reply(session: str, typed: str, reply: str, timeout: float = 15) -> str:
    """Until the pane shows the line `typed` and, on the next line of that pane, `reply`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = screen(session)
        rows = content.splitlines()
        for i, row in enumerate(rows[:-1]):
            column = row.find(typed)
            if column >= 0 and rows[i + 1][column:column + len(reply) + 1] == reply + " ":
                return content
        time.sleep(0.1)
    raise AssertionError(f"{typed!r} then {reply!r} never appeared on screen:\n{screen(session)}")


@pytest.fixture
def session():
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test (apt-get install tmux)"
    global SOCKET
    SOCKET = f"playground-test-{uuid.uuid4().hex[:8]}"
    name = f"pg-{uuid.uuid4().hex[:8]}"
    yield name
    tmux("kill-server")


@pytest.mark.slow
def test_watch_abort_in_a_real_terminal(session, server_binary, private_state_dir):
    # Under pytest, COLUMNS=80 and LINES=24 reach the tmux server's environment, and
    # Textual (like shutil.get_terminal_size) believes them over the real window size.
    command = f"env -u COLUMNS -u LINES {sys.executable} -m playground --server {server_binary.path}"
    tmux("new-session", "-d", "-x", "160", "-y", "45", "-s", session,
         "-e", f"REDIS_PLAYGROUND_STATE_DIR={private_state_dir}", command)
    wait_for(session, server_binary.version)
    wait_for(session, "▶ Client A")
    # A line typed while the client still waits for its reply is refused (it stays in the
    # input): as a person would, wait for each reply before typing the next line.
    tmux("send-keys", "-t", session, "SET balance 150", "Enter")
    wait_for_reply(session, "A> SET balance 150", "OK")
    tmux("send-keys", "-t", session, "WATCH balance", "Enter")
    wait_for(session, "A  WATCH balance")  # A's state line: the WATCH has run
    tmux("send-keys", "-t", session, "F3")
    wait_for(session, "▶ Client B")  # the focus has landed before we type
    tmux("send-keys", "-t", session, "SET balance 200", "Enter")
    wait_for_reply(session, "B> SET balance 200", "OK")
    wait_for(session, "dirty — EXEC will abort")
    tmux("send-keys", "-t", session, "F2")
    wait_for(session, "▶ Client A")
    for line, reply in [("MULTI", "OK"), ("DECRBY balance 100", "QUEUED"), ("EXEC", "(nil)")]:
        tmux("send-keys", "-t", session, line, "Enter")
        content = wait_for_reply(session, f"A> {line}", reply)
    assert '"200"' in content  # the inspector shows B's value
    pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
    server_dirs = [d for d in os.listdir("/tmp") if d.startswith(f"redis-playground-{pid}-")]
    assert server_dirs, "the app's private server dir should exist while it runs"
    tmux("send-keys", "-t", session, "C-q")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/tmp/{d}") for d in server_dirs):
        time.sleep(0.1)
    assert not any(os.path.exists(f"/tmp/{d}") for d in server_dirs)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.slow
def test_closing_the_terminal_ends_the_app_and_its_server(session, server_binary, private_state_dir):
    """The terminal goes away mid-lesson (tmux killed: SIGHUP) after much drawing: the
    app and its server are gone within seconds. (Textual's own shutdown could wait
    forever for its output thread, which died writing to the closed terminal.)"""
    command = (f"env -u COLUMNS -u LINES {sys.executable} -m playground --server {server_binary.path} "
               "open watch-abort")
    tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", session,
         "-e", f"REDIS_PLAYGROUND_STATE_DIR={private_state_dir}", command, ";",
         "set-option", "-t", session, "remain-on-exit", "on")  # a crash stays readable
    wait_for(session, "watch-abort")
    pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
    for step in range(2, 6):
        tmux("send-keys", "-t", session, "Space")
        wait_for(session, f"step {step} of 11")
    tmux("send-keys", "-t", session, "C-t")
    wait_for(session, "Server order")
    server_dirs = [d for d in os.listdir("/tmp") if d.startswith(f"redis-playground-{pid}-")]
    assert server_dirs
    tmux("kill-server")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (_running(pid) or any(os.path.exists(f"/tmp/{d}") for d in server_dirs)):
        time.sleep(0.1)
    assert not _running(pid), "the app outlived its terminal"
    assert not any(os.path.exists(f"/tmp/{d}") for d in server_dirs)


def test_a_bracketed_paste_runs_each_line_in_order(session, server_binary, private_state_dir):
    """A block pasted into a pane (tmux's paste-buffer -p: bracketed, as a terminal
    pastes) runs line by line after one question (Input kept its first line only)."""
    command = f"env -u COLUMNS -u LINES {sys.executable} -m playground --server {server_binary.path}"
    tmux("new-session", "-d", "-x", "160", "-y", "45", "-s", session,
         "-e", f"REDIS_PLAYGROUND_STATE_DIR={private_state_dir}", command)
    wait_for(session, "▶ Client A")
    tmux("set-buffer", "-b", "block", "RPUSH order one\nRPUSH order two\nLRANGE order 0 -1\n")
    tmux("paste-buffer", "-p", "-d", "-b", "block", "-t", session)
    wait_for(session, "Run these 3 pasted lines as client A")
    tmux("send-keys", "-t", session, "y")
    wait_for_reply(session, "A> LRANGE order 0 -1", '1) "one"')
    content = wait_for(session, '2) "two"')
    rows = content.splitlines()
    first = next(i for i, row in enumerate(rows) if "A> RPUSH order one" in row)
    assert "(integer) 1" in rows[first + 1] and "A> RPUSH order two" in rows[first + 2]
    assert "(integer) 2" in rows[first + 3] and '2) "two"' in rows[first + 6]
