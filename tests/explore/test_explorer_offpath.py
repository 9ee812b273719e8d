"""The explorer off the beaten path (issue 37), each finding checked against brute force:
every interleaving run plainly (`reduce=False`, as `--exhaustive`), each from a fresh
state, on the real servers. A reduction (or a report) that trusted what the brute force
found wrong would fail here: the outcome sets, what each covers, and the serial orders
each is labelled with must be the same."""

from __future__ import annotations

import json

import pytest

from playground.explore.explorer import ExploreError, Explorer, explore
from playground.explore.free_play import typed_scenario
from playground.explore.report import render_json, render_text
from explore_lessons import write
from servers import shared


def seen(result) -> dict:
    """Each outcome (deadlock, what each client saw, every key as shown) -> (schedules it
    covers, the serial orders that give it)."""
    return {(c.deadlock, c.first_run.replies, tuple((k, c.snapshot.describe(k)) for k in result.keys)):
            (c.count, sorted(c.serial)) for c in result.classes}


async def as_brute_force(pg, case, by: str = "both", **kwargs):
    """The reduced exploration and the brute force agree; the brute force's result."""
    reduced = await explore(pg, case, by=by, **kwargs)
    every = await explore(pg, case, by=by, reduce=False, **kwargs)
    assert not every.reduced and not every.sampled and reduced.serial_known and every.serial_known
    assert seen(reduced) == seen(every), case.id
    return every


def saw(cls, client: str) -> tuple[str, ...]:
    return dict(cls.first_run.replies)[client]


# -- commands whose key specs under-declare their writes -----------------------------------

@pytest.mark.asyncio
async def test_xreadgroup_moves_the_group_so_two_consumers_race(pg, tmp_path):
    case = write(tmp_path, "xreadgroup", '''
title = "t"
lesson = "x"
setup = ["XADD s 1-1 f v", "XGROUP CREATE s g 0"]
[[steps]]
client = "A"
command = "XREADGROUP GROUP g a COUNT 1 STREAMS s >"
[[steps]]
client = "B"
command = "XREADGROUP GROUP g b COUNT 1 STREAMS s >"
''')
    every = await as_brute_force(pg, case)
    got = {saw(c, "A")[0] == "(nil)": c.serial for c in every.classes}
    assert got == {False: [("A", "B")], True: [("B", "A")]}   # whoever reads first gets the entry


# -- commands on connections -----------------------------------------------------------------

@pytest.mark.asyncio
async def test_client_kill_depends_on_every_step_of_the_other_client(pg):
    for other in ("PING", "ECHO hi"):
        case = typed_scenario([("A", "CLIENT KILL USER default"), ("B", other)])
        every = await as_brute_force(pg, case)
        assert len(every.classes) == 2, other      # B answered before it was killed, or lost its connection
        assert sorted(c.count for c in every.classes) == [1, 1]


SPIN = '''
script_time_limit_ms = 100
[scripts]
spin = """
local t = redis.call('TIME')
local stop = tonumber(t[1]) * 1000000 + tonumber(t[2]) + 3000000
repeat local n = redis.call('TIME') until tonumber(n[1]) * 1000000 + tonumber(n[2]) > stop
return 1
"""
'''


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_script_holds_the_server_so_it_depends_on_every_step_of_the_other_client(pg, tmp_path):
    """B's PING while A's 3 s script runs gets BUSY (after the scenario's 0.1 s), before it PONG."""
    from explore_lessons import LATE_PRODUCER

    steps = LATE_PRODUCER.replace("BLPOP q 1", "EVAL $spin 0").replace("RPUSH q job", "PING")
    busy = write(tmp_path, "busy", steps.replace('lesson = "x"\n', 'lesson = "x"\n' + SPIN, 1))
    assert busy.script_time_limit_ms == 100 and "spin" in busy.scripts
    every = await as_brute_force(pg, busy, by="replies", witnesses=False)
    assert {saw(c, "B")[0].split()[0] for c in every.classes} == {"PONG", "(error)"}


# -- eviction under maxmemory ------------------------------------------------------------------

@pytest.mark.asyncio
async def test_under_maxmemory_a_write_depends_on_every_write_before_it(pg):
    """The second 2 MB string no longer fits: which one is refused (OOM) depends on the
    order of two writes to different keys. (The limit is 1 MB above what the server uses
    after one exploration: its buffers grow by some 300 kB in the first. The fresh start's
    FLUSHALL frees synchronously here: Valkey frees in the background by default, and a
    string not freed yet would count against the next schedule.)"""
    case = typed_scenario([("A", "SETRANGE a 2000000 x"), ("B", "SETRANGE b 2000000 x")])
    lazy, = await pg.admin.run([[b"CONFIG", b"GET", b"lazyfree-lazy-user-flush"]])
    await pg.admin.run([[b"CONFIG", b"SET", b"lazyfree-lazy-user-flush", b"no"]])
    await explore(pg, case, witnesses=False)
    await pg.reset()
    info, = await pg.admin.run([[b"INFO", b"memory"]])
    used = int(next(line.split(b":")[1] for line in bytes(info).split(b"\r\n") if line.startswith(b"used_memory:")))
    await pg.admin.run([[b"CONFIG", b"SET", b"maxmemory", str(used + 1_000_000).encode()]])
    try:
        every = await as_brute_force(pg, case, by="state")
        assert {(c.snapshot.describe("a") == "(absent)", c.snapshot.describe("b") == "(absent)")
                for c in every.classes} == {(False, True), (True, False)}
    finally:
        await pg.admin.run([[b"CONFIG", b"SET", b"maxmemory", b"0"],
                            [b"CONFIG", b"SET", b"lazyfree-lazy-user-flush", bytes(list(lazy)[-1])]])


@pytest.mark.slow
@pytest.mark.fresh_server  # (the peak of an earlier test must not count)
@pytest.mark.asyncio
async def test_a_write_refused_for_memory_in_one_order_only_is_run_in_both(pg):
    """The private server's own limit (maxmemory 64mb, noeviction: server/sandbox.py) is far
    from what a fresh server uses, so A's and B's steps on different keys count as
    independent; once the memory has come near the limit, the explorer runs every order:
    B's small SET is refused (OOM) after A's 70 MB string, not before it, as the brute
    force finds. (A 70 MB string is past the private server's proto-max-bulk-len, which
    keeps one write within the memory cap, and of its bounds on a client's buffers, which
    close a connection that reads it: this server lets it through, as a user's may.)"""
    await pg.admin.run([[b"CONFIG", b"SET", b"proto-max-bulk-len", b"128mb"],
                        [b"CONFIG", b"SET", b"client-output-buffer-limit", b"normal 0 0 0"],
                        [b"CONFIG", b"SET", b"maxmemory-clients", b"0"]])
    case = typed_scenario([("A", "SETRANGE a 70000000 x"), ("B", "SET b x")])
    first = await explore(pg, case, by="state")
    assert first.reduced and first.total == 2 and len(first.classes) == 2
    every = await explore(pg, case, by="state", reduce=False)
    assert seen(first) == seen(every)
    assert {(c.snapshot.describe("a") == "(absent)", c.snapshot.describe("b") == "(absent)")
            for c in every.classes} == {(False, True), (False, False)}


# -- randomness the server declares --------------------------------------------------------------

@pytest.mark.asyncio
async def test_a_random_step_is_shown_and_never_ends_the_same_by_chance(pg, tmp_path):
    one = typed_scenario([("A", "SADD s m"), ("B", "SPOP s")])
    result = await explore(pg, one, by="both")
    assert result.random == ["B1 SPOP s"]
    text = render_text(result)
    assert "every schedule ends the same" not in text.lower() and "B1 SPOP s may give another result" in text
    assert json.loads(render_json(result))["random"] == ["B1 SPOP s"]
    cases = {
        # (steps, by): the steps reported random
        ((("A", "SRANDMEMBER s"), ("B", "SADD s a")), "state"): [],     # its reply reaches no key
        ((("A", "SRANDMEMBER s"), ("B", "SADD s a")), "replies"): ["A1 SRANDMEMBER s"],
        ((("A", "XADD s * f v"), ("B", "XLEN s")), "both"): ["A1 XADD s * f v"],
        ((("A", "XADD s * f v"), ("B", "XLEN s")), "state"): [],        # its id is shown as *
        ((("A", "XADD s 5-* f v"), ("B", "XADD s 5-* f w")), "both"): [],  # 5-0, 5-1 in order
        ((("A", "XADD s 1-1 f v"), ("B", "XLEN s")), "both"): [],       # an id of its own: no chance
        ((("A", "RANDOMKEY"), ("B", "TIME")), "replies"): ["A1 RANDOMKEY", "B1 TIME"],
        ((("A", "HRANDFIELD h"), ("B", "HSET h f v")), "state"): [],
    }
    for (steps, by), random in cases.items():
        result = await explore(pg, typed_scenario(list(steps)), by=by, witnesses=False)
        assert result.random == random, (steps, by)
        assert ("every schedule ends the same" in render_text(result).lower()) <= (not random)
    saved = write(tmp_path, "saved", '''
title = "t"
lesson = "x"
setup = ["SADD s a b c"]
[[steps]]
client = "A"
command = "SRANDMEMBER s"
save = "m"
[[steps]]
client = "A"
command = "SET picked ${m}"
[[steps]]
client = "B"
command = "SCARD s"
''')
    assert (await explore(pg, saved, by="state", witnesses=False)).random == ["A1 SRANDMEMBER s"]


# -- a timed block at a client's last step ---------------------------------------------------------

@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_timed_block_at_the_last_step_may_time_out_first(pg, tmp_path):
    from explore_lessons import LATE_PRODUCER

    no_wait = LATE_PRODUCER.replace('[[steps]]\nclient = "A"\nwait = true\n', "")
    assert "wait" not in no_wait
    case = write(tmp_path, "late", no_wait)
    every = await as_brute_force(pg, case)
    assert {(saw(c, "A")[-1], c.snapshot.describe("q")) for c in every.classes} == \
        {("(nil)", '["job"]'), ('1) "q" 2) "job"', "(absent)")}
    assert every.programs["A"] == ["BLPOP q 1", "(reply arrives)"]


# -- CLIENT REPLY OFF / SKIP ----------------------------------------------------------------------

@pytest.mark.asyncio
async def test_client_reply_skip_is_refused_in_one_line_not_reported_as_a_stopped_server(pg):
    for mode in ("SKIP", "OFF"):
        case = typed_scenario([("A", f"CLIENT REPLY {mode}"), ("A", "SET k a"), ("B", "SET k b")])
        with pytest.raises(ExploreError, match=rf"step 1 \(CLIENT REPLY {mode}\) asks the server for no reply") \
                as caught:
            Explorer(pg, case)
        assert "\n" not in str(caught.value) and "stopped" not in str(caught.value)
    result = await explore(pg, typed_scenario([("A", "CLIENT REPLY ON"), ("B", "SET k b")]), witnesses=False)
    assert result.runs >= 1


# -- a sample runs the serial orders -------------------------------------------------------------

@pytest.mark.asyncio
async def test_a_sample_always_runs_the_serial_orders_and_says_simplest_in_the_sample(pg):
    steps = [("A", "GET n"), ("A", "INCR n"), ("A", "GET n"), ("B", "GET n"), ("B", "SET n 7"), ("B", "GET n")]
    case = typed_scenario(steps)
    every = await explore(pg, case, reduce=False)
    labels = {c.snapshot.signature: sorted(c.serial) for c in every.classes if c.serial}
    for seed in range(3):
        sampled = await explore(pg, case, reduce=False, limit=2, seed=seed)
        assert sampled.sampled and sampled.serial_known
        assert {c.snapshot.signature: sorted(c.serial) for c in sampled.classes if c.serial} == labels
        text = render_text(sampled)
        assert "simplest schedule in the sample" in text and "and the serial orders" in text


# -- what outcomes compare: state, replies or both -------------------------------------------------

RATE_LIMIT = '''
title = "a rate limiter that lets two requests through"
lesson = "x"
{by}
[[steps]]
client = "A"
command = "GET slot"
save = "s"
[[steps]]
client = "A"
command = "SET slot taken"
when = "s == nil"
[[steps]]
client = "B"
command = "GET slot"
save = "s"
[[steps]]
client = "B"
command = "SET slot taken"
when = "s == nil"
'''


@pytest.mark.asyncio
async def test_a_race_only_in_the_replies_shows_by_both_and_by_the_lessons_own_field(pg, tmp_path):
    plain = write(tmp_path, "plain", RATE_LIMIT.format(by=""))
    by_state = await explore(pg, plain)
    assert len(by_state.classes) == 1                       # slot = "taken" whatever the order
    both = await as_brute_force(pg, plain, by="both")
    twice = [c for c in both.classes if saw(c, "A")[-1] == saw(c, "B")[-1] == "OK"]
    assert twice and not any(c.serial for c in twice)       # both let through: no serial order does that
    assert "every schedule ends the same" not in render_text(both).lower()
    assert "A saw:" in render_text(both) and 'slot = "taken"' in render_text(both)
    own = write(tmp_path, "own", RATE_LIMIT.format(by='explore_by = "both"'))
    assert own.explore_by == "both"
    result = await explore(pg, own)
    assert result.by == "both" and seen(result) == seen(await explore(pg, plain, by="both"))
    assert (await explore(pg, own, by="state")).by == "state"   # --by wins
    from playground.scenario.writer import scenario_toml

    again = write(tmp_path, "again", scenario_toml(own))       # a lesson saved from the app keeps it
    assert again.explore_by == "both"


@pytest.mark.asyncio
async def test_by_replies_never_says_that_every_schedule_ends_the_same_over_different_states(pg):
    case = typed_scenario([("A", "SET k a"), ("A", "SET j a"), ("B", "SET k b"), ("B", "SET j b")])
    replies = await explore(pg, case, by="replies")
    assert len(replies.classes) == 1                        # OK, OK for each whatever the order
    text = render_text(replies).lower()
    assert "every schedule ends the same" not in text and "the final keys are not compared" in text
    both = await as_brute_force(pg, case, by="both")
    assert len(both.classes) == 4                           # k and j: a or b each


def test_explore_by_is_one_of_three_words(tmp_path):
    from playground.scenario.loader import ScenarioError

    with pytest.raises(ScenarioError, match="explore_by: .*one of state, replies, both"):
        write(tmp_path, "bad", RATE_LIMIT.format(by='explore_by = "keys"'))


async def test_s_in_the_app_shows_a_race_only_in_the_replies(server_binary, tmp_path):
    from textual.widgets import OptionList

    from playground.tui.app import make_app
    from playground.tui.dialogs.explore_screen import ExploreScreen
    from pilot import wait_until
    from pilot import opened

    lesson = write(tmp_path, "rate", RATE_LIMIT.format(by='explore_by = "both"'))
    app = make_app(server=shared(server_binary), open_scenario=lesson)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ExploreScreen), timeout=30)
        assert app.screen.result.by == "both"
        options = app.screen.query_one(OptionList)
        assert options.option_count == len(app.screen.result.classes) > 1
        assert "A saw:" in str(options.get_option_at_index(0).prompt)
