"""`redis-playground import monitor` as a user runs it: the lesson on stdout or written
at once with -o, one clear line for a capture it cannot import (and nothing written, an
existing lesson left as it was), unix-socket captures, a progress bar only on a terminal,
and captures of 100k lines read in bounded memory. Every capture is made here with a
real server's MONITOR (tests/monitor_captures.py)."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import tomllib
import tracemalloc

import pytest
from monitor_captures import MonitorCapture, lost_update

from playground.cli.import_command import Progress
from playground.cli.main import main
from playground.scenario.loader import load_scenario

pytestmark = [pytest.mark.server]


@pytest.fixture
def capture(server_binary, tmp_path):
    made = MonitorCapture(server_binary, tmp_path / "captured")
    yield made
    made.close()


@pytest.fixture
def lost(capture, tmp_path):
    path = tmp_path / "capture.txt"
    lost_update(capture, path)
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("redis-playground: "), err
    return lines[0]


def test_the_lesson_goes_to_stdout_and_the_summary_to_stderr(lost, capsys, server_binary):
    code, out, err = run(capsys, "import", "monitor", str(lost), "--setup", "SET counter 10", "--server",
                         server_binary.path)
    assert code == 0
    lesson = tomllib.loads(out)
    assert lesson["clients"] == ["svc-a", "B"] and lesson["parts"][0]["setup"] == ["SET counter 10"]
    assert "\r" not in err and "[#" not in err  # no progress bar: stderr is no terminal
    assert "6 steps of svc-a, B" in err and "2 written values as saved replies" in err


def test_o_writes_the_lesson_and_replaces_one_there_at_once(lost, capsys, server_binary, tmp_path):
    target = tmp_path / "out" / "incident.toml"
    target.parent.mkdir()
    target.write_text("an older lesson\n")
    code, out, err = run(capsys, "import", "monitor", str(lost), "-o", str(target), "--server", server_binary.path,
                         "--setup", "SET counter 10")
    assert code == 0 and out == ""
    assert load_scenario(target).clients == ("svc-a", "B")
    assert os.stat(target).st_mode & 0o777 == 0o600  # (a capture may hold production data)
    assert sorted(p.name for p in target.parent.iterdir()) == ["incident.toml"]  # no temporary file left
    assert f"next: redis-playground check {target} (on each server), open {target} --clients svc-a,B" in err


def cut(path, at: bytes) -> None:
    """The capture as if the copy stopped inside the line holding `at`."""
    data = path.read_bytes()
    path.write_bytes(data[:data.index(at) + len(at)])


@pytest.mark.parametrize("damage, says", [
    (lambda p: cut(p, b'"SET" "coun'), r": line \d+: truncated: the line ends inside a quoted argument"),
    (lambda p: p.write_bytes(p.read_bytes().replace(b'"SET" "counter"', b'"SET" "counter\\q"', 1)),
     r": line \d+: column \d+: unknown escape \\q"),
    (lambda p: p.write_bytes(p.read_bytes().replace(b'"SET" "counter" "11"', b'"SET" "counter"', 1)),
     r": line \d+: SET counter: ERR wrong number of arguments .*MONITOR shows only commands the server took"),
    (lambda p: p.write_bytes(p.read_bytes().replace(b'"GET" "counter"', b'"NOSUCH.CMD" "counter"', 1)),
     r": line \d+: NOSUCH.CMD: .* does not know this command"),
    (lambda p: p.write_bytes(re.sub(rb'\[0 (127.0.0.1:\d+\] "GET")', rb"[99 \1", p.read_bytes(), count=1)),
     r": line \d+: database 99: .* does not have it"),
    (lambda p: p.write_bytes(b"OK\n"), r": no command of a client in it"),
])
def test_bad_input_is_one_line_with_the_line_number_and_nothing_is_written(lost, capsys, server_binary, tmp_path,
                                                                          damage, says):
    damage(lost)
    target = tmp_path / "lesson.toml"
    target.write_text("kept\n")
    code, out, err = run(capsys, "import", "monitor", str(lost), "-o", str(target), "--server", server_binary.path,
                         "--setup", "SET counter 10")
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"redis-playground: {lost}:"), line
    assert re.search(says, line), line
    assert target.read_text() == "kept\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "capture.txt", "captured", "lesson.toml"]


@pytest.mark.parametrize("setup, says", [
    ('SET "a', "--setup 'SET \"a': not a command as redis-cli reads one"),
    ("BLPOP q 0", "--setup 'BLPOP q 0': BLPOP blocks until another client moves"),
    ("WRONGTYPE-CMD k", "--setup WRONGTYPE-CMD k: ERR unknown command"),
])
def test_a_setup_that_cannot_run_is_one_line(lost, capsys, server_binary, setup, says):
    code, out, err = run(capsys, "import", "monitor", str(lost), "--setup", setup, "--server", server_binary.path)
    assert code == 2 and out == "" and says in one_line(err)


def test_a_lesson_where_it_cannot_be_written_is_one_line(lost, capsys, tmp_path):
    target = tmp_path / "no-such-dir" / "lesson.toml"
    code, out, err = run(capsys, "import", "monitor", str(lost), "-o", str(target))
    assert code == 2 and out == "" and one_line(err) == (
        f"redis-playground: Could not write {target}: No such file or directory")


def test_url_and_topology_are_refused(lost, capsys):
    for options in (["--url", "redis://127.0.0.1:1"], ["--topology", "replica"]):
        code, _out, err = run(capsys, *options, "import", "monitor", str(lost))
        assert code == 2 and "private server of its own" in one_line(err)


def test_the_bar_is_drawn_on_a_terminal_only():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen, piped = Terminal(), io.StringIO()
    for stream in (screen, piped):
        bar = Progress("replaying", 1000, stream)
        for _ in range(10):
            bar(100)
        bar.end()
    assert piped.getvalue() == ""
    drawn = screen.getvalue()
    assert "\rreplaying [" in drawn and "100%" in drawn and " 50%" in drawn and drawn.endswith("\r")
    assert drawn.count("\r") == 12  # each percent drawn once (10 steps), then the bar taken off


@pytest.mark.slow
def test_on_a_real_terminal_the_bar_shows_and_goes(lost, server_binary, tmp_path):
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "playground", "import", "monitor", str(lost), "-o",
                               str(tmp_path / "l.toml"), "--server", server_binary.path],
                              check=False, stdout=subprocess.DEVNULL, stderr=follower, timeout=120)
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # (the terminal's other end is closed)
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert done.returncode == 0
    assert b"\rreading [" in seen and b"\rreplaying [" in seen and b"100%" in seen
    assert b"6 steps of svc-a, B" in seen


@pytest.fixture
def unix_capture(server_binary, tmp_path):
    made = MonitorCapture(server_binary, tmp_path / "captured", unix=True)
    yield made
    made.close()


def test_a_unix_socket_capture_is_refused_with_the_fix(unix_capture, capsys, server_binary, tmp_path):
    unix_capture.start()
    one = unix_capture.service(protocol=2)
    one.set("k", "1")
    data = unix_capture.stop(tmp_path / "capture.txt", via=one)
    assert b"[0 unix:" in data
    code, out, err = run(capsys, "import", "monitor", str(tmp_path / "capture.txt"), "--server", server_binary.path)
    line = one_line(err)
    assert code == 2 and out == ""
    assert "line 2: unix:" in line and "cannot be told apart" in line
    assert "capture over TCP" in line and "--clients-from FILE" in line


def test_client_list_names_the_one_client_of_a_socket(unix_capture, capsys, server_binary, tmp_path):
    one = unix_capture.service(protocol=2, client_name="billing")  # (named before the capture)
    one.ping()
    unix_capture.start()
    one.set("k", "1")
    one.get("k")
    listed = one.execute_command("CLIENT", "LIST")  # (CLIENT is an admin command: MONITOR does not show it)
    (tmp_path / "clients.txt").write_bytes(listed if isinstance(listed, bytes) else listed.encode())
    unix_capture.stop(tmp_path / "capture.txt", via=one)
    code, out, err = run(capsys, "import", "monitor", str(tmp_path / "capture.txt"), "--clients-from",
                         str(tmp_path / "clients.txt"), "--server", server_binary.path)
    assert code == 0, err
    lesson = tomllib.loads(out)
    assert lesson["clients"] == ["billing"]
    assert [s["command"] for s in lesson["parts"][0]["steps"]] == ["SET k 1", "GET k"]


def test_client_list_with_two_clients_on_the_socket_is_refused(unix_capture, capsys, server_binary, tmp_path):
    unix_capture.start()
    one, two = unix_capture.service(protocol=2), unix_capture.service(protocol=2)
    one.set("k", "1")
    two.set("k", "2")
    listed = one.execute_command("CLIENT", "LIST")
    (tmp_path / "clients.txt").write_bytes(listed if isinstance(listed, bytes) else listed.encode())
    unix_capture.stop(tmp_path / "capture.txt", via=one)
    code, _out, err = run(capsys, "import", "monitor", str(tmp_path / "capture.txt"), "--clients-from",
                         str(tmp_path / "clients.txt"), "--server", server_binary.path)
    assert code == 2 and "CLIENT LIST shows 2 clients on the unix socket" in one_line(err)


def test_clients_from_that_is_not_client_list_is_one_line(lost, capsys, server_binary, tmp_path):
    (tmp_path / "clients.txt").write_text("id=1 addr=127.0.0.1:1 flags=N\nnot a client\n")
    code, _out, err = run(capsys, "import", "monitor", str(lost), "--clients-from", str(tmp_path / "clients.txt"))
    assert code == 2 and "clients.txt: line 2: not CLIENT LIST output" in one_line(err)


@pytest.mark.slow
def test_100k_lines_a_script_ran_are_read_in_bounded_memory(capture, capsys, server_binary, tmp_path):
    key = "k" * 100
    capture.start()
    one = capture.service(protocol=2)
    one.eval("for i = 1, 100000 do redis.call('INCR', KEYS[1]) end", 1, key)
    data = capture.stop(tmp_path / "capture.txt")
    assert data.count(b"[0 lua]") == 100_000 and len(data) > 10_000_000
    tracemalloc.start()
    try:
        code, out, err = run(capsys, "import", "monitor", str(tmp_path / "capture.txt"), "--server",
                             server_binary.path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0, err
    assert peak < 8_000_000, peak  # the capture is 10+ MB: it is never held whole
    step, = tomllib.loads(out)["parts"][0]["steps"]
    assert step["command"].startswith("EVAL ") and step["reply"] == "(nil)"
    assert "The script ran: INCR " in step["narration"] and "… and 99992 more." in step["narration"]


@pytest.mark.slow
def test_100k_commands_make_no_lesson_past_4_mb_and_stop_early(capture, capsys, server_binary, tmp_path):
    capture.start()
    one = capture.service(protocol=2)
    with one.pipeline(transaction=False) as pipe:
        for _ in range(100_000):
            pipe.incr("counter")
        pipe.execute()
    data = capture.stop(tmp_path / "capture.txt")
    assert data.count(b'"INCRBY" "counter" "1"') == 100_000  # (redis-py's incr)
    target = tmp_path / "lesson.toml"
    code, _out, err = run(capsys, "import", "monitor", str(tmp_path / "capture.txt"), "-o", str(target), "--server",
                         server_binary.path)
    line = one_line(err)
    assert code == 2 and "the lesson passes 4 MB here" in line and "shorter window" in line
    number = int(line.split(": line ")[1].split(":")[0])
    assert 20_000 < number < 60_000  # it stopped where it passed, not at the end
    assert not target.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["capture.txt", "captured"]
