"""Programs that wait for pushed data (explore/program_moves.py, one_schedule.py): a
subscriber in a `get_message(timeout=…)` loop, one in `for m in p.listen()`, a blocking
pop with a timeout. Each is a waiting client: the others move while it waits, and the
message delivered (the element popped) is an outcome, as is its own wait ending first
where it can. Against the independent brute force (program_brute.py: the real programs
in every order of the commands they send, the waits alike), on both real servers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import Explorer
from playground.scenario.loader import load_scenario

from program_brute import every_order

redis = pytest.importorskip("redis")

HEAD = 'import os, redis\nr = redis.Redis.from_url(os.environ["REDIS_URL"])\n'
GET_MESSAGE = HEAD + '''
p = r.pubsub()
p.subscribe("news")
got = None
for _ in range(30):   # 3 s in all: far past the 1 s its own wait is given
    m = p.get_message(timeout=0.1)
    if m and m["type"] == "message":
        got = m["data"]
        break
r.set("heard", got or b"nothing")
'''
LISTEN = HEAD + '''
p = r.pubsub()
p.subscribe("news")
for m in p.listen():
    if m["type"] == "message":
        r.set("heard", m["data"])
        break
'''
PUBLISH = HEAD + 'r.set("reached", r.publish("news", "hello"))\n'
BLPOP = HEAD + 'got = r.blpop("jobs", timeout=1)\nr.set("took", got[1] if got else b"timeout")\n'
PUSH = HEAD + 'r.rpush("jobs", "j1")\n'
SOCKET_TIMEOUT = '''import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"].split("?")[0], socket_timeout=2)
try:
    r.set("took", r.blpop("jobs", timeout=0)[1])
except redis.TimeoutError:
    redis.Redis.from_url(os.environ["REDIS_URL"]).set("took", "client timeout")
'''
FOREVER = HEAD + 'r.set("took", r.blpop("jobs", timeout=0)[1])\n'
LIMIT = 3   # the lessons' program time limit: how long a subscriber left alone is waited for
LIMITS = {"get-message-timeout": 20, "client-socket-timeout": 10}
"""Well past the subscriber's own 3 s: its time limit counts from its start, and before its 3 s loop runs
alone (the order where the message came first) come its start, its own wait tried for 1 s where others
could move, and the publisher's moves, all slower on a busy machine. With 6 s, a machine starved of CPU
stopped it at its limit before its loop ended (its outcome "absent", where it sets "nothing"), and a CI
run once found its first order "not repeatable" so; with 0.5 s, a busy machine decided whether the
message arrived. Where nothing goes wrong the limit is not waited for: its loop ends it first.

The client-side timeout (socket_timeout) is 2 s, and its program's limit 10 s: A's BLPOP waits at
the gate (the brute force's, the explorer's) while B starts and pushes, and with 0.5 s, a machine
starved of CPU (three busy loops, the test at nice 15) let it run out there in every order, B's push
first included: no order where A took the element, and the test's premise failed."""

CASES = {
    "get-message-timeout": (GET_MESSAGE, PUBLISH, ["heard", "reached"]),
    "listen": (LISTEN, PUBLISH, ["heard", "reached"]),
    "blocking-pop-timeout": (BLPOP, PUSH, ["took", "jobs"]),
    "client-socket-timeout": (SOCKET_TIMEOUT, PUSH, ["took", "jobs"]),   # BLPOP jobs 0, A's own 2 s
}


def lesson(folder: Path, a: str, b: str, limit: float = LIMIT) -> Path:
    (folder / "a.py").write_text(textwrap.dedent(a))
    (folder / "b.py").write_text(textwrap.dedent(b))
    path = folder / "lesson.toml"
    path.write_text(f'title = "t"\nlesson = "l"\nprogram_time_limit = {limit}\n'
                    '[programs]\nA = ["python", "a.py"]\nB = ["python", "b.py"]\n')
    return path


def explored(result, keys: list[str]) -> set[tuple]:
    return {(*(c.snapshot.describe(k) for k in keys), tuple((e[0], e[1]) for e in c.first_run.ended))
            for c in result.classes}


def shown(value) -> str:
    if value is None:
        return "(absent)"
    if isinstance(value, list):
        return "[" + ", ".join(f'"{v.decode()}"' for v in value) + "]"
    return f'"{value.decode()}"'


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
async def test_a_waiting_programs_outcomes_equal_the_real_programs_in_every_order(pg, tmp_path, case):
    a, b, keys = CASES[case]
    limit = LIMITS.get(case, LIMIT)
    scenario = load_scenario(lesson(tmp_path, a, b, limit))

    async def read(admin, codes):
        values = []
        for k in keys:
            kind = (await admin.type(k)).decode()
            values.append(shown(await admin.lrange(k, 0, -1) if kind == "list" else await admin.get(k)))
        return (*values, tuple(codes.items()))

    brute = await every_order(pg, [], {"A": ["python", "a.py"], "B": ["python", "b.py"]}, tmp_path, read,
                              alone_limit=limit)
    truth = set(brute.values())
    # the message arrives (the element is popped) in some order, and not in another
    assert len({o[0] for o in truth}) >= 2, truth
    for reduce in (False, True):
        result = await Explorer(pg, scenario, reduce=reduce, witnesses=False).explore()
        assert explored(result, keys) == truth, reduce


@pytest.mark.slow
async def test_the_report_says_how_a_subscribers_own_wait_was_tried(pg, tmp_path):
    from playground.explore.report import render_text, to_json

    scenario = load_scenario(lesson(tmp_path, GET_MESSAGE, PUBLISH, LIMITS["get-message-timeout"]))
    result = await Explorer(pg, scenario, witnesses=False).explore()   # (its 3 s loop well within its limit)
    assert '"hello"' in {c.snapshot.describe("heard") for c in result.classes}   # the message arrives
    assert result.listened == ["A"]
    assert "its own wait was also let end first, given 1 s" in render_text(result)
    assert to_json(result)["listened"] == ["A"] and to_json(result)["forever"] == []


@pytest.mark.slow
async def test_a_subscriber_with_a_timeout_of_its_own_ends_by_itself_where_no_message_comes(pg, tmp_path):
    """Where the message went before it subscribed, nobody is left to send one, and its
    own wait ends it: it sets "nothing" and exits 0. It is not stopped as a program that
    would wait for ever, also in the order where its wait was let end for 1 s only, while
    the publisher could still move (its last move), and did not."""
    scenario = load_scenario(lesson(tmp_path, GET_MESSAGE, PUBLISH, LIMITS["get-message-timeout"]))
    result = await Explorer(pg, scenario, reduce=False, witnesses=False).explore()
    assert {c.snapshot.describe("heard") for c in result.classes} == {'"hello"', '"nothing"'}
    assert {(e[0], e[1]) for c in result.classes for e in c.first_run.ended} == {("A", 0), ("B", 0)}


async def test_the_report_says_a_wait_with_no_timeout_was_not_let_end(pg, tmp_path):
    """`for m in p.listen()` waits with no timeout of its own (its threads say so): the
    report does not claim its wait was let end first, and no second is spent trying."""
    from playground.explore.report import render_text, to_json

    result = await Explorer(pg, load_scenario(lesson(tmp_path, LISTEN, PUBLISH)), witnesses=False).explore()
    assert result.listened == ["A"] and result.forever == ["A"] and to_json(result)["forever"] == ["A"]
    text = render_text(result)
    assert "its wait has no timeout of its own, so nothing but a message could end it" in text
    assert "let end first" not in text




async def test_a_wait_for_ever_is_no_untried_order(pg, tmp_path):
    """A's BLPOP jobs 0 with no socket timeout of A's own waits for ever where B's RPUSH
    has not run (its threads say so: gate/process_rest.py): there is no other order to
    try, so none is said to be left out, and nobody waits out a time limit for it."""
    from playground.explore.report import render_text

    scenario = load_scenario(lesson(tmp_path, FOREVER, PUSH))
    result = await Explorer(pg, scenario, witnesses=False).explore()
    assert result.untimed == {}
    assert "Not explored" not in render_text(result)
    assert {c.snapshot.describe("took") for c in result.classes} == {'"j1"'}


async def test_a_wait_that_cannot_be_seen_is_said_not_explored(pg, tmp_path, monkeypatch):
    """Where the program's threads cannot be seen (no /proc), A's BLPOP jobs 0 blocked
    where B's RPUSH has not run: a socket timeout of A's own could end it first (took =
    "client timeout"), which the search cannot know of; it claims no more than it ran,
    in one line."""
    from playground.explore.report import render_text, to_json
    from playground.gate import process_rest

    monkeypatch.setattr(process_rest, "readable", lambda pid: False)
    result = await Explorer(pg, load_scenario(lesson(tmp_path, SOCKET_TIMEOUT, PUSH)), witnesses=False).explore()
    assert result.untimed == {"A": "BLPOP jobs 0"}
    assert ("Not explored: A's BLPOP jobs 0 blocked with no timeout of its own; a client-side socket timeout in A "
            "ending that wait first is not tried.") in render_text(result)
    assert to_json(result)["untimed"] == {"A": "BLPOP jobs 0"}
