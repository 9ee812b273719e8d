"""Programs of one identity share one tree (explore/program_tree.py): a lesson whose A and
B run the same file is one function of its replies (nothing tells it which client it
is), run for real once per reply history of either. That sharing is held against the
programs themselves: two that do otherwise after the same replies end it, and the search
starts again with a tree each. Either way the outcomes must be the independent brute
force's (program_brute.py: the test's own gate, every order, the real programs). On both
real servers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import Explorer
from playground.scenario.loader import load_scenario

from program_brute import every_order

pytest.importorskip("redis")


HEAD = 'import os, redis\nr = redis.Redis.from_url(os.environ["REDIS_URL"])\n'
TWICE = HEAD + '''
for _ in range(2):
    v = int(r.get("counter"))
    r.set("counter", v + 1)
'''
FAILS_FIRST = HEAD + '''
v = int(r.get("counter"))
r.set("counter", v + 1)
raise SystemExit(3 if v == 5 else 0)
'''
NAMED = HEAD + '''
me = "B" if os.environ["REDIS_SOCKET"].endswith("B.sock") else "A"   # (it cannot tell: never B)
v = int(r.get("counter"))
r.set("counter", v + 1)
if me == "B":
    r.set("b_saw", v)
'''


def lesson(folder: Path, program: str) -> Path:
    (folder / "p.py").write_text(textwrap.dedent(program))
    path = folder / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 5", "SET other 10"]\n'
                    '[programs]\nA = ["python", "p.py"]\nB = ["python", "p.py"]\n')
    return path


async def outcomes_of(pg, folder: Path, keys: list[str], **kwargs):
    """The outcomes of the lesson in `folder` explored (the keys' values, A's exit status,
    B's), and its explorer."""
    explorer = Explorer(pg, load_scenario(folder / "lesson.toml"), witnesses=False, **kwargs)
    result = await explorer.explore()
    return {(tuple(c.snapshot.describe(k) for k in keys),
             *(dict((e[0], e[1]) for e in c.first_run.ended)[n] for n in "AB")) for c in result.classes}, \
        result, explorer


@pytest.mark.slow
@pytest.mark.parametrize("case", ["counter-twice", "a-crash-where-it-goes-first"])
async def test_programs_of_one_file_share_a_tree_and_their_outcomes_are_every_orders(pg, tmp_path, case):
    """A and B of one file: one tree, each reply history run for real once by whichever
    reached it; the outcomes are still those of the real programs in every order."""
    lesson(tmp_path, TWICE if case == "counter-twice" else FAILS_FIRST)

    async def read(admin, codes):
        return (('"' + (await admin.get("counter")).decode() + '"',), codes["A"], codes["B"])

    brute = await every_order(pg, [["SET", "counter", "5"], ["SET", "other", "10"]],
                              {"A": ["python", "p.py"], "B": ["python", "p.py"]}, tmp_path, read)
    for reduce in (False, True):
        found, result, explorer = await outcomes_of(pg, tmp_path, ["counter"], reduce=reduce)
        assert found == set(brute.values())
        assert result.covered == len(brute)
        assert explorer.trees.share and list(explorer.trees.trees) == ["A"]   # (one tree: A's, B's too)
    alone = Explorer(pg, load_scenario(tmp_path / "lesson.toml"), witnesses=False)
    alone.trees.share = False   # (a tree each: as two files would be)
    await alone.explore()
    assert explorer.trees.starts < alone.trees.starts


async def test_a_program_cannot_tell_which_client_it_is_in_an_exploration(pg, tmp_path):
    """The explorer's sockets are not named after their clients (Gate.anonymous): a program
    that looks for its client's letter in its socket's path never finds B's, so it does as
    A in every order, whichever client runs it (and sharing A's tree is sound)."""
    lesson(tmp_path, NAMED)
    found, result, explorer = await outcomes_of(pg, tmp_path, ["counter", "b_saw"])
    assert found == {(('"6"', "(absent)"), 0, 0), (('"7"', "(absent)"), 0, 0)}
    assert explorer.trees.share


async def test_a_search_whose_programs_disagree_starts_again_with_a_tree_each(pg, tmp_path):
    """Sharing ended in the search's first schedule (as when a program sharing a tree sent
    what the other did not after the same replies: its mismatch): the search starts again,
    a tree each, and its outcomes and figures are one search's, not two searches' summed."""
    lesson(tmp_path, TWICE)
    expected, first, _ = await outcomes_of(pg, tmp_path, ["counter"])
    explorer = Explorer(pg, load_scenario(tmp_path / "lesson.toml"), witnesses=False)
    explorer.trees.mismatch = "A B"
    result = await explorer.explore()
    assert {(c.snapshot.describe("counter"),) for c in result.classes} == {e[0] for e in expected}
    assert (result.runs, result.covered) == (first.runs, first.covered)
    assert not explorer.trees.share and sorted(explorer.trees.trees) == ["A", "B"]


def test_programs_that_disagree_after_the_same_replies_end_the_sharing():
    """The tree's own check: a real run that sends after some replies what another program
    sharing the tree did not send after them; the same program twice is not this (that is
    its own check, scenario/programs/lesson.py's note_sent)."""
    from types import SimpleNamespace

    from playground.explore.program_tree import ProgramTrees, Unshared

    def held(argv: bytes):
        client = SimpleNamespace(number=1, password=None, pushed=False)
        return SimpleNamespace(argv=argv.split(), before=(), raw=argv, client=client)
    for share, second, raises in ((True, "B", True), (True, "A", False), (False, "B", False)):
        trees = ProgramTrees(share=share)
        for name in ("A", "B"):
            assert trees.program(name, ["python", "p.py"], "/l", None, 5.0, shared=True) is None   # (no tree yet)
        trees.begin()
        trees.moved("A", [], held(b"GET counter"), None)
        trees.moved(second, [], held(b"GET other"), None)
        if raises:
            with pytest.raises(Unshared):
                trees.check()
        else:
            trees.check()


def test_a_functions_result_file_is_its_sockets_own(tmp_path):
    """The explorer runs a function program again (explore/repeat_check.py) while the
    search runs it too: each run writes its return value beside its own socket."""
    from playground.gate.programs import CALL, Program

    runs = [Program("A", ["python", "-m", CALL, "pay.py:charge"], tmp_path, f"unix://{tmp_path}/{sock}", 5.0)
            for sock in ("gate-A.sock", "again-A.sock")]
    paths = [run.result_path for run in runs]
    assert None not in paths and paths[0] != paths[1]
    assert {p.parent for p in paths if p is not None} == {tmp_path}


@pytest.mark.parametrize("setup", ["SET other 10", "SET other 10 EX 100"])
async def test_a_prefixs_footprints_kept_from_a_run_are_what_they_would_be_worked_out(pg, tmp_path, setup):
    """The reduction asks at each move for the footprints of the run so far: kept from a
    whole run's, client by client (a client's own commands decide them), they must be
    what working them out for the prefix gives; and none are kept so where a line gives
    a key a time to live (which keys may run out depends on every step's time)."""
    from playground.explore.program_moves import _footprints, _footprints_of

    path = lesson(tmp_path, TWICE)
    path.write_text(path.read_text().replace('"SET other 10"', f'"{setup}"'))
    explorer = Explorer(pg, load_scenario(path), witnesses=False)
    result = await explorer.explore()
    runs = [c.first_run for c in result.classes]
    kept = [k for k in explorer.footprint_memo if k[0] == "prefix"]
    assert bool(kept) is ("EX" not in setup)
    for run in runs:
        for k in range(len(run.schedule) + 1):
            schedule, commands = run.schedule[:k], run.commands[:k]
            worked_out, _ = await _footprints_of(explorer, schedule, commands)
            assert await _footprints(explorer, None, schedule, commands) == worked_out
