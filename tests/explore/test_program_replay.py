"""Programs replayed from what they saw (explore/program_tree.py) and the reduction over
the commands they send (explore/program_moves.py), against an independent brute force
(program_brute.py: the test's own gate runs the real programs in every order of the
commands they send). The outcome sets must be equal, the schedules the explorer counts
must be the orders the brute force ran, and the programs must be started far fewer
times than there are schedules. On both real servers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import Explorer
from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario

from node_programs import ioredis_missing
from program_brute import every_order

redis = pytest.importorskip("redis")

HEAD = 'import os, redis\nr = redis.Redis.from_url(os.environ["REDIS_URL"])\n'
READ_MODIFY_WRITE = HEAD + 'v = int(r.get("counter"))\nr.set("counter", v + 1)\n'
INCR = HEAD + 'r.incr("counter")\n'
WATCH_RETRY = HEAD + '''
with r.pipeline() as pipe:
    while True:
        try:
            pipe.watch("counter")
            value = int(pipe.get("counter"))
            pipe.multi()
            pipe.set("counter", value + 1)
            pipe.execute()
            break
        except redis.WatchError:
            continue
'''
PIPELINE = HEAD + '''
pipe = r.pipeline(transaction={transaction})
pipe.incr("x")
pipe.incr("y")
pipe.execute()
'''
READER = HEAD + 'x, y = r.get("x"), r.get("y")\nr.set("seen", x + b"," + y)\n'
SCRIPT = HEAD + '''
double = r.register_script("local v = tonumber(redis.call('GET', KEYS[1])) redis.call('SET', KEYS[1], v * 2) return v")
double(keys=["counter"])
'''
TWO_CONNECTIONS = HEAD + '''
r2 = redis.Redis.from_url(os.environ["REDIS_URL"])
v = int(r.get("counter"))
r2.set("counter", v + 1)
r.incr("hits")
'''
DISJOINT_A = HEAD + 'v = int(r.get("a"))\nr.set("a", v + 1)\n'
DISJOINT_B = HEAD + 'v = int(r.get("b"))\nr.set("b", v + 1)\n'

CASES = {
    "read-modify-write": (READ_MODIFY_WRITE, READ_MODIFY_WRITE, ["SET counter 5"], ["counter"]),
    "watch-retry": (WATCH_RETRY, INCR, ["SET counter 5"], ["counter"]),
    "pipeline-transaction": (PIPELINE.format(transaction=True), READER, ["SET x 0", "SET y 0"], ["x", "y", "seen"]),
    "pipeline-no-transaction": (PIPELINE.format(transaction=False), READER, ["SET x 0", "SET y 0"],
                                ["x", "y", "seen"]),
    "register-script": (SCRIPT, SCRIPT, ["SET counter 3"], ["counter"]),
    "disjoint-keys": (DISJOINT_A, DISJOINT_B, ["SET a 1", "SET b 1"], ["a", "b"]),
    "two-connections": (TWO_CONNECTIONS, READ_MODIFY_WRITE, ["SET counter 5", "SET hits 0"], ["counter", "hits"]),
}


def lesson(folder: Path, a: str, b: str, setup: list[str]) -> Path:
    (folder / "a.py").write_text(textwrap.dedent(a))
    (folder / "b.py").write_text(textwrap.dedent(b))
    path = folder / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = [' + ", ".join(f'"{c}"' for c in setup) + ']\n'
                    '[programs]\nA = ["python", "a.py"]\nB = ["python", "b.py"]\n')
    return path


def explored(result, keys: list[str]) -> set[tuple[str, ...]]:
    return {tuple(c.snapshot.describe(k) for k in keys) for c in result.classes}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
async def test_outcomes_equal_the_real_programs_in_every_order(pg, tmp_path, case):
    a, b, setup, keys = CASES[case]
    scenario = load_scenario(lesson(tmp_path, a, b, setup))

    async def read(admin, codes):
        assert codes == {"A": 0, "B": 0}
        values = [await admin.get(k) for k in keys]
        return tuple('"' + v.decode() + '"' if v is not None else "(absent)" for v in values)

    brute = await every_order(pg, [s.split() for s in setup], {"A": ["python", "a.py"], "B": ["python", "b.py"]},
                              tmp_path, read)
    every = Explorer(pg, scenario, reduce=False, witnesses=False)
    result = await every.explore()
    assert explored(result, keys) == set(brute.values())
    assert result.total == result.runs == len(brute)           # every order, and only those
    assert every.trees.starts < len(brute) or len(brute) <= 6   # replayed: far fewer program starts
    reduced = Explorer(pg, scenario, witnesses=False)
    result = await reduced.explore()
    assert explored(result, keys) == set(brute.values())
    assert result.total == result.covered == len(brute)        # what the runs stand for: every order
    assert result.runs <= len(brute)
    if case == "disjoint-keys":
        assert result.runs == 1 and reduced.trees.starts == 4   # the first order, run twice for real


NODE_TWICE = """
const Redis = require("ioredis");
const redis = new Redis(process.env.REDIS_SOCKET);
async function twice() {
  for (let i = 0; i < 2; i++) {
    const value = Number(await redis.get("counter"));
    await redis.set("counter", value + 1);
  }
}
twice().then(() => redis.disconnect()).catch((error) => { console.error(error.message); process.exit(1); });
"""


@pytest.mark.slow
async def test_node_programs_equal_the_real_programs_in_every_order(pg, tmp_path, monkeypatch):
    """Two ioredis programs (GET, SET, twice each: 70 orders), replayed from their trees
    and reduced as Python programs are: the outcomes are the brute force's, the real
    programs started far fewer times than there are orders. Skipped where node or
    ioredis is missing (CI installs it: scenarios/package.json)."""
    missing = ioredis_missing()
    if missing:
        pytest.skip(missing)
    monkeypatch.setenv("NODE_PATH", str(bundled_dir() / "node_modules"))
    (tmp_path / "twice.js").write_text(NODE_TWICE)
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 5"]\n'
                    '[programs]\nA = ["node", "twice.js"]\nB = ["node", "twice.js"]\n')
    scenario = load_scenario(path)

    async def read(admin, codes):
        assert codes == {"A": 0, "B": 0}
        return ('"' + (await admin.get("counter")).decode() + '"',)

    brute = await every_order(pg, [["SET", "counter", "5"]], {"A": ["node", "twice.js"], "B": ["node", "twice.js"]},
                              tmp_path, read)
    assert len(brute) == 70 and set(brute.values()) == {('"7"',), ('"8"',), ('"9"',)}   # (9: no update lost)
    every = Explorer(pg, scenario, reduce=False, witnesses=False)
    result = await every.explore()
    assert explored(result, ["counter"]) == set(brute.values())
    assert result.total == result.runs == 70
    assert every.trees.starts < 35   # replayed: a Node program is bytes on a socket too
    reduced = Explorer(pg, scenario, witnesses=False)
    result = await reduced.explore()
    assert explored(result, ["counter"]) == set(brute.values())
    assert result.total == result.covered == 70 and result.runs < 70


async def test_disjoint_programs_run_one_schedule(pg, tmp_path):
    a = HEAD + 'for _ in range(3):\n    v = int(r.get("a"))\n    r.set("a", v + 1)\n'
    b = a.replace('"a"', '"b"')
    explorer = Explorer(pg, load_scenario(lesson(tmp_path, a, b, ["SET a 1", "SET b 1"])), witnesses=False)
    result = await explorer.explore()
    assert result.runs == 1 and result.total == result.covered == 924   # 12 commands, 6 each
    assert explored(result, ["a", "b"]) == {('"4"', '"4"')}
    assert explorer.trees.starts == 4 and explorer.trees.replays == 0


CRASHES = HEAD + 'import sys\nv = int(r.get("counter"))\nif v != 5:\n    sys.exit(3)\nr.set("counter", v + 10)\n'
CHARGE = '''
def charge(r, order):
    if r.set("paid:" + order, 1, nx=True):
        r.incr("charges")
        return "charged"
    return "duplicate"
'''


@pytest.mark.slow
async def test_a_crash_in_some_orders_is_their_outcome(pg, tmp_path):
    """A exits with status 3 where B's INCR went first: that order's outcome, and the
    search goes on (outcomes equal the real programs' in every order, exit status included)."""
    from playground.explore.report import render_text, to_json

    scenario = load_scenario(lesson(tmp_path, CRASHES, INCR, ["SET counter 5"]))

    async def read(admin, codes):
        return (f'"{(await admin.get("counter")).decode()}"', codes["A"])

    brute = await every_order(pg, [["SET", "counter", "5"]], {"A": ["python", "a.py"], "B": ["python", "b.py"]},
                              tmp_path, read)
    assert set(brute.values()) == {('"16"', 0), ('"15"', 0), ('"6"', 3)}
    for reduce in (True, False):
        result = await Explorer(pg, scenario, reduce=reduce).explore()
        assert {(c.snapshot.describe("counter"), dict((e[0], e[1]) for e in c.first_run.ended)["A"])
                for c in result.classes} == set(brute.values())
        assert result.total == len(brute)
    crashed, = [c for c in result.classes if c.snapshot.describe("counter") == '"6"']
    assert "A exited with status 3 after A1" in render_text(result)
    assert to_json(result)["classes"][result.classes.index(crashed)]["programs"]["A"] == {
        "status": 3, "returned": None, "moves": 1}


async def test_a_functions_return_value_is_part_of_its_outcome(pg, tmp_path):
    """Two charges of one order: whichever SET NX goes first charges, the other finds a
    duplicate; the return values tell the two outcomes apart where the keys do not."""
    from playground.explore.report import render_text, to_json

    (tmp_path / "pay.py").write_text(CHARGE)
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\n[programs]\nA = { function = "pay.py:charge", args = ["o1"] }\n'
                    'B = { function = "pay.py:charge", args = ["o1"] }\n')
    result = await Explorer(pg, load_scenario(path)).explore()
    assert {tuple((e[0], e[2]) for e in c.first_run.ended) for c in result.classes} == {
        (("A", "'charged'"), ("B", "'duplicate'")), (("A", "'duplicate'"), ("B", "'charged'"))}
    assert {c.snapshot.describe("charges") for c in result.classes} == {'"1"'}
    text = render_text(result)
    assert "A returned 'charged'" in text and "B returned 'charged'" in text
    assert {c["programs"]["A"]["returned"] for c in to_json(result)["classes"]} == {"'charged'", "'duplicate'"}


CHANGES_FROM_ITS_THIRD_START = HEAD + '''
with open("starts", "a+") as f:
    f.seek(0)
    started = len(f.read())
    f.write("x")
if started >= 2:
    r.ping()   # (not sent by its first two runs: the first order's, and that order again)
v = int(r.get("counter"))
r.set("counter", v + 1)
'''


async def test_a_real_program_that_takes_over_from_its_replay_must_send_what_it_sent(pg, tmp_path):
    """Where a replay runs out of its tree, the real program is started and answered what
    the replay was: one that sends something else on the way there (a PING its earlier
    runs did not send) is not repeatable, and the search says so rather than go on."""
    from playground.errors import ExploreError

    scenario = load_scenario(lesson(tmp_path, CHANGES_FROM_ITS_THIRD_START, READ_MODIFY_WRITE, ["SET counter 5"]))
    with pytest.raises(ExploreError) as caught:
        await Explorer(pg, scenario, witnesses=False).explore()
    assert "program A (python a.py) is not repeatable" in str(caught.value)
    assert "PING" in str(caught.value)


async def test_the_progress_of_a_program_lesson_plans_every_order_of_what_its_first_run_sent(pg, tmp_path):
    """A program's commands are known only as it sends them: from the first run on, the
    plan told is every order of the commands the programs sent there (two programs of
    GET SET GET SET: 70), and no schedule run is told past it (the bar stood at its end
    from its first move on when the plan was only what was known before any run)."""
    rmw_twice = HEAD + 'for _ in range(2):\n    v = int(r.get("counter"))\n    r.set("counter", v + 1)\n'
    explorer = Explorer(pg, load_scenario(lesson(tmp_path, rmw_twice, rmw_twice, ["SET counter 5"])),
                        witnesses=False)
    told: list[tuple[int, int, int, bool]] = []
    explorer.progress = lambda run, planned, total, exact: told.append((run, planned, total, exact))
    result = await explorer.explore()
    assert [t for t in told if t[0] >= 1] and all(t[1:] == (70, 70, False) for t in told if t[0] >= 1), told
    assert told[-1][0] == result.runs < 70
