"""Who wrote which key, worked out from the commands and the server's own command table."""

import pytest

from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.resp.address import Address
from playground.resp.replies import Err


class _Tracked:
    """The executor with attribution on; `last_writer` is its tracker's."""

    def __init__(self, pg):
        self.ex = Executor(pg, attribute=True)

    @property
    def last_writer(self):
        return self.ex.pg.writes.last_writer


async def run(pg, t, client, *argv):
    result = await t.ex.submit(client, argv)
    await t.ex.attributed()
    return result.reply


async def test_reads_do_not_count_writes_do(pg):
    t = _Tracked(pg)
    await run(pg, t, "A", b"SET", b"k", b"1")
    await run(pg, t, "B", b"GET", b"k")
    assert t.last_writer == {b"k": "A"}
    await run(pg, t, "B", b"MSET", b"x", b"1", b"k", b"2")
    assert t.last_writer == {b"k": "B", b"x": "B"}
    await run(pg, t, "A", b"LPUSH", b"k", b"oops")  # WRONGTYPE: wrote nothing
    assert t.last_writer[b"k"] == "B"


async def test_transaction_counts_at_exec_and_not_when_aborted(pg):
    t = _Tracked(pg)
    await run(pg, t, "A", b"SET", b"balance", b"150")
    await run(pg, t, "A", b"WATCH", b"balance")
    await run(pg, t, "B", b"SET", b"balance", b"200")
    await run(pg, t, "A", b"MULTI")
    await run(pg, t, "A", b"DECRBY", b"balance", b"100")
    assert t.last_writer[b"balance"] == "B"
    await run(pg, t, "A", b"EXEC")  # nil: aborted
    assert t.last_writer[b"balance"] == "B"
    await run(pg, t, "A", b"MULTI")
    await run(pg, t, "A", b"INCR", b"counter")
    await run(pg, t, "A", b"EXEC")
    assert t.last_writer[b"counter"] == "A"


async def test_script_keys(pg):
    t = _Tracked(pg)
    await run(pg, t, "B", b"EVAL", b"redis.call('SET', KEYS[1], 'v') return 1", b"1", b"s")
    assert t.last_writer == {b"s": "B"}
    await run(pg, t, "A", b"EVAL_RO", b"return redis.call('GET', KEYS[1])", b"1", b"s")
    assert t.last_writer == {b"s": "B"}



async def test_a_pane_cannot_switch_off_the_key_events_attribution_reads(pg):
    """Who wrote comes from the server's key events; the sandbox's user may not CONFIG SET
    (notify-keyspace-events "" would make every write look like nothing): B's SET counts."""
    t = _Tracked(pg)
    await run(pg, t, "A", b"SET", b"k", b"1")
    refused = await run(pg, t, "A", b"CONFIG", b"SET", b"notify-keyspace-events", b"")
    assert b"NOPERM" in refused.message
    await run(pg, t, "B", b"SET", b"k", b"2")
    assert t.last_writer == {b"k": "B"}


async def test_a_fresh_start_forgets_every_writer_and_its_setup_is_nobodys(pg):
    """A lesson's part begins (or is rewound: a fresh start, then the steps replayed):
    a key only the setup wrote was shown "by A" (the setup runs on A's connection), and
    after a rewind a key kept the writer of a step that was undone."""
    t = _Tracked(pg)
    await run(pg, t, "B", b"SET", b"balance", b"200")
    assert t.last_writer == {b"balance": "B"}
    await pg.reset(setup=[[b"SET", b"balance", b"150"]], by="A")
    await t.ex.attributed()
    assert t.last_writer == {}
    await run(pg, t, "A", b"GET", b"balance")
    await run(pg, t, "B", b"INCR", b"other")
    assert t.last_writer == {b"other": "B"}


# (setup, command): each answered so that it wrote nothing, or so that it wrote
NOTHING_OR_SOMETHING = [
    ([b"SET", b"k", b"A"], [b"SET", b"k", b"B", b"NX"]), ([], [b"SET", b"k", b"B", b"NX"]),
    ([], [b"SET", b"k", b"B", b"XX"]), ([], [b"SET", b"k", b"B", b"GET"]),
    ([b"SET", b"k", b"A"], [b"SET", b"k", b"B", b"NX", b"GET"]),  # (UNTOLD)
    ([b"SET", b"k", b"A"], [b"SETNX", b"k", b"B"]), ([], [b"SETNX", b"k", b"B"]),
    ([b"SET", b"k", b"A"], [b"MSETNX", b"k", b"B", b"j", b"B"]), ([], [b"HSETNX", b"h", b"f", b"v"]),
    ([b"HSET", b"h", b"f", b"v"], [b"HSETNX", b"h", b"f", b"w"]), ([], [b"GETDEL", b"k"]),
    ([], [b"GETEX", b"k", b"EX", b"100"]), ([], [b"LPOP", b"l"]), ([], [b"RPOP", b"l"]), ([], [b"SPOP", b"s"]),
    ([], [b"LMOVE", b"l", b"m", b"LEFT", b"RIGHT"]), ([], [b"RPOPLPUSH", b"l", b"m"]),
    ([b"SET", b"k", b"A"], [b"EXPIRE", b"k", b"100", b"XX"]), ([], [b"EXPIRE", b"k", b"100"]),
    ([b"SET", b"k", b"A"], [b"PERSIST", b"k"]), ([], [b"LPUSHX", b"l", b"x"]), ([], [b"DEL", b"k"]),
    ([b"SADD", b"s", b"m"], [b"SADD", b"s", b"m"]), ([b"SADD", b"s", b"m"], [b"SREM", b"s", b"x"]),
    ([b"SET", b"k", b"A"], [b"COPY", b"k", b"j"]), ([b"SET", b"k", b"A"], [b"RENAMENX", b"k", b"k"]),
    ([b"HSET", b"h", b"f", b"v"], [b"HSET", b"h", b"f", b"w"]), ([b"SET", b"k", b"1"], [b"INCR", b"k"]),
]


UNTOLD = [[b"SET", b"k", b"B", b"NX", b"GET"]]
"""Its reply (the old value) cannot say whether it wrote: counted as a write (the safe side)."""


async def test_what_the_catalogue_says_wrote_nothing_the_server_agrees(pg):
    """Where the server cannot say what changed (a topology, a --url server) the
    catalogue reads it from the reply (`wrote_nothing`); on the private server its key
    events say it: for every case the two agree."""
    from playground.engine.catalogue import wrote_nothing

    t = _Tracked(pg)
    for setup, argv in NOTHING_OR_SOMETHING:
        await pg.reset(setup=[setup] if setup else [], by="A")
        result = await t.ex.submit("B", argv)
        await t.ex.attributed()
        unit = result.units[-1]
        assert unit.changes is not None  # the server's own account
        said = wrote_nothing(argv, result.reply)
        assert not (said and unit.changes), (argv, result.reply, unit.changes)  # never a write left out
        if argv not in UNTOLD:
            assert said == (not unit.changes), (argv, result.reply, unit.changes)


async def test_a_set_nx_that_lost_on_a_replica_topology_is_not_its_write(server_binary):
    """Issue 35: on a topology (no key events, so who wrote is read from the commands)
    the inspector named B for a lock B's SET NX did not take (in lock-lost-on-failover
    the value had come from A by replication); nil says B wrote nothing."""
    from playground.engine.playground import Playground
    from playground.server.topology import Topology

    pg = Playground(server=Topology(server_binary, "replica", 1), clients=("A", "B"))
    async with pg:
        assert pg.changes is None or not pg.changes.possible(pg)
        t = _Tracked(pg)
        assert await run(pg, t, "A", b"SET", b"lock", b"A", b"NX", b"PX", b"30000") == b"OK"
        await run(pg, t, "B", b"SET", b"lock", b"B", b"NX", b"PX", b"30000")  # (nil): A holds it
        assert t.last_writer == {b"lock": "A"}
        await run(pg, t, "B", b"DEL", b"lock")
        assert t.last_writer == {b"lock": "B"}


FORGETTING = ["FLUSHALL", "FLUSHDB", "SWAPDB 0 1"]
"""What writes keys it does not name (the catalogue's `writes_unnamed_keys`, from the
server's own description): after it, nothing known of who wrote which key holds."""
KEEPING = ["MOVE k 1", "COPY k k2 DB 1", "SELECT 1", "FUNCTION FLUSH", "DEL k"]
"""... and what names its keys, or writes none (the other keys' writers stay)."""


async def _forgets(pg, line: str) -> bool:
    t = _Tracked(pg)
    for client, key in (("A", b"k"), ("A", b"other")):
        await run(pg, t, client, b"SET", key, b"1")
    assert t.last_writer == {b"k": "A", b"other": "A"}
    reply = await run(pg, t, "B", *line.encode().split())
    assert not isinstance(reply, Err), reply
    return b"other" not in t.last_writer


@pytest.mark.parametrize("line", FORGETTING + KEEPING)
async def test_what_writes_keys_it_does_not_name_forgets_every_writer(pg, line):
    """On the private server (its key events say what changed)."""
    assert await _forgets(pg, line) == (line in FORGETTING)


@pytest.mark.parametrize("line", FORGETTING + KEEPING)
async def test_what_writes_keys_it_does_not_name_forgets_every_writer_under_url(private_server, line):
    """On a server of the user's (no key events: what the commands' names say)."""
    pg = Playground(url=Address.from_url(f"unix://{private_server.socket_path}"), allow_flush=True)
    async with pg:
        assert pg.changes is None
        assert await _forgets(pg, line) == (line in FORGETTING)
