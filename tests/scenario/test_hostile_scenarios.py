"""Hostile scenario files: each gives one line naming the file, the step and the field,
from the loader, from `list` and from `check`; never a traceback, and `list` goes on."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.scenario.model import ScenarioError
from playground.scenario.loader import load_scenario
from commands import send

HEAD = 'title = "Hostile"\nlesson = "A file written to break the loader."\n'
STEP = '[[steps]]\nclient = "A"\ncommand = "GET k"\n'
SAVE = STEP + 'save = "n"\n'
BIG = "9" * 5000
INT64 = "a number from -9223372036854775808 to 9223372036854775807"

# file name -> (content, the message after "FILE: ")
HOSTILE = {
    "deep-arrays": (HEAD + "x = " + "[" * 5000 + "]" * 5000 + "\n" + STEP,
                    "too deeply nested (arrays or tables inside each other)"),
    "deep-tables": (HEAD + "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n" + STEP,
                    "too deeply nested (arrays or tables inside each other)"),
    "huge-toml-integer": (HEAD + STEP + f"sleep = {BIG}\n",
                          "not valid TOML: a number of more than 4300 digits"),
    "huge-when": (HEAD + SAVE + STEP + f'when = "n > {BIG}"\n',
                  "step 2: when: column 501: a condition is at most 500 characters"),
    "when-past-int64": (HEAD + SAVE + STEP + 'when = "n < -9223372036854775809"\n',
                        f"step 2: when: column 5: -9223372036854775809: {INT64}"),
    "huge-min-version": (HEAD + f'[requires]\nmin_version = "{BIG}"\n' + STEP,
                         'requires: min_version: like "7.0" or "8.4.0"'),
    "huge-step-min-version": (HEAD + STEP + f'requires = {{ min_version = "7.{BIG}" }}\n',
                              'step 1: requires: min_version: like "7.0" or "8.4.0"'),
    "huge-template": (HEAD + SAVE + '[[steps]]\nclient = "A"\n' + f'command = "SET k ${{n+{BIG}}}"\n',
                      "step 2: command: ${n+999999999999…(5000 characters)}: add or subtract " + INT64),
    "setup-shutdown": (HEAD + 'setup = ["SET a 1", "SHUTDOWN NOSAVE"]\n' + STEP,
                       "setup: command 2: SHUTDOWN stops the server; a setup only prepares data"),
    "setup-monitor": (HEAD + 'setup = ["MONITOR"]\n' + STEP,
                      "setup: command 1: MONITOR turns the connection into a stream that never ends; "
                      "a setup only prepares data"),
    "setup-subscribe": (HEAD + 'setup = ["SSUBSCRIBE ch"]\n' + STEP,
                        "setup: command 1: SSUBSCRIBE turns the connection into a stream of messages; "
                        "a setup only prepares data"),
    "setup-blpop": (HEAD + 'setup = ["BLPOP q 0"]\n' + STEP,
                    "setup: command 1: BLPOP blocks until another client moves; a setup only prepares data"),
    "setup-xread": (HEAD + 'setup = ["XREAD block 0 STREAMS s $"]\n' + STEP,
                    "setup: command 1: XREAD blocks until another client moves; a setup only prepares data"),
    "setup-client-pause": (HEAD + 'setup = ["client pause 100000"]\n' + STEP,
                           "setup: command 1: CLIENT PAUSE pauses every client; a setup only prepares data"),
    "setup-debug-sleep": (HEAD + 'setup = ["DEBUG SLEEP 1000"]\n' + STEP,
                          "setup: command 1: DEBUG SLEEP blocks the server; a setup only prepares data"),
    "setup-quit": (HEAD + 'setup = ["QUIT"]\n' + STEP,
                   "setup: command 1: QUIT closes the connection; a setup only prepares data"),
    "setup-reset": (HEAD + 'setup = ["RESET"]\n' + STEP,
                    "setup: command 1: RESET resets the connection the steps go on with; a setup only prepares data"),
    "setup-open-multi": (HEAD + 'setup = ["SET a 1", "MULTI", "INCR a"]\n' + STEP,
                         "setup: command 2: MULTI without EXEC: the steps would run queued"),
    "setup-in-a-part": (HEAD + '[[parts]]\nname = "warm-up"\nsetup = ["SHUTDOWN"]\n'
                        '[[parts.steps]]\nclient = "A"\ncommand = "GET k"\n',
                        "part 'warm-up': setup: command 1: SHUTDOWN stops the server; a setup only prepares data"),
}
GOOD = (HEAD + 'setup = ["MULTI", "SET a 1", "EXEC", "SET b 2"]\n' + SAVE + STEP
        + 'when = "n == 9223372036854775807"\n')


@pytest.fixture
def hostile_dir(tmp_path) -> Path:
    for name, (text, _) in HOSTILE.items():
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    (tmp_path / "fine.toml").write_text(GOOD, encoding="utf-8")
    return tmp_path


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_loader_says_one_line(hostile_dir, name):
    path = hostile_dir / f"{name}.toml"
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: {HOSTILE[name][1]}"


def test_the_good_file_loads(hostile_dir):
    scenario = load_scenario(hostile_dir / "fine.toml")
    assert scenario.steps[1].when.holds({"n": 2**63 - 1})
    assert not scenario.steps[1].when.holds({"n": 2**63 - 2})
    assert len(scenario.parts[0].setup) == 4


def test_list_reports_each_and_goes_on(hostile_dir):
    result = _cli("list", "--scenarios", str(hostile_dir))
    assert "Traceback" not in result.stderr and result.returncode == 1
    errors = result.stderr.splitlines()
    for name, (_, message) in HOSTILE.items():
        assert f"redis-playground: {hostile_dir / name}.toml: {message}" in errors
    assert len(errors) == len(HOSTILE)
    assert any(line.startswith("fine ") for line in result.stdout.splitlines())  # after the broken ones
    assert any(line.startswith("incr-is-atomic ") for line in result.stdout.splitlines())


def test_check_reports_each(hostile_dir):
    paths = [str(hostile_dir / f"{name}.toml") for name in HOSTILE] + [str(hostile_dir / "fine.toml")]
    result = _cli("check", "--server", "bundled", *paths)
    assert "Traceback" not in result.stderr and result.returncode == 1
    lines = result.stdout.splitlines()
    for name, (_, message) in HOSTILE.items():
        assert f"✗ {hostile_dir / name}.toml: {message}" in lines
    assert lines[-1] == f"1 passed, {len(HOSTILE)} failed"


def test_a_step_that_kills_every_other_client_leaves_the_apps_own_connections_working(tmp_path, server_binary):
    """`CLIENT KILL TYPE normal SKIPME yes` also kills the connections the runner reads
    the state with: they reconnect, and the state checks after it still run."""
    path = tmp_path / "kill-them-all.toml"
    path.write_text(HEAD + '[[steps]]\nclient = "A"\ncommand = "CLIENT KILL TYPE normal SKIPME yes"\n'
                    '[[steps]]\nclient = "A"\ncommand = "SET k 1"\nreply = "OK"\n'
                    '[steps.state]\nk = "1"\n', encoding="utf-8")
    result = _cli("check", "--server", server_binary.path, str(path))
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1] == "1 passed, 0 failed", result.stdout + result.stderr


NEVER_ANSWERS = {  # file name -> (content, what its line says after "FILE: ")
    "a-looping-setup": (HEAD + "setup = ['EVAL \"while true do end\" 0']\n" + STEP,
                        "setup (EVAL \"while true do end\" 0) did not answer within 2s; scenario stopped; "
                        "the playground started a fresh server"),
    "b-paused-step": (HEAD + '[[steps]]\nclient = "A"\ncommand = "CLIENT PAUSE 600000 ALL"\n'
                      '[[steps]]\nclient = "B"\ncommand = "GET k"\n',
                      "step 2 (B> GET k): no answer within 2s; scenario stopped; "
                      "the playground started a fresh server"),
}


@pytest.mark.slow
def test_check_of_a_directory_stops_what_never_answers_and_goes_on(tmp_path, server_binary):
    """A setup that loops forever and a step behind `CLIENT PAUSE 600000 ALL` each stop
    their scenario with one line naming the file and the step; the next file runs on a
    usable server (it would find the pause or the script otherwise), and the exit is 1."""
    for name, (text, _) in NEVER_ANSWERS.items():
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    (tmp_path / "c-fine.toml").write_text(HEAD + 'setup = ["SET k 1"]\n' + STEP + "reply = '\"1\"'\n", encoding="utf-8")
    result = _cli("check", "--server", server_binary.path, "--time-limit", "2", str(tmp_path))
    assert "Traceback" not in result.stderr and result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    for name, (_, message) in NEVER_ANSWERS.items():
        assert f"✗ {name}: {tmp_path / name}.toml: {message}" in lines, result.stdout
    assert "✓ c-fine: 1 check passed" in lines
    assert lines[-1] == "1 passed, 2 failed"


@pytest.mark.slow
def test_a_scenario_sets_its_own_time_limit(tmp_path, server_binary):
    """`time_limit = 1` in the file: the looping setup stops after 1 s (not the default 15);
    --time-limit given on the command line wins over it."""
    text = NEVER_ANSWERS["a-looping-setup"][0].replace(HEAD, HEAD + "time_limit = 1\n", 1)
    path = tmp_path / "own-limit.toml"
    path.write_text(text, encoding="utf-8")
    result = _cli("check", "--server", server_binary.path, str(path))
    assert result.returncode == 1 and "did not answer within 1s" in result.stdout, result.stdout + result.stderr
    result = _cli("check", "--server", server_binary.path, "--time-limit", "2", str(path))
    assert "did not answer within 2s" in result.stdout, result.stdout + result.stderr
    bad = tmp_path / "bad-limit.toml"
    bad.write_text(HEAD + "time_limit = 0\n" + STEP, encoding="utf-8")
    result = _cli("check", "--server", server_binary.path, str(bad))
    assert "time_limit: seconds a setup or step may take" in result.stdout + result.stderr


def test_time_limit_option_is_checked():
    result = _cli("check", "--time-limit", "0", "incr-is-atomic")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--time-limit: seconds from 0.1 to 86400" in result.stderr


async def test_the_lesson_view_says_a_step_did_not_answer_and_stops(tmp_path, pg):
    await asyncio.wait_for(_lesson_view_stops(tmp_path, pg), 30)  # (a hang fails, never stalls)


async def _lesson_view_stops(tmp_path, pg):
    """What the TUI's teaching mode drives (Stepper): after `CLIENT PAUSE 600000 ALL` the
    panes' own read of the clients' flags waits too, so the pause step itself stops the
    lesson, with the stop message as its error (not "Press Space" for ever), and the
    fresh server answers."""
    from playground.scenario.stepper import Stepper

    path = tmp_path / "b-paused-step.toml"
    path.write_text(NEVER_ANSWERS["b-paused-step"][0], encoding="utf-8")
    stepper = Stepper(pg, load_scenario(path))
    stepper.runner.time_limit_given = 1
    await stepper.start()
    result = await stepper.step()
    assert stepper.error == (f"{path}: step 1 (A> CLIENT PAUSE 600000 ALL): no answer within 1s; "
                             "scenario stopped; the playground started a fresh server")
    assert [c.what for c in result.checks if not c.ok] == ["answers in time"]
    assert stepper.finished and await stepper.step() is None
    assert await send(pg, "B", [b"PING"]) == b"PONG"


@pytest.mark.slow
def test_on_a_url_server_a_looping_setup_is_killed_and_check_goes_on(tmp_path, private_server):
    """A server the playground does not own can't be restarted: after the time-out it
    gets SCRIPT KILL on a new connection, every connection is opened anew, and the next
    file runs on it."""
    (tmp_path / "a-looping-setup.toml").write_text(NEVER_ANSWERS["a-looping-setup"][0], encoding="utf-8")
    (tmp_path / "c-fine.toml").write_text(HEAD + 'setup = ["SET k 1"]\n' + STEP + "reply = '\"1\"'\n", encoding="utf-8")
    result = _cli("check", "--url", f"unix://{private_server.socket_path}", "--allow-flush", "--time-limit", "2",
                  str(tmp_path))
    assert "Traceback" not in result.stderr and result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert (f"✗ a-looping-setup: {tmp_path / 'a-looping-setup'}.toml: setup (EVAL \"while true do end\" 0) did not "
            "answer within 2s; scenario stopped; SCRIPT KILL and CLIENT UNPAUSE sent; "
            "every client reconnected") in lines
    assert "✓ c-fine: 1 check passed" in lines
