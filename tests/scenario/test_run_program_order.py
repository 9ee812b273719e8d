"""`run` of a lesson whose clients are programs (redis-py through the gate) ends each part
with the server order, as a typed lesson's run does: each command the server ran, in
the order it ran them (a MULTI … EXEC as one block, at EXEC), numbered in the one server
order. With [[steps]] and without (each program to its end, A's then B's). And `check`
of a lesson with nothing to check says so. On both real servers, through the CLI as a
user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from playground.scenario import lanes
from paths import SCENARIOS as SCENARIOS_DIR, SRC as SRC_DIR

pytest.importorskip("redis")

SCENARIOS = SCENARIOS_DIR


def run_cli(server_binary, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC_DIR))
    return subprocess.run([sys.executable, "-m", "playground", "--server", str(server_binary.path), *args],
                          capture_output=True, text=True, timeout=180, cwd="/", env=env)


def server_order(stdout: str, clients=("A", "B")) -> list[tuple[int, str, list[str]]]:
    """The transcript's Server order section as (number, client, lines): a row's command
    lines (a block's one per line) and its reply ("→ ..."); notes left out."""
    lines = stdout.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Server order"))
    head = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("# │"))
    lane = lanes.lane_width(clients, 77)
    sep = len(lanes.SEP)
    rows: list[list] = []
    for line in lines[head + 2:]:
        if not line.strip():
            break
        body = line[3:]
        if body.lstrip().startswith("↳") or body.startswith(" " * (lanes.GUTTER + 1) + " "):
            continue  # a why (its own test's), or its continuation
        number = body[:lanes.GUTTER].strip()
        if number:
            rows.append([int(number), None, []])
        for k, client in enumerate(clients):
            cell = body[lanes.GUTTER + sep + k * (lane + sep):][:lane]
            if not cell.strip() or cell.startswith("  "):   # an empty lane, or a note
                continue
            text = cell.strip().strip("│┌┐└┘─").strip()
            if text:
                rows[-1][1] = client
                rows[-1][2].append(text)
    return [(n, c, texts) for n, c, texts in rows]


def test_watch_retry_python_ends_with_the_order_the_server_ran_its_commands_in(server_binary):
    done = run_cli(server_binary, "run", "watch-retry-python")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Server order" in done.stdout
    # The steps' order (A's EXEC before B's, B's retry after): B's second GET reading 5 is
    # the server's own word that A's transaction ran before it; B's first EXEC aborted.
    assert server_order(done.stdout) == [
        (1, "A", ["WATCH counter", "→ OK"]),
        (2, "B", ["WATCH counter", "→ OK"]),
        (3, "A", ["GET counter", '→ "4"']),
        (4, "B", ["GET counter", '→ "4"']),
        (7, "A", ["MULTI", "SET counter 5", "EXEC", "→ 1) OK"]),   # one block, at its EXEC
        (10, "B", ["MULTI", "SET counter 5", "EXEC", "→ (nil)"]),
        (11, "B", ["WATCH counter", "→ OK"]),
        (12, "B", ["GET counter", '→ "5"']),
        (15, "B", ["MULTI", "SET counter 6", "EXEC", "→ 1) OK"]),
    ]


PUSH_THEN_TRANSACTION = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.rpush("log", "a1")
pipe = r.pipeline(transaction=True)
pipe.rpush("log", "a2")
pipe.incr("n")
pipe.execute()
'''
PUSH_THEN_READ = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.rpush("log", "b1")
print(r.lrange("log", 0, -1))
'''
STEPLESS = '''title = "t"
lesson = "l"
setup = []
[programs]
A = ["python", "a.py"]
B = ["python", "b.py"]
'''


def test_a_stepless_program_lesson_ends_with_the_server_order_too(server_binary, tmp_path):
    (tmp_path / "a.py").write_text(textwrap.dedent(PUSH_THEN_TRANSACTION))
    (tmp_path / "b.py").write_text(textwrap.dedent(PUSH_THEN_READ))
    (tmp_path / "lesson.toml").write_text(STEPLESS)
    done = run_cli(server_binary, "run", str(tmp_path / "lesson.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Server order" in done.stdout
    rows = server_order(done.stdout)
    assert rows == [
        (1, "A", ["RPUSH log a1", "→ (integer) 1"]),
        (5, "A", ["MULTI", "RPUSH log a2", "INCRBY n 1", "EXEC", "→ 1) (integer) 2 …"]),  # (redis-py: incr is INCRBY)
        (6, "B", ["RPUSH log b1", "→ (integer) 3"]),
        (7, "B", ["LRANGE log 0 -1", '→ 1) "a1" …']),
    ]
    # the server's own record of the order: the list its RPUSHes built, as B read it
    assert '1) "a1"\n' in done.stdout and '2) "a2"\n' in done.stdout and '3) "b1"\n' in done.stdout
    pushed = [line.split()[-1] for _, _, lines in rows for line in lines if line.startswith("RPUSH")]
    assert pushed == ["a1", "a2", "b1"]


def test_check_of_a_lesson_with_nothing_to_check_says_so(server_binary, tmp_path):
    (tmp_path / "a.py").write_text(textwrap.dedent(PUSH_THEN_TRANSACTION))
    (tmp_path / "b.py").write_text(textwrap.dedent(PUSH_THEN_READ))
    (tmp_path / "programs.toml").write_text(STEPLESS)
    (tmp_path / "typed.toml").write_text('title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\ncommand = "SET k v"\n')
    done = run_cli(server_binary, "check", str(tmp_path / "programs.toml"), str(tmp_path / "typed.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "✓ programs: no checks: the programs ran to their end (A sent 5 commands, B sent 2 commands)" in lines
    assert "✓ typed: no check ran: nothing passed or failed" in lines
    assert "0 checks passed" not in done.stdout


BLOCKED_WORKER = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
item = r.blpop("queue", timeout=0)
r.set("done", item[1])
'''
FREEING_PUSHER = '''
import os, redis
redis.Redis.from_url(os.environ["REDIS_URL"]).rpush("queue", "job-1")
'''


def test_a_blocked_programs_command_is_numbered_after_the_one_that_freed_it(server_binary, tmp_path):
    """A's BLPOP waits on the server until B's RPUSH; the server then writes A's reply
    before B's (the gate sees BLPOP's reply first), yet the RPUSH ran first: the reply
    BLPOP got is the element only the RPUSH pushed. The server order says so."""
    (tmp_path / "worker.py").write_text(textwrap.dedent(BLOCKED_WORKER))
    (tmp_path / "pusher.py").write_text(textwrap.dedent(FREEING_PUSHER))
    (tmp_path / "lesson.toml").write_text('title = "t"\nlesson = "l"\nsetup = []\n[programs]\n'
                                          'A = ["python", "worker.py"]\nB = ["python", "pusher.py"]\n')
    done = run_cli(server_binary, "run", str(tmp_path / "lesson.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = server_order(done.stdout)
    assert [(c, texts[0]) for _, c, texts in rows] == [
        ("B", "RPUSH queue job-1"), ("A", "BLPOP queue 0"), ("A", "SET done job-1")], done.stdout
    assert "→ 1) \"queue\"" in " ".join(rows[1][2])   # the server's own word: BLPOP got what RPUSH pushed
    assert [n for n, _, _ in rows] == sorted(n for n, _, _ in rows)
