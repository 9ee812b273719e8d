"""Who wrote which key, worked out from the commands and the server's own command table."""

from playground.engine.executor import Executor


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
