"""What `run` says at the end of a lesson with nothing to check: a lesson whose clients
are all programs and that has no steps (each program to its end, A's then B's) says how
many commands each program sent, never "0 of 0 checks passed"; a wait for a blocked
command's reply is no command sent. On both real servers, through the CLI as a user
runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from playground.scenario import transcript
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from paths import SRC as SRC_DIR

pytest.importorskip("redis")

WORKER = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
item = r.blpop("queue", timeout=1)
r.set("done", item[1] if item else b"late")
'''
PUSHER = '''
import os, redis
redis.Redis.from_url(os.environ["REDIS_URL"]).rpush("queue", "job-1")
'''
STEPLESS = '''title = "t"
lesson = "l"
setup = []
[programs]
A = ["python", "worker.py"]
B = ["python", "pusher.py"]
'''


def run_cli(server_binary, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC_DIR))
    return subprocess.run([sys.executable, "-m", "playground", "--server", str(server_binary.path), *args],
                          capture_output=True, text=True, timeout=120, cwd="/", env=env)


def test_a_stepless_program_lesson_says_what_each_program_sent(server_binary, tmp_path):
    (tmp_path / "worker.py").write_text(textwrap.dedent(WORKER))
    (tmp_path / "pusher.py").write_text(textwrap.dedent(PUSHER))
    (tmp_path / "lesson.toml").write_text(STEPLESS)
    done = run_cli(server_binary, "run", str(tmp_path / "lesson.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checks passed" not in done.stdout
    assert done.stdout.splitlines()[-2:] == [
        "   ✓ no checks: the programs ran to their end (A sent 2 commands, B sent 1",
        "     command)"]   # BLPOP and SET; RPUSH (BLPOP's reply arriving is no command of A's)
    assert "A> BLPOP queue 1" in done.stdout and "B> RPUSH queue job-1" in done.stdout


def test_the_count_is_in_the_lessons_language(server_binary, tmp_path):
    (tmp_path / "worker.py").write_text(textwrap.dedent(WORKER))
    (tmp_path / "pusher.py").write_text(textwrap.dedent(PUSHER))
    (tmp_path / "lesson.toml").write_text(STEPLESS)
    done = run_cli(server_binary, "--lang", "zh", "run", str(tmp_path / "lesson.toml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "   ✓ 没有检查：各程序都已运行到结束（A 发送了 2 条命令、B 发送了 1 条命令）"


async def test_typed_steps_without_checks_say_no_check_ran(pg, tmp_path):
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\ncommand = "SET k v"\n')
    result = await Runner(pg).run(load_scenario(path))
    assert result.ok
    assert transcript.render_text(result).splitlines()[-1] == "   ✓ no check ran: nothing passed or failed"
