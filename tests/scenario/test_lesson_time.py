"""Lesson time that waits for the class (scenario/lesson_clock.py): however long a teacher
talks between steps, a lesson's TTLs, its programs' time limits and its long scripts give
the outcome the lesson says; `run`/`check --pace` wait like a teacher.

The waits here are the thing under test (a teacher's pace), never a way to synchronise:
every outcome is decided by the server, before or after a TTL that the pace outlasts."""

from __future__ import annotations

import pytest
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest_asyncio

from playground.engine.playground import Playground
from playground.scenario.library import bundled_dir, scenario_files
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.scenario.stepper import Stepper
from playground.server import PrivateServer

LOCK_LESSON = '''
title = "held"
lesson = "A lock with a short lease, and a class that talks longer than it."

[[steps]]
client = "A"
command = "SET lock A NX PX 300"
reply = "OK"

[[steps]]
client = "B"
command = "SET lock B NX PX 300"
reply = "(nil)"

[[steps]]
client = "B"
command = "GET lock"
reply = '"A"'

[[steps]]
client = "B"
command = "GET lock"
sleep = 0.6
reply = "(nil)"
'''


@pytest_asyncio.fixture
async def playground(server_binary):
    server = PrivateServer(server_binary).start()
    pg = Playground(server=server)
    await pg.start()
    yield pg
    await pg.close()
    server.stop()


def _lesson(tmp_path, text: str, name: str = "held"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return load_scenario(path)


@pytest.mark.slow
async def test_a_lease_outlives_a_teacher_who_talks_longer_than_it(playground, tmp_path):
    """0.6 s before each step, a 0.3 s lease: the lesson's time stands still meanwhile, and
    a step's own `sleep` is the lesson's time (the lease then runs out)."""
    scenario = _lesson(tmp_path, LOCK_LESSON)
    result = await Runner(playground, lesson_time=True, pace=0.6).run(scenario)
    assert result.ok, [(s.step.number, c.detail) for s, c in result.failed_checks]


@pytest.mark.slow
async def test_without_the_lesson_clock_the_same_pace_loses_the_lease(playground, tmp_path):
    """What the clock prevents (so the test above can fail): the lease ran out while the
    class talked, and B took the lock."""
    scenario = _lesson(tmp_path, LOCK_LESSON)
    result = await Runner(playground, lesson_time=False, pace=0.6).run(scenario)
    assert result.steps[1].reply.strip() == "OK"


async def test_a_watched_key_is_never_touched(playground, tmp_path):
    """A PEXPIRE on a WATCHed key would abort the transaction: the clock leaves it alone."""
    scenario = _lesson(tmp_path, '''
title = "watched"
lesson = "x"

[[steps]]
client = "A"
command = "SET k v PX 60000"

[[steps]]
client = "A"
command = "WATCH k"

[[steps]]
client = "A"
command = "MULTI"

[[steps]]
client = "A"
command = "SET k w"

[[steps]]
client = "A"
command = "EXEC"
reply = "1) OK"
''', "watched")
    result = await Runner(playground, lesson_time=True, pace=0.2).run(scenario)
    assert result.ok, [(s.step.number, c.detail) for s, c in result.failed_checks]


async def test_an_expiry_changed_by_hand_between_steps_stays_as_typed(playground, tmp_path):
    """The learner types PEXPIRE between steps: the clock lets that key go (the typing wins)."""
    scenario = _lesson(tmp_path, '''
title = "typed"
lesson = "x"

[[steps]]
client = "A"
command = "SET k v PX 100000"

[[steps]]
client = "A"
command = "PTTL k"
''', "typed")
    stepper = Stepper(playground, scenario)
    await stepper.start()
    await stepper.step()
    assert await stepper.runner.clock.holding() == {b"k"}
    await stepper.runner.executor.settled("B", (b"PEXPIRE", b"k", b"50000"))
    result = await stepper.step()
    assert 0 < int(result.reply.split()[-1]) <= 50000, result.reply
    await stepper.runner.close_clock()


@pytest.mark.slow
async def test_a_rewind_while_an_unkillable_script_runs_starts_the_part_afresh(playground):
    """busy-script's scripts loop until a step ends them; a rewind in the middle of its
    second part (the script wrote: UNKILLABLE) still gets a working server, at once."""
    stepper = Stepper(playground, load_scenario(bundled_dir() / "busy-script.toml"))
    await stepper.start()
    start = next(i for i, (part, _) in enumerate(stepper.flat) if part == 1)
    for _ in range(start + 2):  # part 2's EVAL, and B's SCRIPT KILL answered UNKILLABLE
        assert (await stepper.step()).ok
    await stepper.goto(start)
    assert stepper.error is None
    done = await stepper.run_to_end()
    assert [r.ok for r in done] == [True] * len(done) and stepper.finished
    await stepper.runner.close_clock()


# -- every bundled lesson under `check --pace` ------------------------------------------

BASE_PACE = 5.0
"""A teacher who talks (the issue's `--pace 5`), longer than every time-bound thing the
bundled lessons let pass between steps other than TTLs: busy-script's scripts looped 2 s
before they looped until a step ends them, WAIT's timeouts (2 s at most), `sleep`s (1.1 s),
the 0.1 s script time limit."""


def _pace(scenario) -> float:
    """BASE_PACE, or longer where a lesson relies on a key's TTL (60 s at most) across
    non-bound steps: that TTL divided by those steps' count (the waits then add up to more
    than the TTL, so without the lesson clock the key would expire first). For
    lock-lost-on-failover, 30 s over 4 waits: 8 s."""
    from playground.tui.scenario_runs.teaching_text import _ttl_set_by

    pace = BASE_PACE
    for part in scenario.parts:
        for i, step in enumerate(part.steps):
            found = _ttl_set_by(step, {step.argv[1]}) if step.argv and len(step.argv) > 1 else None
            if not found or found[1] > 60:
                continue
            key, ttl = found
            relying = [j for j in range(i + 1, len(part.steps))
                       if key in (part.steps[j].argv or ())[1:] or any(c.key == key for c in part.steps[j].state)]
            waits = sum(1 for s in part.steps[i + 1:relying[-1] + 1] if not s.bound) if relying else 0
            if waits:
                pace = max(pace, ttl / waits + 0.5)
    return pace


def _check(binary, path) -> tuple[str, int, str]:
    pace = _pace(load_scenario(path))
    run = subprocess.run([sys.executable, "-m", "playground", "check", str(path), "--pace", f"{pace:g}",
                          "--server", str(binary.path)], capture_output=True, text=True, timeout=900)
    return path.stem, run.returncode, run.stdout + run.stderr


@pytest.mark.slow
def test_every_bundled_lesson_passes_at_a_teachers_pace(server_binary):
    """Each lesson in a `check --pace` of its own, several at once: they mostly wait (about
    235 paced steps at 5 s, lock-lost-on-failover's 11 at 8 s: all at once, the longest
    lesson's time, about two minutes a server: myths' 25 steps at 5 s)."""
    files = scenario_files()
    with ThreadPoolExecutor(max_workers=len(files)) as pool:
        results = list(pool.map(lambda path: _check(server_binary, path), files))
    failed = [f"{stem}:\n{out}" for stem, code, out in results if code != 0]
    assert not failed, "\n".join(failed)
    assert _pace(load_scenario(bundled_dir() / "lock-lost-on-failover.toml")) == 8.0


async def test_the_clocks_own_pexpires_are_nobodys_write(playground, tmp_path):
    """The server's key events (engine/changes.py) tell who changed what: the clock's
    PEXPIREs between steps are not claimed by the next step that may write the key (B's
    SET NX, refused, changed nothing)."""
    from playground.engine.executor import Executor

    scenario = _lesson(tmp_path, '''
title = "events"
lesson = "x"

[[steps]]
client = "A"
command = "SET k v PX 60000"

[[steps]]
client = "B"
command = "SET k w NX"
reply = "(nil)"
''', "events")
    stepper = Stepper(playground, scenario, Executor(playground, attribute=True))
    await stepper.start()
    await stepper.step()
    assert await stepper.runner.clock.holding() == {b"k"}
    result = await stepper.step()
    assert result.ok and result.units[0].changes == {}
    await stepper.runner.close_clock()


async def test_the_observer_reconnecting_to_a_busy_server_says_busy(playground):
    """A script that loops until a step ends it (busy-script): the observer, on a new
    connection (its CLIENT SETNAME refused BUSY), says the server is busy, so the step's
    EVAL is seen as blocked instead of timing out."""
    from playground.engine.executor import Executor

    await playground.set_script_time_limit(100)
    executor = Executor(playground)
    job = await executor.settled("A", (b"EVAL", b"while true do end", b"0"))
    assert job.blocked
    await playground.observer.close()  # (as after a read cancelled when a reply came first)
    ids = [playground.sessions["A"].state.client_id]
    assert await playground.observer.client_fields(ids) is None and playground.observer.server_busy
    reply, = await playground.admin.run([[b"SCRIPT", b"KILL"]])
    assert reply == b"OK"
    await job.task
