"""A lesson's function as a program: `[programs] A = { function = "f.py:name", args = [...] }`
calls name(redis.Redis client, *args) through the gate with the app's interpreter; run,
check and explore work on it as on a program lesson; a bad field is one line naming the
file and the field. On both real servers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from playground.errors import ScenarioError
from playground.explore.explorer import explore
from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from paths import SRC as SRC_DIR

pytest.importorskip("redis")

HEAD = 'title = "t"\nlesson = "l"\nsetup = ["SET counter 4"]\n'


def lesson(tmp_path: Path, body: str, files: dict[str, str]) -> Path:
    for name, source in files.items():
        (tmp_path / name).write_text(textwrap.dedent(source))
    path = tmp_path / "lesson.toml"
    path.write_text(HEAD + textwrap.dedent(body))
    return path


async def test_the_bundled_transfer_lesson_passes(pg):
    result = await Runner(pg).run(load_scenario(bundled_dir() / "transfer-python.toml"))
    assert result.ok, (result.error, result.failed_checks)
    assert [s.command for s in result.steps] == ["GET alice", "GET alice", "SET alice 10", "INCRBY bob 50",
                                                 "SET alice 20", "INCRBY carol 40"]


async def test_explore_finds_the_overdraft_in_the_transfer_function(pg):
    result = await explore(pg, load_scenario(bundled_dir() / "transfer-python.toml"))
    assert result.total == 16 and result.runs == 4   # the orders of the commands sent (a refusal sends one): 4 classes
    found = {tuple(c.snapshot.describe(k) for k in ("alice", "bob", "carol")): c.count for c in result.classes}
    assert found == {('"20"', '"50"', '"40"'): 6, ('"10"', '"50"', '"40"'): 6,    # both paid: 90 of 60
                     ('"10"', '"50"', "(absent)"): 2, ('"20"', "(absent)", '"40"'): 2}  # one refused


async def test_the_function_gets_a_client_and_its_arguments(pg, tmp_path):
    """Its arguments as TOML gave them; the file is imported, not run as a script (its
    __main__ part stays out); a module beside it is importable; what it returns is printed."""
    path = lesson(tmp_path, '''
        [programs]
        A = { function = "add.py:add", args = ["counter", 3, {"note" = "x"}] }
        [[steps]]
        client = "A"
        reply = "(integer) 7"
        state = { counter = "7" }
        ''', {"add.py": '''
        import sys
        import helper

        def add(r, key, amount, extra):
            assert extra == {"note": "x"}
            return r.incrby(key, helper.same(amount))

        if __name__ == "__main__":
            sys.exit(3)
        ''', "helper.py": "def same(x):\n    return x\n"})
    result = await Runner(pg).run(load_scenario(path))
    assert result.ok, (result.error, result.failed_checks)
    assert result.steps[0].command == "INCRBY counter 3"


async def test_a_function_that_raises_is_named_with_its_arguments(pg, tmp_path):
    path = lesson(tmp_path, '''
        [programs]
        A = { function = "boom.py:boom", args = ["counter"] }
        [[steps]]
        client = "A"
        ''', {"boom.py": '''
        def boom(r, key):
            r.get(key)
            raise ValueError("not enough")
        '''})
    result = await Runner(pg).run(load_scenario(path))
    assert result.steps[0].ok
    assert result.error == 'program A (boom.py:boom("counter")) exited with status 1: ValueError: not enough'


@pytest.mark.parametrize("table, message", [
    ('{ function = "nope.py:f" }', "programs.A.function: nope.py: no such file beside the lesson"),
    ('{ function = "f.py" }', 'programs.A.function: a .py file beside the lesson and a function in it: '
                              '"transfer.py:transfer"'),
    ('{ function = "f.py:g" }', "programs.A.function: f.py has no function g (a def at its top level)"),
    ('{ function = "bad.py:f" }', "programs.A.function: bad.py, line 1: not valid Python (expected ':')"),
    ('{ function = "f.py:f", args = "counter" }',
     "programs.A.args: a list of the function's arguments after the client (text, numbers, true/false, "
     "lists, tables)"),
    ('{ function = "f.py:f", args = [1979-05-27] }',
     "programs.A.args: a list of the function's arguments after the client (text, numbers, true/false, "
     "lists, tables)"),
    ('{ function = "f.py:f", kwargs = {} }', "programs.A.kwargs: unknown field (known: function, args)"),
])
def test_a_bad_function_field_is_one_line(tmp_path, table, message):
    (tmp_path / "f.py").write_text("def f(r):\n    pass\n")
    (tmp_path / "bad.py").write_text("def f(r)\n")
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + f'[programs]\nA = {table}\n[[steps]]\nclient = "A"\n')
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: {message}"


def test_check_command_runs_the_function_lesson():
    """`check` headless from another working directory: the runner is found by its path."""
    env = dict(os.environ, PYTHONPATH=str(SRC_DIR))
    done = subprocess.run([sys.executable, "-m", "playground", "check", "--server", "bundled",
                           "transfer-python"], capture_output=True, text=True, timeout=120, cwd="/", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout


async def test_the_learner_schedules_the_transfer_programs_one_client_at_a_time(pg):
    """Challenge mode (`open transfer-python --challenge`: a key per client) moves one
    program at a time; in an order where B's check refuses, B's program ends there: the
    challenge is over, with no move spent on B's steps left."""
    from playground.scenario.challenge import Challenge
    challenge = Challenge(pg, load_scenario(bundled_dir() / "transfer-python.toml"))
    try:
        await challenge.reset()
        for client in "ABAABB":
            await challenge.move(client)
        assert await challenge.won() is True
        await challenge.reset()
        for client in "AAAB":
            await challenge.move(client)
        assert await challenge.won() is False and challenge.ended == {"A", "B"}
        assert await challenge.move("B") is None and len(challenge.results) == 4
    finally:
        await challenge.runner.programs.stop()
