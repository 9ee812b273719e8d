"""A step on a key whose TTL may run out while a schedule runs is never taken to commute
with another client's step: where it comes among them decides what it finds. A setup
TTL of a few milliseconds then has every position of that step run, reduced as with
every order; a TTL far longer than a schedule keeps the reduction."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.explore.explorer import Explorer

pytestmark = [pytest.mark.server]

LESSONS = Path(__file__).parent / "lessons"


async def test_a_setup_ttl_of_milliseconds_runs_every_position_of_the_step_on_it(pg, tmp_path):
    from playground.scenario.loader import load_scenario

    lesson = load_scenario(LESSONS / "setup-ttl-of-milliseconds.toml")
    explorer = Explorer(pg, lesson)
    reduced = await explorer.explore()
    # A1 (GET k) against B1 (SET other 1) and B2 (PING): before both, between, after both,
    # each run; A2 (SET seen ...) writes a key nobody else touches: it still commutes
    assert not explorer.independent(("A", 0), ("B", 0)) and not explorer.independent(("A", 0), ("B", 1))
    assert explorer.independent(("A", 1), ("B", 0)) and explorer.independent(("A", 1), ("B", 1))
    assert reduced.runs == 3 and reduced.covered == reduced.total == 6
    every = await Explorer(pg, lesson, reduce=False).explore()
    assert every.runs == 6
    # a TTL far longer than a schedule can run: the reduction stands (one run stands for all six)
    path = tmp_path / "long-ttl.toml"
    path.write_text((LESSONS / "setup-ttl-of-milliseconds.toml").read_text().replace("PX 5", "EX 600"))
    long = Explorer(pg, load_scenario(path))
    result = await long.explore()
    assert long.independent(("A", 0), ("B", 0))
    assert result.runs == 1 and result.covered == 6


async def test_a_key_given_a_short_ttl_by_a_step_or_copied_from_one(pg, tmp_path):
    """The TTL a step gives (PEXPIRE), and a key written from an expiring one (COPY keeps
    the TTL), make the steps on them ordered too."""
    from playground.scenario.loader import load_scenario

    path = tmp_path / "given.toml"
    path.write_text('title = "t"\nlesson = "x"\nsetup = ["SET k v"]\n'
                    '[[steps]]\nclient = "A"\ncommand = "PEXPIRE k 20"\n'
                    '[[steps]]\nclient = "A"\ncommand = "COPY k k2"\n'
                    '[[steps]]\nclient = "A"\ncommand = "GET k2"\n'
                    '[[steps]]\nclient = "B"\ncommand = "SET other 1"\n')
    explorer = Explorer(pg, load_scenario(path))
    await explorer.explore()
    assert not explorer.independent(("A", 2), ("B", 0))   # GET k2: k2 came from k, with its TTL
