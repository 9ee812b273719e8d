"""Nothing outlives a program: what a lesson's program starts (a forked sleeper, a
grandchild in a session of its own holding the program's output, a child left running
when it exits) ends with it, and `run` ends when the program does, not when the last
holder of its output pipe lets go. Run as `run` runs programs (each started afresh) and
as the explorer does (forked from the warm interpreter: gate/warm.py). On both real
servers; the children are looked for in /proc."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import ExploreError, explore
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.server.children import proc_stat

pytest.importorskip("redis")

BOUND = 30.0  # seconds: far more than any run here takes, far less than the children's 60 s sleep

HEAD = '''
import os, subprocess, sys, time
def keep(pid):
    with open("pids", "a") as f:
        f.write(f"{pid}\\n")
def step():   # its one command, the lesson's step 1
    import redis
    redis.Redis.from_url(os.environ["REDIS_URL"]).set("a", "1")
'''

PROGRAMS = {
    # it waits for a child (in a session of its own) that sleeps for a minute: its time limit ends both
    "fork-and-wait": '''
        pid = os.fork()   # (first: the child is there however long the interpreter took to start)
        if pid == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
        keep(pid)
        step()
        os.waitpid(pid, 0)
        ''',
    # a double fork: the grandchild, in a session of its own, holds the program's stdout and stderr
    "setsid-grandchild": '''
        step()
        pid = os.fork()
        if pid == 0:
            os.setsid()
            grandchild = os.fork()
            if grandchild == 0:
                print("grandchild here", flush=True)
                time.sleep(60)
                os._exit(0)
            keep(grandchild)
            os._exit(0)
        os.waitpid(pid, 0)
        print("done")
        ''',
    # it exits, leaving a child (another program, its output the program's) sleeping
    "exit-leaving-a-child": '''
        step()
        keep(subprocess.Popen(["sleep", "60"]).pid)
        print("done")
        ''',
}


def lesson(tmp_path: Path, shape: str) -> Path:
    (tmp_path / "prog.py").write_text(textwrap.dedent(HEAD) + textwrap.dedent(PROGRAMS[shape]))
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = []\nprogram_time_limit = 3\n'
                    '[programs]\nA = ["python", "prog.py"]\n'
                    '[[steps]]\nclient = "A"\n[[steps]]\nclient = "B"\ncommand = "SET b 1"\n')
    return path


def alive(pid: int) -> bool:
    fields = proc_stat(pid)
    return fields is not None and fields[0] not in (b"Z", b"X")


def left(tmp_path: Path) -> list[int]:
    pids = [int(line) for line in (tmp_path / "pids").read_text().split()]
    assert pids, "the program did not start its child"
    return [pid for pid in pids if alive(pid)]


SHAPES = [pytest.param(shape, marks=[pytest.mark.slow] if shape == "fork-and-wait" else []) for shape in PROGRAMS]


@pytest.mark.parametrize("shape", SHAPES)
async def test_run_ends_with_the_program_and_so_does_everything_it_started(pg, tmp_path, shape):
    result = await asyncio.wait_for(Runner(pg).run(load_scenario(lesson(tmp_path, shape))), BOUND)
    if shape == "fork-and-wait":
        assert not result.ok and "ran past its time limit (3 s)" in result.error, result.error
    else:
        assert result.ok, (result.error, result.failed_checks)
    assert left(tmp_path) == []


@pytest.mark.parametrize("shape", SHAPES)
async def test_every_schedule_ends_everything_its_forked_program_started(pg, tmp_path, shape):
    scenario = load_scenario(lesson(tmp_path, shape))
    if shape == "fork-and-wait":
        with pytest.raises(ExploreError) as caught:
            await asyncio.wait_for(explore(pg, scenario), BOUND)
        assert "ran past its time limit (3 s)" in str(caught.value)
    else:
        result = await asyncio.wait_for(explore(pg, scenario), BOUND)
        assert result.total == 2
    assert left(tmp_path) == []
