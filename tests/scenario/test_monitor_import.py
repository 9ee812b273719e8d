"""import monitor on captures made here with a real server's MONITOR (tests/monitor_captures.py):
redis-py services over TCP, `redis-cli monitor` as an ACL user allowed only MONITOR. Each
capture is made on each server; the lesson it gives must pass `check` on every server,
and `explore` must find what the services could have done (the lost update)."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
import redis
from monitor_captures import MonitorCapture, lost_update
from servers import available_binaries

from playground.cli.main import main
from playground.scenario.loader import load_scenario

pytestmark = [pytest.mark.server]

HANDSHAKES = ("HELLO", "AUTH", "CLIENT", "SELECT 0")


@pytest.fixture
def capture(server_binary, tmp_path):
    made = MonitorCapture(server_binary, tmp_path / "captured")
    yield made
    made.close()


def imported(capsys, server_binary, capture_path, lesson_path, *options) -> int:
    code = main(["import", "monitor", str(capture_path), "--server", server_binary.path, "-o", str(lesson_path),
                 *options])
    capsys.readouterr()
    return code


def commands(scenario) -> list[tuple[str, str]]:
    return [(s.client, "(wait)" if s.wait else s.display) for s in scenario.steps]


def checks_on_every_server(capsys, lesson_path) -> None:
    """`check` passes on each server the machine has (every step's reply as on the replay)."""
    for binary in available_binaries():
        code = main(["check", str(lesson_path), "--server", binary.path])
        out = capsys.readouterr().out
        assert code == 0 and "1 passed, 0 failed" in out, (binary.label, out)


@pytest.mark.slow
def test_two_services_that_lost_an_update_make_a_lesson_that_checks_and_explores(capture, capsys, server_binary,
                                                                                tmp_path):
    data = lost_update(capture, tmp_path / "capture.txt")
    assert b'"HELLO" "3" "AUTH" "(redacted)" "(redacted)"' in data and b'"AUTH" "(redacted)" "(redacted)"' in data
    assert b'"CLIENT" "SETNAME" "svc-a"' in data and b"[0 lua]" in data
    lesson_path = tmp_path / "incident.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path, "--setup", "SET counter 10") == 0
    lesson = load_scenario(lesson_path)
    assert lesson.clients == ("svc-a", "B")  # named by its CLIENT SETNAME, else by its place
    assert commands(lesson) == [
        ("svc-a", "GET counter"), ("B", "GET counter"),
        ("svc-a", "SET counter ${counter+1}"), ("B", "SET counter ${counter+1}"),
        ("svc-a", "EVAL $script1 1 visits"), ("B", "EVAL $script1 1 visits")]
    assert not any(word in step.display for step in lesson.steps for word in HANDSHAKES)
    assert [s.save for s in lesson.steps] == ["counter", "counter", None, None, None, None]
    assert lesson.scripts == {"script1": "return redis.call('INCR', KEYS[1])"}
    assert [s.reply for s in lesson.steps] == ['"10"', '"10"', "OK", "OK", "(integer) 1", "(integer) 2"]
    assert "The script ran: INCR visits." in lesson.steps[4].narration
    assert "NOSCRIPT" in lesson.steps[4].narration and "capture.txt" in lesson.title
    assert "svc-a (127.0.0.1:" in lesson.lesson and " UTC " in lesson.lesson
    checks_on_every_server(capsys, lesson_path)
    assert main(["explore", str(lesson_path), "--server", server_binary.path, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the lost update, and the serial total
    assert {c["state"]["counter"]["value"] for c in report["classes"]} == {"11", "12"}
    assert {c["state"]["visits"]["value"] for c in report["classes"]} == {"2"}  # (the script never misses its cache)
    own = next(c for c in report["classes"] if c["own_order"])
    assert own["state"]["counter"]["value"] == "11"


@pytest.mark.slow
def test_without_the_keys_before_the_capture_the_literal_stays_with_a_comment(capture, capsys, server_binary,
                                                                             tmp_path):
    lost_update(capture, tmp_path / "capture.txt")
    lesson_path = tmp_path / "incident.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path) == 0
    text = lesson_path.read_text()
    lesson = load_scenario(lesson_path)
    assert ("svc-a", "SET counter 11") in commands(lesson) and ("B", "SET counter 11") in commands(lesson)
    assert not any(s.save for s in lesson.steps) and "${" not in text
    assert len(re.findall(r"# svc-a read counter at line \d+ and got \(nil\) on the replay: if counter had a "
                          r"value before the capture, give it with --setup", text)) == 1
    checks_on_every_server(capsys, lesson_path)


@pytest.mark.slow
def test_a_guess_the_keys_do_not_bear_out_is_not_made(capture, capsys, server_binary, tmp_path):
    """INCRBY's 1 is the value read minus 9, but it is not what the key holds then: no
    ${counter-9}, a comment instead; "thirty" is no simple change of "10"; "copy" was not read."""
    capture.admin("SET", "counter", "10")
    capture.start()
    one = capture.service(protocol=2)
    seen = one.get("counter")
    one.incrby("counter", 1)
    one.set("counter", "thirty")
    one.set("copy", seen)
    capture.stop(tmp_path / "capture.txt")
    lesson_path = tmp_path / "guesses.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path, "--setup", "SET counter 10") == 0
    lesson = load_scenario(lesson_path)
    assert commands(lesson) == [("A", "GET counter"), ("A", "INCRBY counter 1"), ("A", "SET counter thirty"),
                                ("A", "SET copy 10")]
    text = lesson_path.read_text()
    assert len(re.findall(r"# A read counter = 10 at line \d+, but no value here is it", text)) == 1
    assert text.index("# A read counter") < text.index('command = "INCRBY counter 1"')
    assert "save" not in text
    checks_on_every_server(capsys, lesson_path)


@pytest.mark.slow
def test_a_transaction_keeps_watch_multi_exec_and_its_written_value(capture, capsys, server_binary, tmp_path):
    capture.admin("SET", "balance", "60")
    capture.start()
    one, two = capture.service(protocol=2), capture.service(protocol=2)
    with one.pipeline() as pipe:
        pipe.watch("balance")
        balance = int(pipe.get("balance"))
        two.set("balance", 100)          # between A's read and its EXEC: A's EXEC aborts
        pipe.multi()
        pipe.set("balance", balance - 50)
        with pytest.raises(redis.WatchError):
            pipe.execute()
    with one.pipeline() as pipe:
        pipe.watch("balance")
        balance = int(pipe.get("balance"))
        pipe.multi()
        pipe.set("balance", balance - 50)
        pipe.execute()
    capture.stop(tmp_path / "capture.txt")
    lesson_path = tmp_path / "watch.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path, "--setup", "SET balance 60") == 0
    lesson = load_scenario(lesson_path)
    got = commands(lesson)
    assert got[:4] == [("A", "WATCH balance"), ("A", "GET balance"), ("B", "SET balance 100"), ("A", "MULTI")]
    assert ("A", "SET balance ${balance-50}") in got and got[-1] == ("A", "EXEC")
    execs = [s for s in lesson.steps if s.display == "EXEC"]
    assert [s.reply for s in execs] == ["(nil)", "1) OK"]
    assert "does not show the commands the transaction had queued" in execs[0].narration
    checks_on_every_server(capsys, lesson_path)


@pytest.mark.slow
def test_a_blocked_command_gets_a_wait_step_where_it_was_unblocked(capture, capsys, server_binary, tmp_path):
    capture.start()
    one, two = capture.service(protocol=2), capture.service(protocol=2)
    one.ping(), two.ping()
    popped = []
    waiter = threading.Thread(target=lambda: popped.append(one.blpop(["jobs"], 0)))
    waiter.start()
    capture.wait_for(b'"BLPOP" "jobs" "0"')  # the server has it (MONITOR printed it): it is blocked
    two.rpush("jobs", "j1")
    waiter.join()
    two.set("after", "1")
    capture.stop(tmp_path / "capture.txt")
    assert popped == [(b"jobs", b"j1")]
    lesson_path = tmp_path / "blocked.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path) == 0
    lesson = load_scenario(lesson_path)
    assert commands(lesson) == [("A", "PING"), ("B", "PING"), ("A", "BLPOP jobs 0"), ("B", "RPUSH jobs j1"),
                                ("A", "(wait)"), ("B", "SET after 1")]
    assert lesson.steps[2].blocking and lesson.steps[4].reply == '1) "jobs"\n2) "j1"'
    checks_on_every_server(capsys, lesson_path)


@pytest.mark.slow
def test_a_gap_while_a_key_has_a_ttl_becomes_a_sleep(capture, capsys, server_binary, tmp_path):
    capture.start()
    one, two = capture.service(protocol=2), capture.service(protocol=2)
    assert one.set("lock", "A", nx=True, px=200)
    time.sleep(0.3)  # (the gap in the capture, not a wait for anything: the lock runs out in it)
    assert two.set("lock", "B", nx=True)  # (no TTL: how soon its GET follows is no matter)
    two.get("lock")
    capture.stop(tmp_path / "capture.txt")
    lesson_path = tmp_path / "ttl.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path) == 0
    lesson = load_scenario(lesson_path)
    assert commands(lesson) == [("A", "SET lock A NX PX 200"), ("B", "SET lock B NX"), ("B", "GET lock")]
    assert lesson.steps[0].sleep == 0 and 0.3 <= lesson.steps[1].sleep < 5 and lesson.steps[2].sleep == 0
    assert lesson.steps[1].reply == "OK" and lesson.steps[2].reply == '"B"'  # (without the sleep: (nil), "A")
    checks_on_every_server(capsys, lesson_path)


@pytest.mark.slow
def test_escaped_bytes_and_databases_come_through(capture, capsys, server_binary, tmp_path):
    early = capture.service(protocol=2, db=3)
    early.ping()  # (its SELECT 3 is before the capture)
    capture.start()
    value = b'a"b\\c\xff\n\x00 \t\r$x'
    early.set("k", value)
    other = capture.service(protocol=2, db=2)  # SELECT 2 at its handshake: a switch, kept
    other.set("k", "two")
    other.execute_command("SELECT", 2)  # the database it is in: a handshake, left out
    other.get("k")
    data = capture.stop(tmp_path / "capture.txt")
    assert b'[3 127.0.0.1:' in data and b'"a\\"b\\\\c\\xff\\n\\x00 \\t\\r$x"' in data
    lesson_path = tmp_path / "bytes.toml"
    assert imported(capsys, server_binary, tmp_path / "capture.txt", lesson_path) == 0
    lesson = load_scenario(lesson_path)
    assert [(s.client, s.argv) for s in lesson.steps] == [
        ("A", (b"SELECT", b"3")), ("A", (b"SET", b"k", value)),
        ("B", (b"SELECT", b"2")), ("B", (b"SET", b"k", b"two")), ("B", (b"GET", b"k"))]
    assert "had selected database 3" in lesson.steps[0].narration
    checks_on_every_server(capsys, lesson_path)
