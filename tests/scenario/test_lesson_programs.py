"""Programs in lessons: the runner starts a lesson's programs with the gate's URL, each
of their steps releases one command, and a program that hangs or dies is stopped with
one line naming it. On both real servers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playground.errors import ScenarioError
from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from paths import SRC as SRC_DIR

pytest.importorskip("redis")

LESSON_HEAD = 'title = "t"\nlesson = "l"\nsetup = ["SET counter 4"]\n'


def lesson(tmp_path: Path, body: str, programs: dict[str, str]) -> Path:
    for name, source in programs.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    path = tmp_path / "lesson.toml"
    path.write_text(LESSON_HEAD + textwrap.dedent(body))
    return path


@pytest.mark.parametrize("lesson_id", ["lost-update-python", "incr-python"])
async def test_bundled_program_lessons_pass(pg, lesson_id):
    scenario = load_scenario(bundled_dir() / f"{lesson_id}.toml")
    result = await Runner(pg).run(scenario)
    assert result.ok, (result.error, result.failed_checks)
    sent = [s.command for s in result.steps]
    if lesson_id == "lost-update-python":  # the schedule interleaves the two programs
        assert sent == ["GET counter", "GET counter", "SET counter 5", "SET counter 5"]
        assert [s.step.client for s in result.steps] == ["A", "B", "A", "B"]
    else:
        assert sent == ["INCRBY counter 1", "INCRBY counter 1"]


async def test_a_program_that_hangs_is_stopped(pg, tmp_path):
    # (3 s: the limit counts from the start, and A's own start-up and GET come first, on a loaded machine too)
    path = lesson(tmp_path, '''
        program_time_limit = 3
        [programs]
        A = ["python", "hang.py"]
        [[steps]]
        client = "A"
        reply = '"4"'
        [[steps]]
        client = "B"
        command = "GET counter"
        ''', {"hang.py": '''
        import os, time, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        r.get("counter")
        open("pid", "w").write(str(os.getpid()))
        time.sleep(60)
        '''})
    result = await Runner(pg).run(load_scenario(path))
    assert result.steps[0].ok and result.steps[1].ok
    assert result.error == "program A (python hang.py) ran past its time limit (3 s): stopped"
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_program_that_dies_is_named(pg, tmp_path):
    path = lesson(tmp_path, '''
        [programs]
        A = ["python", "die.py"]
        [[steps]]
        client = "A"
        [[steps]]
        client = "A"
        ''', {"die.py": '''
        import os, redis
        redis.Redis.from_url(os.environ["REDIS_URL"]).get("counter")
        raise SystemExit("no more money")
        '''})
    result = await Runner(pg).run(load_scenario(path))
    assert result.steps[0].ok and result.steps[0].reply == '"4"\n'
    failed = result.steps[1].checks[0]
    assert not failed.ok
    assert failed.detail == "program A (python die.py) exited with status 1: no more money"
    assert result.error == "program A (python die.py) exited with status 1: no more money"


async def test_a_program_that_cannot_start(pg, tmp_path):
    path = lesson(tmp_path, '''
        [programs]
        A = ["./no-such-program"]
        [[steps]]
        client = "A"
        ''', {})
    result = await Runner(pg).run(load_scenario(path))
    assert result.error.startswith("program A (./no-such-program): cannot start: ")


async def test_programs_run_free_after_the_last_step(pg, tmp_path):
    """The schedule may cover only a prefix: the rest runs at once, in server order."""
    path = lesson(tmp_path, '''
        [programs]
        A = ["python", "three.py"]
        [[steps]]
        client = "A"
        reply = "(integer) 5"
        ''', {"three.py": '''
        import os, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        for _ in range(3):
            r.incr("counter")
        '''})
    runner = Runner(pg)
    result = await runner.run(load_scenario(path))
    assert result.ok, (result.error, result.failed_checks)
    reply, = await pg.reader.run([[b"GET", b"counter"]])
    assert reply == b"7"
    assert runner.programs.gate is None and not runner.programs.running


@pytest.mark.parametrize("body, message", [
    ('[programs]\nA = ["python", "x.py"]\n[[steps]]\nclient = "A"\ncommand = "GET k"\n',
     "step 1: command: client A is a program: each of its steps releases its next command"),
    ('[programs]\nC = ["python", "x.py"]\n[[steps]]\nclient = "A"\n',
     "programs: unknown client 'C' (this scenario has A, B)"),
    ('[programs]\nA = "python x.py"\n[[steps]]\nclient = "A"\n',
     'programs.A: the program and its arguments: ["python", "program.py"]'),
    ('[[steps]]\nclient = "A"\nrelease = true\n',
     "step 1: release: only a program's steps release a command (see [programs])"),
    ('program_time_limit = 5\n[[steps]]\nclient = "A"\ncommand = "GET k"\n',
     "program_time_limit: only with [programs]"),
    ('programs_need = ["node"]\n[programs]\nA = ["node", "x.js"]\n[[steps]]\nclient = "A"\n',
     """programs_need: a list of commands, each a list: [["node", "-e", "require('ioredis')"]]"""),
])
def test_bad_programs_table_is_one_line(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(LESSON_HEAD + body)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: {message}"


def test_check_command_runs_program_lessons():
    """`check` headless, as a user runs it, from another working directory."""
    env = dict(os.environ, PYTHONPATH=str(SRC_DIR))
    done = subprocess.run([sys.executable, "-m", "playground", "check", "--server", "bundled",
                           "lost-update-python", "incr-python"], capture_output=True, text=True,
                          timeout=120, cwd="/", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed, 0 failed" in done.stdout


async def test_a_missing_need_skips_the_lesson(pg, tmp_path):
    path = lesson(tmp_path, '''
        programs_need = [["python", "-c", "import no_such_module_here"]]
        [programs]
        A = ["python", "x.py"]
        [[steps]]
        client = "A"
        ''', {})
    result = await Runner(pg).run(load_scenario(path))
    assert result.skipped == ("needs python -c import no_such_module_here: "
                              "ModuleNotFoundError: No module named 'no_such_module_here'")
    assert not result.steps and result.error is None


GIVES_UP = '''
    import os, redis
    r = redis.Redis.from_url(os.environ["REDIS_URL"].split("?")[0], socket_timeout=0.2)
    try:
        r.blpop("jobs", timeout=0)
        said = "took"
    except redis.TimeoutError:
        said = "gave up"
    redis.Redis.from_url(os.environ["REDIS_URL"]).set("said", said)
    '''


@pytest.mark.slow
async def test_a_command_given_up_while_held_is_said_and_never_ran(pg, tmp_path):
    """A's BLPOP waits at the gate while B's step (RPUSH) takes 3 s: A's own 0.2 s socket timeout
    ends its wait there (it closes that connection), and it goes on to SET. The step that
    lets A's SET through says A gave up on its BLPOP, which never ran (B's element was
    not popped); run again, the same: what A sends next is keyed by what it saw, so it is
    not taken for a program that is not repeatable."""
    path = lesson(tmp_path, '''
        [programs]
        A = ["python", "gives_up.py"]
        [[steps]]
        client = "B"
        command = "RPUSH jobs j1"
        sleep = 3
        [[steps]]
        client = "A"
        ''', {"gives_up.py": GIVES_UP})
    runner = Runner(pg)
    for _ in range(2):
        result = await runner.run(load_scenario(path))
        assert result.ok, (result.error, result.failed_checks)
        assert result.steps[1].command == 'SET said "gave up"'
        assert "A gave up on BLPOP jobs 0 before it was let through" in (result.steps[1].note or "")
        jobs, = await pg.reader.run([[b"LRANGE", b"jobs", b"0", b"-1"]])
        assert [bytes(j) for j in jobs] == [b"j1"]   # (the BLPOP never ran)
