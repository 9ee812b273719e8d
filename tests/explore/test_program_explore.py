"""Exploring programs: every schedule re-runs the lesson's programs from the start on a
fresh state; a program that does something else on the same replies is reported, not
trusted. On both real servers."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import ExploreError, explore
from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario

pytest.importorskip("redis")


def counting_lesson(folder, name: str, after: str, moves_of_a: int) -> Path:
    """A lesson of program A (`name`: it counts its runs in the file "runs", reads the
    counter, then does `after`, which may use `runs`) and B's typed INCR counter after
    A's `moves_of_a` steps; its path."""
    (folder / name).write_text(textwrap.dedent('''
        import os, redis
        runs = int(open("runs").read()) + 1 if os.path.exists("runs") else 1
        open("runs", "w").write(str(runs))
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        r.get("counter")
        ''') + textwrap.dedent(after))
    steps = '[[steps]]\nclient = "A"\n' * moves_of_a + '[[steps]]\nclient = "B"\ncommand = "INCR counter"\n'
    path = folder / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 4"]\n'
                    f'[programs]\nA = ["python", "{name}"]\n' + steps)
    return path


def outcomes(result) -> dict[str, int]:
    return {c.snapshot.describe("counter"): c.count for c in result.classes}


async def test_explore_finds_the_lost_update_in_the_python_programs(pg):
    result = await explore(pg, load_scenario(bundled_dir() / "lost-update-python.toml"))
    assert result.total == 6 and result.runs == 4   # the two GETs commute: 4 classes
    assert outcomes(result) == {'"5"': 4, '"6"': 2}


async def test_explore_finds_none_in_the_incr_programs(pg):
    result = await explore(pg, load_scenario(bundled_dir() / "incr-python.toml"))
    assert outcomes(result) == {'"6"': 2}


async def test_a_program_that_is_not_repeatable_is_reported(pg, tmp_path):
    path = counting_lesson(tmp_path, "drift.py", '''
        r.get(f"key{runs}")  # the same replies, another command every run
        ''', 2)
    with pytest.raises(ExploreError) as caught:
        await explore(pg, load_scenario(path))
    assert re.fullmatch(r"lesson: program A \(python drift\.py\) is not repeatable at command 2: after the "
                        r"same replies it sent GET key[2-9], where it sent GET key1 before", str(caught.value)), \
        str(caught.value)   # (its how-manieth run: after the takeovers of its replays)


async def test_explore_finds_none_in_the_lua_programs(pg):
    """Some orders need fewer commands (B's EVALSHA finds the script A loaded): the moves
    are the commands sent. After A's EVALSHA (NOSCRIPT): A's SCRIPT LOAD first, then B
    sends one EVALSHA (2 orders of A's last and B's one), or B's EVALSHA first, and both
    send three (6 orders of the last two each); and as many with B first: 16."""
    result = await explore(pg, load_scenario(bundled_dir() / "lua-script-python.toml"))
    assert result.total == result.runs == 16
    assert outcomes(result) == {'"6"': 16}


async def test_a_program_run_again_is_checked_to_its_end_without_the_server(pg, tmp_path):
    """The first order's programs are run once more, answered what they were answered
    then, without the server (explore/repeat_check.py): one that sends one command fewer
    at its very end (past the reply that differs among the orders, so no takeover of a
    replay sees it) is not repeatable, and the message says where, as the gate's own
    check does."""
    path = counting_lesson(tmp_path, "short.py", '''
        if runs == 1:
            r.set("again", "first")
        ''', 1)
    with pytest.raises(ExploreError) as caught:
        await explore(pg, load_scenario(path))
    assert str(caught.value).startswith("lesson: program A (python short.py) is not repeatable at command 2: "
                                        "after the same replies it sent nothing, where it sent SET again first "
                                        "before"), str(caught.value)
