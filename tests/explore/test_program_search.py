"""Programs explored by the commands they send (explore/program_moves.py): a lesson whose
clients are all programs needs no steps, and a program that sends more commands than
it has steps has them scheduled too. The explorer's outcomes are compared with an
independent loop that runs every order of the same commands by hand with redis-py on
the same real server. On both real servers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from itertools import permutations
from pathlib import Path

import pytest

from playground.errors import ScenarioError
from playground.explore.explorer import ExploreError, explore
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner

redis = pytest.importorskip("redis")

GET_SET = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
value = int(r.get("counter"))
r.set("counter", value + 1)
'''
INCR = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.incr("counter")
'''


def lesson(tmp_path: Path, program: str, steps: str = "") -> Path:
    (tmp_path / "p.py").write_text(textwrap.dedent(program))
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 5"]\n'
                    '[programs]\nA = ["python", "p.py"]\nB = ["python", "p.py"]\n' + textwrap.dedent(steps))
    return path


def outcomes(result) -> dict[str, int]:
    return {c.snapshot.describe("counter"): c.count for c in result.classes}


def by_hand(pg, moves: dict[str, list[str]]) -> set[str]:
    """Every interleaving of each client's moves ("get": remember the counter, "set": write
    what it read plus one, "incr"), run with two redis-py clients: the final counters."""
    address = pg.address
    clients = {c: redis.Redis(unix_socket_path=address.path, username=address.username,
                              password=address.password) for c in moves}
    seen = set()
    try:
        word = [c for c, ms in moves.items() for _ in ms]
        for order in set(permutations(word)):
            clients["A"].set("counter", 5)
            at, read = dict.fromkeys(moves, 0), {}
            for c in order:
                move = moves[c][at[c]]
                at[c] += 1
                if move == "get":
                    read[c] = int(clients[c].get("counter"))
                elif move == "set":
                    clients[c].set("counter", read[c] + 1)
                else:
                    clients[c].incr("counter")
            seen.add(f'"{int(clients["A"].get("counter"))}"')
        clients["A"].delete("counter")
    finally:
        for r in clients.values():
            r.close()
    return seen


async def test_two_read_modify_write_programs_without_steps(pg, tmp_path):
    result = await explore(pg, load_scenario(lesson(tmp_path, GET_SET)))
    assert result.total == 6 and result.runs == 4   # GET, SET each: 6 orders, the two GETs commute
    assert outcomes(result) == {'"6"': 4, '"7"': 2}
    assert set(outcomes(result)) == by_hand(pg, {"A": ["get", "set"], "B": ["get", "set"]})
    lost, = [c for c in result.classes if c.snapshot.describe("counter") == '"6"']
    assert not lost.serial and result.serial_known   # "no serial order gives this"
    assert result.own_order == ("A", "A", "B", "B")   # as `run` runs it: A to its end, then B


async def test_two_incr_programs_without_steps(pg, tmp_path):
    result = await explore(pg, load_scenario(lesson(tmp_path, INCR)))
    assert result.total == result.runs == 2
    assert outcomes(result) == {'"7"': 2}
    assert set(outcomes(result)) == by_hand(pg, {"A": ["incr"], "B": ["incr"]})


async def test_commands_past_a_programs_steps_are_scheduled(pg, tmp_path):
    """One step each, two commands each: the SETs are moves too (never run free, unexplored:
    that found one outcome, 6, where the programs reach 6 and 7)."""
    result = await explore(pg, load_scenario(lesson(tmp_path, GET_SET, '''
        [[steps]]
        client = "A"
        reply = '"5"'
        [[steps]]
        client = "B"
        ''')))
    assert result.total == 6 and result.runs == 4
    assert outcomes(result) == {'"6"': 4, '"7"': 2}
    assert result.own_order == ("A", "B", "A", "B")   # the lesson's steps, then the first that can move


async def test_run_without_steps_runs_each_program_in_turn(pg, tmp_path):
    result = await Runner(pg).run(load_scenario(lesson(tmp_path, GET_SET)))
    assert result.ok and result.error is None
    assert [(s.step.client, s.command, s.reply.strip()) for s in result.steps] == [
        ("A", "GET counter", '"5"'), ("A", "SET counter 6", "OK"),
        ("B", "GET counter", '"6"'), ("B", "SET counter 7", "OK")]
    assert [s.seq for s in result.steps] == sorted(s.seq for s in result.steps)   # server order


def test_steps_are_needed_when_a_client_is_not_a_program(tmp_path):
    path = lesson(tmp_path, INCR)
    path.write_text(path.read_text().replace('B = ["python", "p.py"]\n', ""))
    with pytest.raises(ScenarioError, match=r"at least one \[\[steps\]\] table is needed"):
        load_scenario(path)


async def test_bound_program_steps_stay_together_in_explore(pg, tmp_path):
    """Each program's SET bound to its GET: no order splits them, so no update is lost."""
    result = await explore(pg, load_scenario(lesson(tmp_path, GET_SET, '''
        [[steps]]
        client = "A"
        [[steps]]
        client = "A"
        bound = true
        [[steps]]
        client = "B"
        [[steps]]
        client = "B"
        bound = true
        ''')))
    assert result.total == result.runs == 2
    assert outcomes(result) == {'"7"': 2}


async def test_a_program_step_sleeps_before_its_command_goes(pg, tmp_path):
    """A's program sets a key that lives 200 ms and reads it at once; the GET's step lets
    0.5 s pass before it goes: the key is gone (without the sleep it is still there)."""
    result = await Runner(pg).run(load_scenario(lesson(tmp_path, '''
        import os, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        r.set("flag", 1, px=200)
        r.get("flag")
        ''', '''
        [[steps]]
        client = "A"
        reply = "OK"
        [[steps]]
        client = "A"
        sleep = 0.5
        reply = "(nil)"
        ''')))
    assert result.ok, (result.error, result.failed_checks)
    assert [s.command for s in result.steps] == ["SET flag 1 PX 200", "GET flag"]


BUMP = '''
import redis

def bump(r: redis.Redis, how: str) -> None:
    if how == "incr":
        r.incr("counter")
    else:
        r.set("counter", int(r.get("counter")) + 1)
'''
PARTS = '''
title = "t"
lesson = "l"
[programs]
A = { function = "bump.py:bump", args = ["get-set"] }
B = { function = "bump.py:bump", args = ["get-set"] }

[[parts]]
name = "the bug"
setup = ["SET counter 5"]

[[parts]]
name = "the fix"
setup = ["SET counter 5"]
programs.A = { args = ["incr"] }
programs.B = { function = "bump.py:bump", args = ["incr"] }
'''


async def test_each_part_has_programs_of_its_own(pg, tmp_path):
    """A bug and its fix in one file: the same function with other args in part 2."""
    (tmp_path / "bump.py").write_text(BUMP)
    (tmp_path / "lesson.toml").write_text(PARTS)
    scenario = load_scenario(tmp_path / "lesson.toml")
    bug = await explore(pg, scenario, part=1)
    assert outcomes(bug) == {'"6"': 4, '"7"': 2}
    fix = await explore(pg, scenario, part=2)
    assert outcomes(fix) == {'"7"': 2}
    result = await Runner(pg).run(scenario)
    assert result.ok, (result.error, result.failed_checks)
    assert [s.command for s in result.steps] == ["GET counter", "SET counter 6", "GET counter", "SET counter 7",
                                                 "INCRBY counter 1", "INCRBY counter 1"]  # (redis-py's incr)


@pytest.mark.parametrize("part_programs, message", [
    ('programs.C = ["python", "p.py"]', "part 'the fix': programs: 'C' is not in [programs]"),
    ('programs.A = ["python", 3]', "part 'the fix': programs.A: the program and its arguments"),
    ('programs.A = { args = [1], other = 2 }', "part 'the fix': programs.A.other: unknown field"),
])
def test_a_parts_programs_that_cannot_be_are_one_line(tmp_path, part_programs, message):
    (tmp_path / "bump.py").write_text(BUMP)
    (tmp_path / "lesson.toml").write_text(PARTS.replace('programs.A = { args = ["incr"] }', part_programs))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path / "lesson.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def one_client(path: Path, fields: str = ""):
    """The lesson at `path` with client A only (and `fields`)."""
    path.write_text(path.read_text().replace('B = ["python", "p.py"]\n', "").replace(
        "[programs]", 'clients = ["A"]\n' + fields + "[programs]"))
    return load_scenario(path)


async def test_a_program_that_sends_what_time_says_is_not_repeatable(pg, tmp_path):
    """Its commands depend on TIME's reply: no two runs of one order send the same (the
    replies differ, so no earlier run with the same replies shows it: the first order
    runs twice). One client, one order: it is found all the same."""
    path = lesson(tmp_path, '''
        import os, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        seconds, micro = r.time()
        r.set("at", f"{seconds}.{micro:06d}")
        ''')
    with pytest.raises(ExploreError) as caught:
        await explore(pg, one_client(path))
    message = str(caught.value)
    assert message.startswith("lesson: program A (python p.py) is not repeatable: run twice in the same order "
                              "(A1 A2), its command 2 was SET at "), message
    assert "\n" not in message


async def test_a_program_stopped_in_one_run_of_an_order_only_is_not_called_not_repeatable(pg, tmp_path):
    """A subscriber stopped in the first run, waiting for a message nobody sent, that goes
    on in the same order run again (here a file says so; in CI a late message, on a busy
    machine, did): it sent the same commands as far as it got, so the line says it was
    cut short in one run, not "not repeatable ... command 2 was nothing"."""
    path = lesson(tmp_path, '''
        import os, sys, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        p = r.pubsub()
        p.subscribe("news")
        if os.path.exists("waited"):
            r.set("done", "1")
            sys.exit(0)
        open("waited", "w").close()
        for m in p.listen():
            pass
        ''')
    with pytest.raises(ExploreError) as caught:
        await explore(pg, one_client(path, "program_time_limit = 3\n"))
    message = str(caught.value)
    assert message.startswith("lesson: program A (python p.py) ran differently in two runs of the same order (A1): "
                              "in one it was stopped after 1 of its commands (at its time limit, 3 s, or waiting "
                              "for what nobody sent), in the other it went on."), message
    assert "not repeatable" not in message and "\n" not in message


async def test_programs_have_one_hash_seed_in_run_and_explore(pg, tmp_path):
    """PYTHONHASHSEED is fixed (0): the same hash("alpha") in every run and schedule, forked
    from the warm interpreter (explore) or started afresh (run)."""
    path = lesson(tmp_path, '''
        import os, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        r.set("h", hash("alpha"))
        ''')
    expected = subprocess.run([sys.executable, "-c", "print(hash('alpha'))"], env=dict(os.environ, PYTHONHASHSEED="0"),  # noqa: ASYNC221 (one short command)
                              capture_output=True, text=True, check=True).stdout.strip()
    explored = await explore(pg, load_scenario(path))
    assert [c.snapshot.describe("h") for c in explored.classes] == [f'"{expected}"']
    ran = await Runner(pg).run(load_scenario(path))
    assert ran.ok and [s.command for s in ran.steps] == [f"SET h {expected}"] * 2


async def test_the_search_stops_at_the_limit_and_says_so(pg, tmp_path):
    from playground.explore.report import figures

    for reduce in (True, False):
        result = await explore(pg, load_scenario(lesson(tmp_path, GET_SET)), limit=2, reduce=reduce)
        # the two serial orders ran too (the own order, A then B, among them: not run again): every outcome labelled
        assert result.sampled and result.runs == 3 and result.serial_known
        assert 2 < result.total <= 6   # true: at least that many (6 in all)
        assert figures(result).startswith(f"At least {result.total} schedules: more than --limit 2, so the "
                                          "search stopped after the first 2")
        assert "the serial orders ran too" in figures(result)
        assert {tuple(o) for c in result.classes for o in c.serial} == {("A", "B"), ("B", "A")}


async def test_an_outcomes_schedule_steps_through_as_a_scenario(pg, tmp_path):
    """"See how it happens" of a lesson without steps: the lost update's first schedule as
    a scenario of its own, run, ends as the explorer said."""
    from playground.explore.schedule_replay import schedule_scenario

    result = await explore(pg, load_scenario(lesson(tmp_path, GET_SET)))
    lost, = [c for c in result.classes if c.snapshot.describe("counter") == '"6"']
    replay = schedule_scenario(result, lost)
    assert [s.client for s in replay.parts[0].steps] == list(lost.first) == ["A", "B", "A", "B"]
    ran = await Runner(pg).run(replay)
    assert ran.ok and [s.command for s in ran.steps] == ["GET counter", "GET counter", "SET counter 6",
                                                         "SET counter 6"]


@pytest.mark.slow
async def test_a_program_that_never_ends_is_named_and_not_the_one_it_held_up(pg, tmp_path):
    """A listens to a channel for ever: stopped at its time limit and named; B's INCR
    waited at the gate for A's end meanwhile, which is not B's own time."""
    (tmp_path / "listen.py").write_text(textwrap.dedent('''
        import os, redis
        p = redis.Redis.from_url(os.environ["REDIS_URL"]).pubsub()
        p.subscribe("ch")
        for message in p.listen():
            pass
        '''))
    path = lesson(tmp_path, INCR)
    path.write_text(path.read_text().replace('A = ["python", "p.py"]', 'A = ["python", "listen.py"]').replace(
        "[programs]", "program_time_limit = 4\n[programs]"))  # (B starts in time on a loaded machine too)
    result = await Runner(pg).run(load_scenario(path))
    assert result.error == "program A (python listen.py) ran past its time limit (4 s): stopped"
    assert [(s.step.client, s.command) for s in result.steps] == [("A", "SUBSCRIBE ch"), ("B", "INCRBY counter 1")]
