"""The explorer's claim, checked against brute force: with reduction it finds exactly the
outcomes that running every interleaving, each on a fresh state, finds, on the real
servers. Each catalogue correction has a program here whose outcomes differ by order
and that a reduction trusting the server's metadata alone (or COMMAND GETKEYS, as the
explorer once did) would merge."""

from __future__ import annotations

import json

import pytest

from playground.explore.explorer import explore
from playground.explore.free_play import typed_scenario
from playground.scenario.loader import load_scenario
from explore_lessons import LATE_PRODUCER, write


def program(setup: list[str], steps: list[tuple[str, str]], extra: dict | None = None) -> str:
    """A scenario file: the setup, then (client, command) steps; `extra`: step index ->
    more TOML lines for that step."""
    quoted = ", ".join(f"'{c}'" for c in setup)
    out = [f'title = "t"\nlesson = "x"\nsetup = [{quoted}]']
    for i, (client, command) in enumerate(steps):
        out.append(f'[[steps]]\nclient = "{client}"\ncommand = \'{command}\'\n' + (extra or {}).get(i, ""))
    return "\n".join(out) + "\n"


def outcomes(result) -> dict:
    return {(c.deadlock, tuple((k, c.snapshot.describe(k)) for k in result.keys)): c.count
            for c in result.classes}


async def same_as_brute_force(pg, case) -> set:
    """Reduced and unreduced explorations agree outcome by outcome and in the schedules
    each covers; the outcomes (as the values of the keys)."""
    reduced = await explore(pg, case)
    every = await explore(pg, case, reduce=False)
    assert every.runs == every.total
    assert outcomes(reduced) == outcomes(every), case.id
    return {tuple((k, c.snapshot.describe(k)) for k in every.keys) for c in every.classes}


SORT_BY = program(["RPUSH ids 1 2", "SET w_1 10", "SET w_2 20"],
                  [("A", "SORT ids BY w_* STORE out"), ("B", "SET w_1 30")])
SORT_GET = program(["RPUSH ids 1", "SET o_1 old"],
                   [("A", "SORT_RO ids GET o_*"), ("B", "SET o_1 new")], {0: 'save = "got"'}) + \
    '[[steps]]\nclient = "A"\ncommand = "SET seen ${got}"\n'
PFCOUNT = program(["PFADD h a b c"],
                  [("A", "PFCOUNT h"), ("B", "BITCOUNT h"), ("B", "SET bits ${n}")], {1: 'save = "n"'})
TTL_AND_SLEEP = program([], [("A", "SET k v PX 500"), ("B", "SET x 1"), ("A", "PERSIST k")], {1: "sleep = 1"})


@pytest.mark.asyncio
async def test_sort_by_and_get_read_the_keys_their_patterns_name(pg, tmp_path):
    found = await same_as_brute_force(pg, write(tmp_path, "sort-by", SORT_BY))
    assert {dict(o)["out"] for o in found} == {'["1", "2"]', '["2", "1"]'}
    found = await same_as_brute_force(pg, write(tmp_path, "sort-get", SORT_GET))
    assert {dict(o)["seen"] for o in found} == {'"old"', '"new"'}


@pytest.mark.asyncio
async def test_pfcount_writes_the_cached_cardinality(pg, tmp_path):
    found = await same_as_brute_force(pg, write(tmp_path, "pfcount", PFCOUNT))
    assert len({dict(o)["bits"] for o in found}) == 2   # B counted the bits before or after A's PFCOUNT


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_step_that_lets_time_pass_is_ordered_against_a_ttl(pg, tmp_path):
    found = await same_as_brute_force(pg, write(tmp_path, "ttl", TTL_AND_SLEEP))
    assert {dict(o)["k"] for o in found} == {'"v"', "(absent)"}   # A1 B1 A2: it expired before PERSIST


@pytest.mark.asyncio
async def test_small_programs_reduced_as_brute_force(pg):
    """Reduction still leaves out schedules where the catalogue proves independence."""
    cases = [
        typed_scenario([("A", "SET x 1"), ("B", "SET y 1"), ("A", "INCR y"), ("B", "INCR x"),
                        ("A", "GET y"), ("B", "MSET x 5 y 5")]),
        typed_scenario([("A", "SORT ids STORE out"), ("B", "SET w_1 30"), ("A", "LPUSH ids 3"), ("B", "KEYS *")]),
        typed_scenario([("A", "ZUNIONSTORE d 2 a b"), ("B", "ZADD a 1 m"), ("B", "ZADD c 2 m"),
                        ("A", "XADD s 1-1 f v"), ("B", "XREAD STREAMS s 0")]),
        typed_scenario([("A", "EVAL \"return redis.call('INCR', 'n')\" 0"), ("B", "INCR n"), ("B", "PING")]),
    ]
    fewer = 0
    for case in cases:
        reduced = await explore(pg, case)
        await same_as_brute_force(pg, case)
        fewer += reduced.runs < reduced.total
    assert fewer >= 3


# -- every schedule from a fresh state, outcomes compared exactly --------------------------

FUNCTION_THEN_CALL = '''
title = "a function loaded in one schedule is not there in the next"
lesson = "x"
[[steps]]
client = "A"
command = ["FUNCTION", "LOAD", "#!lua name=lib\\nredis.register_function('f', function(keys) return redis.call('SET', keys[1], '1') end)"]
[[steps]]
client = "B"
command = "FCALL f 1 done"
'''  # noqa: E501 (a TOML string is one line)


@pytest.mark.asyncio
async def test_loaded_functions_do_not_leak_into_the_next_schedule(pg, tmp_path):
    found = await same_as_brute_force(pg, write(tmp_path, "function", FUNCTION_THEN_CALL))
    assert {dict(o)["done"] for o in found} == {'"1"', "(absent)"}   # B first: no such function yet


@pytest.mark.asyncio
async def test_configuration_is_back_to_its_start_values_for_each_schedule_and_after(pg):
    """A schedule that changes CONFIG (a learner may not on the private server, the user of
    a --url server may: here the playground's own connection stands in for one) leaves
    no trace in the next schedule or after the exploration."""
    from playground.explore.explorer import Explorer

    class Changing(Explorer):
        async def run_schedule(self, planned):
            run = await super().run_schedule(planned)
            await self.pg.admin.run([[b"CONFIG", b"SET", b"maxmemory", b"1"]])
            return run

    case = typed_scenario([("A", "CONFIG GET maxmemory"), ("B", "SET k v")])
    start, = await pg.admin.run([[b"CONFIG", b"GET", b"maxmemory"]])   # the private server's own limit
    assert list(start)[1] not in (b"0", b"1")
    result = await Changing(pg, case, reduce=False).explore()
    assert result.runs == 2 and {c.snapshot.describe("k") for c in result.classes} == {'"v"'}  # never OOM
    reply, = await pg.admin.run([[b"CONFIG", b"GET", b"maxmemory"]])
    assert list(reply) == list(start)


@pytest.mark.asyncio
async def test_outcomes_differ_by_any_byte_database_stream_entry_or_ttl_class(pg):
    cases = {
        "bytes": ([("A", r'SET k "\xff"'), ("B", r'SET k "\xfe"')], "k", {r'"\xff"', r'"\xfe"'}),
        # database 0 alone tells A1 B1 A2 (k w, copied) from A1 A2 B1 (k w, v copied) not
        "db 1": ([("A", "SET k v"), ("A", "COPY k k DB 1 REPLACE"), ("B", "SET k w")], "k [db 1]",
                 {'"v"', '"w"'}),
        "stream": ([("A", "XADD s * f a"), ("B", "XADD s * f b")], "s",
                   {'[* {"f": "a"}, * {"f": "b"}]', '[* {"f": "b"}, * {"f": "a"}]'}),
        "ttl": ([("A", "SET k v EX 5"), ("B", "SET k v EX 100")], "k",
                {'"v" (expires within 60 s)', '"v" (expires later)'}),
    }
    for name, (steps, key, shown) in cases.items():
        result = await explore(pg, typed_scenario(steps))
        assert {c.snapshot.describe(key) for c in result.classes} == shown, name
        assert len(result.classes) == (3 if name == "db 1" else 2), name


@pytest.mark.asyncio
async def test_control_bytes_never_reach_the_terminal(pg):
    from playground.explore.report import render_text

    result = await explore(pg, typed_scenario([("A", r'SET "k\x1b" "\x1b[31mred\x07"'), ("B", "GET x")]))
    text = render_text(result)
    assert "\x1b" not in text and "\x07" not in text
    assert r'"k\x1b" = "\x1b[31mred\a"' in text


@pytest.mark.asyncio
async def test_a_server_that_dies_mid_exploration_stops_it(pg):
    from playground.explore.explorer import ExploreError, Explorer

    class Killing(Explorer):
        runs = 0

        async def run_schedule(self, planned):
            self.runs += 1
            if self.runs == 3:
                self.pg.server.process.kill()
                self.pg.server.process.wait()
            return await super().run_schedule(planned)

    case = typed_scenario([("A", "INCR n"), ("A", "INCR n"), ("B", "INCR n"), ("B", "GET n")])
    with pytest.raises(ExploreError, match="the server stopped during schedule"):
        await Killing(pg, case, reduce=False).explore()


@pytest.mark.asyncio
async def test_on_a_url_with_a_database_that_database_is_the_clients_own(private_server):
    from playground.engine.playground import Playground
    from playground.resp.address import Address

    url = Address(path=private_server.socket_path, db=2)
    async with Playground(url=url, allow_flush=True) as pg:
        result = await explore(pg, typed_scenario([("A", "SET k a"), ("A", "COPY k k DB 0 REPLACE"),
                                                   ("B", "SET k b")]))
        assert {c.snapshot.describe("k") for c in result.classes} == {'"a"', '"b"'}
        assert {c.snapshot.describe("k [db 0]") for c in result.classes} == {'"a"', '"b"'}
        reply, = await pg.reader.run([[b"CLIENT", b"INFO"]])
        assert b" db=2 " in bytes(reply)     # the read connection is back on the clients' database


# -- outcomes by what each client saw -----------------------------------------------------

WATCH_NO_RETRY = [("A", "WATCH k"), ("A", "GET k"), ("A", "MULTI"), ("A", "SET k a"), ("A", "EXEC"), ("B", "SET k b")]
NO_WATCH = [step for step in WATCH_NO_RETRY if step[1] != "WATCH k"]


@pytest.mark.asyncio
async def test_by_replies_tells_an_aborted_exec_from_a_lost_update(pg):
    from playground.explore.report import render_json, render_text

    by_state = [await explore(pg, typed_scenario(steps)) for steps in (WATCH_NO_RETRY, NO_WATCH)]
    assert [{c.snapshot.describe("k") for c in r.classes} for r in by_state] == [{'"a"', '"b"'}] * 2  # the same
    watch, plain = [await explore(pg, typed_scenario(steps), by="replies") for steps in (WATCH_NO_RETRY, NO_WATCH)]
    saw = {dict(c.first_run.replies)["A"][-1] for c in watch.classes}
    assert "(nil)" in saw and "1) OK" in saw                 # aborted in some orders, committed in others
    assert "(nil)" not in {dict(c.first_run.replies)["A"][-1] for c in plain.classes}
    assert "A saw: OK · (nil) · OK · QUEUED · (nil)" in render_text(watch)
    assert '"by": "replies"' in render_json(watch)
    for steps in (WATCH_NO_RETRY, NO_WATCH, [("A", "INCR n"), ("B", "GET m"), ("A", "GET m"), ("B", "INCR n")]):
        reduced = await explore(pg, typed_scenario(steps), by="replies")
        every = await explore(pg, typed_scenario(steps), by="replies", reduce=False)
        assert reduced.runs <= every.runs == every.total
        assert {(c.first_run.replies, c.count) for c in reduced.classes} == \
            {(c.first_run.replies, c.count) for c in every.classes}


# -- the scenario's topology ------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_cluster_scenario_is_explored_on_a_cluster_and_never_on_one_server(pg, server_binary):
    from playground.engine.playground import Playground
    from playground.explore.explorer import ExploreError, Explorer
    from playground.scenario.library import resolve
    from playground.server.topology import Topology

    crossslot = load_scenario(resolve("cluster-crossslot"))
    with pytest.raises(ExploreError, match="needs --topology cluster"):
        await explore(pg, crossslot)
    with pytest.raises(ExploreError, match=r"step 1 acts on the servers \(connect B replica-1\)"):
        Explorer(pg, load_scenario(resolve("stale-read-from-replica")))
    async with Playground(server=Topology(server_binary, "cluster", 0), clients=("A",)) as cluster:
        result = await explore(cluster, crossslot)
    assert len(result.classes) == 1
    state = {k: result.classes[0].snapshot.describe(k) for k in result.keys}
    assert "user:1:name" not in state and state["{user:1}:name"] == '"ann"'   # CROSSSLOT: no MSET
    assert state["{bank}:alice"] == '"10"' and "balance:alice" not in state


@pytest.mark.asyncio
async def test_outcomes_are_labelled_against_the_serial_orders_only_when_every_one_ran(pg):
    from playground.explore.report import render_json, render_text
    from playground.scenario.library import resolve

    result = await explore(pg, typed_scenario([("A", "GET n"), ("B", "INCR n"), ("A", "INCR n")]))
    assert result.serial_known
    labels = {c.snapshot.describe("n"): c.serial for c in result.classes}
    assert labels == {'"2"': [("A", "B"), ("B", "A")]}     # INCRs commute: every order ends the same
    sampled = await explore(pg, load_scenario(resolve("watch-retry")), limit=4, reduce=False)
    found = {order for c in sampled.classes for order in c.serial}
    assert sampled.sampled and sampled.serial_known == (found == {("A", "B"), ("B", "A")})
    assert ("no serial order gives this" in render_text(sampled)) <= sampled.serial_known
    rare = [c for c in sampled.classes if c.runs < 3]
    assert rare and all(f"seen in {c.runs} of the sampled schedules only" in render_text(sampled) for c in rare)
    lost = await explore(pg, load_scenario(resolve("lost-update")))
    data = {c["state"]["counter"]["value"]: c["serial"] for c in json.loads(render_json(lost))["classes"]}
    assert data == {"5": [], "6": [["A", "B"], ["B", "A"]]}


# -- a blocking command's timeout is a move --------------------------------------------------


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_timeout_is_explored_like_any_move(pg, tmp_path):
    case = write(tmp_path, "late", LATE_PRODUCER)
    reduced = await explore(pg, case, by="replies")
    assert reduced.covered == reduced.total == 3            # A2 before B1: the timeout fired
    seen = {(dict(c.first_run.replies)["A"][-1], c.snapshot.describe("q")) for c in reduced.classes}
    assert seen == {("(nil)", '["job"]'), ('1) "q" 2) "job"', "(absent)")}   # late: the job stays queued
    every = await explore(pg, case, by="replies", reduce=False)
    assert {(c.first_run.replies, c.count) for c in reduced.classes} == \
        {(c.first_run.replies, c.count) for c in every.classes}
