"""A challenge whose clients are programs: it ends with its verdict as soon as every
program has ended (a key for an ended program says so, and spends no move), and a
lesson with [programs] and [challenge] but no steps moves each program's next command
through the gate, a key per client. Engine and Pilot, on both real servers."""

from __future__ import annotations

import textwrap

import pytest

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.challenge import Challenge
from playground.tui.app import make_app
from pilot import log_text, started, wait_until
from pilot import panel_text, press_and_wait
from servers import shared

pytest.importorskip("redis")

STEPLESS = '''
title = "Two programs, no steps"
lesson = "Each program reads the counter and writes it back plus one."
setup = ["SET counter 4"]

[challenge]
goal = "Lose an increment: the counter ends at 5."

[challenge.state]
counter = "5"

[programs]
A = ["python", "incr.py"]
B = ["python", "incr.py"]
'''


def stepless(tmp_path):
    (tmp_path / "incr.py").write_text((bundled_dir() / "programs" / "get_set_increment.py").read_text())
    path = tmp_path / "stepless.toml"
    path.write_text(textwrap.dedent(STEPLESS))
    return load_scenario(path)


def transfer():
    return load_scenario(bundled_dir() / "transfer-python.toml")


async def test_the_verdict_comes_as_soon_as_every_program_has_ended(pg):
    """B transfers first; A's balance check then refuses and A ends after one command,
    with two of its steps left: the verdict is there at once, A has no move left."""
    challenge = Challenge(pg, transfer())
    try:
        await challenge.reset()
        for client in "BBBA":
            assert await challenge.won() is None
            assert await challenge.move(client) is not None
        assert challenge.ended == {"A", "B"}
        assert await challenge.won() is False            # carol got 40, bob nothing
        assert await challenge.move("A") is None and challenge.moves == list("BBBA")
        assert not any(r.skipped for r in challenge.results)
        await challenge.undo()                           # A runs again
        assert challenge.ended == {"B"} and await challenge.won() is None
    finally:
        await challenge.runner.programs.stop()


async def test_a_stepless_challenge_moves_the_programs_commands(pg, tmp_path):
    challenge = Challenge(pg, stepless(tmp_path))
    try:
        await challenge.reset()
        assert challenge.shown("A")[0][0].display == "GET counter"   # held at the gate, not yet sent
        for client in "AB":
            await challenge.move(client)
        assert [r.command for r in challenge.results] == ["GET counter", "GET counter"]
        await challenge.move("A")
        assert challenge.ended == {"A"} and await challenge.won() is None
        await challenge.move("B")
        assert await challenge.won() is True             # both wrote 5
        assert [s.display for s in challenge.shown("B")[0]] == ["GET counter", "SET counter 5"]
    finally:
        await challenge.runner.programs.stop()


async def open_challenge(pilot, app):
    await started(pilot, app)
    await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
    app.scenario_run.speed_index = 0


async def test_the_challenge_screen_gives_the_verdict_when_the_programs_end(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=transfer(), challenge=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await open_challenge(pilot, app)
        for key in "bbb":
            await press_and_wait(pilot, app, key)
        assert "did not end in the goal" not in panel_text(app)
        await press_and_wait(pilot, app, "a")            # A reads 20: refused, and it ends
        assert "did not end in the goal's state" in panel_text(app)
        await press_and_wait(pilot, app, "a")
        assert "A's program has ended: it sends nothing more." in panel_text(app)
        assert "did not end in the goal's state" in panel_text(app)
        assert app.scenario_run.challenge.moves == list("BBBA")
        assert log_text(app, "A")[-2:] == ["A> GET alice", '"20"']


@pytest.mark.slow
async def test_a_stepless_program_challenge_is_played_with_a_and_b(server_binary, tmp_path):
    app = make_app(server=shared(server_binary), open_scenario=stepless(tmp_path), challenge=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await open_challenge(pilot, app)
        await wait_until(pilot, lambda: "A: GET counter" in panel_text(app))  # what A's program holds at the gate
        for key in "aa":
            await press_and_wait(pilot, app, key)
        assert "A: GET counter  SET counter 5  (its program has ended)" in panel_text(app)
        assert "B: GET counter" in panel_text(app) and "did not end in the goal" not in panel_text(app)
        for key in "bb":
            await press_and_wait(pilot, app, key)
        assert "did not end in the goal's state" in panel_text(app)  # 6: one after the other
        assert log_text(app, "B")[-2:] == ["B> SET counter 6", "OK"]
        await press_and_wait(pilot, app, "b")
        assert "B's program has ended" in panel_text(app) and app.scenario_run.challenge.moves == list("AABB")
        for key in "uuu":
            await press_and_wait(pilot, app, key)
        assert app.scenario_run.challenge.moves == ["A"]
        for key in "bab":
            await press_and_wait(pilot, app, key)
        assert "✓ Won: the real server ended in the goal's state" in panel_text(app)
        assert 'counter = "5"' in panel_text(app)


BLOCKING = '''
title = "A pop that waits"
lesson = "A waits for a job; B pushes one."

[challenge]
goal = "A gets B's job."

[challenge.state]
got = "job"

[programs]
A = { function = "jobs.py:take" }
B = { function = "jobs.py:give" }
'''

QUEUE = """
def take(r):
    key, value = r.blpop("jobs")
    r.set("got", value)


def give(r):
    r.lpush("jobs", "job")
"""


async def test_a_blocked_program_waits_for_the_other_clients_move(pg, tmp_path):
    (tmp_path / "jobs.py").write_text(textwrap.dedent(QUEUE))
    (tmp_path / "jobs.toml").write_text(textwrap.dedent(BLOCKING))
    challenge = Challenge(pg, load_scenario(tmp_path / "jobs.toml"))
    try:
        await challenge.reset()
        await challenge.move("A")                        # BLPOP jobs: blocked at the server
        assert await challenge.blocked("A") and await challenge.move("A") is None
        await challenge.move("B")                        # LPUSH: B ends, A's reply is there to take
        assert challenge.ended == {"B"} and await challenge.won() is None
        taken = await challenge.move("A")
        assert taken.step.wait and taken.reply.splitlines()[-1].endswith('"job"')
        await challenge.move("A")                        # SET got job
        assert challenge.ended == {"A", "B"} and await challenge.won() is True
    finally:
        await challenge.runner.programs.stop()

BROKEN = """

def broken(r):
    r.get("jobs")
    raise RuntimeError("out of coffee")
"""


async def test_a_program_that_dies_ends_its_moves_and_says_how(pg, tmp_path):
    (tmp_path / "jobs.py").write_text(QUEUE + BROKEN)
    (tmp_path / "jobs.toml").write_text(textwrap.dedent(BLOCKING).replace("jobs.py:take", "jobs.py:broken"))
    challenge = Challenge(pg, load_scenario(tmp_path / "jobs.toml"))
    try:
        await challenge.reset()
        assert challenge.failure("A") is None
        await challenge.move("A")
        assert challenge.ended == {"A"} and "out of coffee" in challenge.failure("A")
        await challenge.move("B")
        assert await challenge.won() is False
    finally:
        await challenge.runner.programs.stop()
