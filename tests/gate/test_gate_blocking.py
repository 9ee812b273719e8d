"""A program's blocking command as a step: redis-py's blpop blocks for real at the
server, the step says so (`blocking = true`) and a wait step takes its reply, as for a
typed blocking command; the explorer lets it block, time out, or answer at once. On both
real servers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from playground.errors import ScenarioError
from playground.explore.explorer import explore
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner

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
HEAD = '''title = "t"
lesson = "l"
setup = []
[programs]
A = ["python", "worker.py"]
B = ["python", "pusher.py"]
'''
STEPS = '''
[[steps]]
client = "A"
blocking = true

[[steps]]
client = "B"
reply = "(integer) 1"

[[steps]]
client = "A"
wait = true
reply = """1) "queue"
2) "job-1\""""

[[steps]]
client = "A"
reply = "OK"
state = { done = "job-1" }
'''


def lesson(tmp_path: Path, steps: str = STEPS) -> Path:
    (tmp_path / "worker.py").write_text(textwrap.dedent(WORKER))
    (tmp_path / "pusher.py").write_text(textwrap.dedent(PUSHER))
    path = tmp_path / "lesson.toml"
    path.write_text(HEAD + steps)
    return path


async def test_a_programs_blpop_blocks_until_the_pusher_pushes(pg, tmp_path):
    result = await Runner(pg).run(load_scenario(lesson(tmp_path)))
    assert result.ok, (result.error, result.failed_checks)
    blpop, push, wait, write = result.steps
    assert blpop.command == 'BLPOP queue 1' and blpop.note == "blocked: the reply comes later"
    assert push.command == "RPUSH queue job-1"
    assert wait.note == "the reply to BLPOP queue 1" and wait.reply == '1) "queue"\n2) "job-1"\n'
    assert write.command == "SET done job-1"


async def test_a_blocking_command_on_a_step_not_marked_blocking_fails_it(pg, tmp_path):
    path = lesson(tmp_path, '''
        [[steps]]
        client = "A"

        [[steps]]
        client = "B"
        ''')
    result = await Runner(pg).run(load_scenario(path))
    blpop = result.steps[0]
    assert [c.detail for c in blpop.checks if not c.ok] == [
        "the command blocked; mark the step blocking = true and add a wait step"]


async def test_a_step_marked_blocking_that_answers_at_once_fails(pg, tmp_path):
    path = lesson(tmp_path, '''
        [[steps]]
        client = "B"

        [[steps]]
        client = "A"
        blocking = true

        [[steps]]
        client = "A"
        wait = true
        ''')
    result = await Runner(pg).run(load_scenario(path))
    failed = [c.detail for c in result.steps[1].checks if not c.ok]
    assert failed == ["expected the command to block, it answered at once"]


@pytest.mark.slow
async def test_explore_lets_the_programs_blpop_block_time_out_or_answer(pg, tmp_path):
    result = await explore(pg, load_scenario(lesson(tmp_path)))
    assert result.total == 4
    found = {(c.snapshot.describe("done"), c.snapshot.describe("queue")): c.count for c in result.classes}
    assert found == {('"job-1"', "(absent)"): 2,       # pushed first, or while A waited
                     ('"late"', '["job-1"]'): 2}     # A's BLPOP timed out before the push
    assert not pg.sessions["A"].state.blocked


def test_a_programs_wait_step_needs_a_blocking_step(tmp_path):
    path = lesson(tmp_path, '''
        [[steps]]
        client = "A"
        wait = true
        ''')
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: step 1: wait: client A has no blocking step to wait for"


async def test_a_program_that_waits_for_ever_is_a_deadlock_not_a_hang(pg, tmp_path):
    (tmp_path / "forever.py").write_text(textwrap.dedent('''
        import os, redis
        redis.Redis.from_url(os.environ["REDIS_URL"]).blpop("queue", timeout=0)
        '''))
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = []\n[programs]\nA = ["python", "forever.py"]\n'
                    '[[steps]]\nclient = "A"\nblocking = true\n[[steps]]\nclient = "B"\ncommand = "SET x 1"\n')
    result = await explore(pg, load_scenario(path))
    assert result.total == 2
    assert [c.deadlock for c in result.classes] == ["A waits in BLPOP queue 0"]


async def test_the_stepper_steps_and_rewinds_through_a_programs_blocking_command(pg, tmp_path):
    from playground.scenario.stepper import Stepper
    stepper = Stepper(pg, load_scenario(lesson(tmp_path)))
    await stepper.start()
    blocked = await stepper.step()
    assert blocked.note == "blocked: the reply comes later"
    await stepper.goto(1)      # rewind: the programs start again, A blocks again
    assert stepper.results[0].note == "blocked: the reply comes later"
    rest = await stepper.run_to_end()
    assert [r.ok for r in stepper.results] == [True] * 4, [r.checks for r in rest]
    await stepper.runner.programs.stop()
