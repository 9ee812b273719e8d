"""A program's commands through the gate go through the executor's records as typed lines
do (engine/program_lines.py): its units in the server order (the lanes), the why-note of
an EXEC that returned nil, and the keys it wrote ("changed by"), on real servers. Each
claim is checked against the server's own answer, not only against the records."""

from __future__ import annotations

import asyncio
import re

import pytest

from playground.engine.executor import Executor
from playground.engine.program_lines import ProgramLines
from playground.gate.endpoint import Gate, socket_path
from playground.resp.replies import Nil
from gate_steps import WAIT, step as release

redis = pytest.importorskip("redis.asyncio")
redis_exceptions = pytest.importorskip("redis.exceptions")


async def step(gate: Gate, label: str, want: str):
    """Release `label`'s next command (it must be `want`); its record as a line."""
    held = await release(gate, label, want)
    await asyncio.wait_for(asyncio.shield(held.done), WAIT)
    return await held.record


async def test_a_programs_aborted_exec_is_a_unit_with_its_why_and_its_writes_are_its_own(pg, gate):
    executor = Executor(pg, attribute=True, explain="en")
    lines = ProgramLines(executor.recorder)
    lines.attach(gate)
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        async def program():
            async with r.pipeline(transaction=True) as pipe:
                await pipe.watch("balance")
                await pipe.get("balance")
                pipe.multi()
                pipe.decrby("balance", 100)
                try:
                    return await pipe.execute()
                except redis_exceptions.WatchError:
                    return None

        await executor.run("B", [b"SET", b"balance", b"150"])
        task = asyncio.ensure_future(program())
        await step(gate, "A", "WATCH balance")
        await step(gate, "A", "GET balance")
        await executor.run("B", [b"SET", b"balance", b"200"])   # a typed write between WATCH and EXEC
        await step(gate, "A", "MULTI")
        await step(gate, "A", "DECRBY balance 100")
        exec_line = await step(gate, "A", "EXEC")
        await task

        # the server says EXEC ran nothing: the value is B's
        reply, = await pg.reader.run([[b"GET", b"balance"]])
        assert reply == b"200" and exec_line.reply is Nil
        # one transaction unit of A's, aborted, in the server order after B's SET
        rows = [(row.client, row.unit.kind, row.unit.outcome) for row in pg.order.rows if row.unit is not None]
        assert rows[-2:] == [("B", "command", "ran"), ("A", "transaction", "aborted")]
        # its why-note names B's write, as for a typed EXEC
        assert [why.kind for why in exec_line.whys] == ["changed"]
        assert "B" in exec_line.whys[0].text
        await executor.attributed()
        assert pg.writes.last_writer[b"balance"] == "B"     # A's aborted EXEC wrote nothing

        done = asyncio.ensure_future(r.set("balance", "1"))
        await step(gate, "A", "SET balance 1")
        await done
        reply, = await pg.reader.run([[b"GET", b"balance"]])
        assert reply == b"1" and pg.writes.last_writer[b"balance"] == "A"
    finally:
        gate.run_free()
        await r.aclose()


async def test_the_handshake_is_no_line(pg, gate):
    """redis-py's CLIENT SETINFO (an error on older servers) passes without a step and is
    neither a unit nor a why."""
    executor = Executor(pg, attribute=True, explain="en")
    lines = ProgramLines(executor.recorder)
    lines.attach(gate)
    before = len(pg.order.rows)
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        task = asyncio.ensure_future(r.incr("n"))
        line = await step(gate, "A", "INCRBY n 1")
        assert await task == 1 and line.reply == 1
        units = [row.unit.commands for row in list(pg.order.rows)[before:] if row.unit is not None]
        assert units == [[(b"INCRBY", b"n", b"1")]]
    finally:
        await r.aclose()


async def test_a_program_started_by_hand_gets_a_lane_of_its_own(pg, gate):
    """Free play: each connection is named after its program; the lanes give it a column
    beside A's and B's, never A's (where an unknown client used to land)."""
    from playground.scenario import lanes

    executor = Executor(pg, attribute=True)
    ProgramLines(executor.recorder).attach(gate, name=lambda client: client.name)
    r = redis.Redis.from_url(await gate.listen(None))
    gate.run_free()
    try:
        await executor.run("A", [b"SET", b"n", b"1"])
        assert await r.incr("n") == 2
        await gate.log[-1].record
        await executor.run("B", [b"GET", b"n"])
        program = next(client.name for client in gate.clients)
        rows = lanes.rows_from_order(pg.order.rows)
        assert [(row.client, row.lines) for row in rows if row.client] == [
            ("A", ["SET n 1"]), (program, ["INCRBY n 1"]), ("B", ["GET n"])]
        head, _, *body = lanes.render_text(rows, ("A", "B"), total=90).splitlines()
        assert head.split() == ["#", "│", "A", "│", "B", "│", program]
        incr = next(line for line in body if "INCRBY n 1" in line)
        assert incr.index("INCRBY n 1") > head.index(program) - 2   # in the program's lane, right of B's
        await executor.attributed()
        await gate.log[-1].record
        assert pg.writes.last_writer[b"n"] == program    # "changed by" names the program, not A
    finally:
        await r.aclose()


async def test_a_programs_multi_exec_is_recorded_as_the_same_typed_one(pg, gate):
    """The same commands, typed by A and then sent by A's program, each time with B's
    write between WATCH and EXEC: the same unit (kind, outcome, commands, reply, WATCHed
    keys) and the same why, from the one recorder."""
    executor = Executor(pg, attribute=True, explain="en")
    ProgramLines(executor.recorder).attach(gate)
    shape = ("WATCH balance", "GET balance", "MULTI", "DECRBY balance 100", "EXEC")

    def recorded(line, start):
        """Its unit and whys, server-order numbers counted from `start` (each part's first)."""
        unit, = line.units
        return ((unit.client, unit.kind, unit.outcome, unit.commands, unit.reply, unit.watched, unit.seq - start),
                [(why.client, why.kind, re.sub(r"#(\d+)", lambda m: f"#{int(m[1]) - start}", why.text))
                 for why in line.whys])

    typed_start = (await executor.run("B", [b"SET", b"balance", b"150"])).seqs[0]
    typed = []
    for n, command in enumerate(shape):
        if n == 2:
            await executor.run("B", [b"SET", b"balance", b"200"])
        typed.append(await executor.run("A", command.encode().split()))
    assert typed[-1].replies == [Nil]

    sent_start = (await executor.run("B", [b"SET", b"balance", b"150"])).seqs[0]
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        async def program():
            async with r.pipeline(transaction=True) as pipe:
                await pipe.watch("balance")
                await pipe.get("balance")
                pipe.multi()
                pipe.decrby("balance", 100)
                try:
                    return await pipe.execute()
                except redis_exceptions.WatchError:
                    return None

        task = asyncio.ensure_future(program())
        sent = []
        for n, command in enumerate(shape):
            if n == 2:
                await executor.run("B", [b"SET", b"balance", b"200"])
            sent.append(await step(gate, "A", command))
        assert await task is None
    finally:
        gate.run_free()
        await r.aclose()
    assert sent[-1].replies == [Nil]
    program_exec, typed_exec = recorded(sent[-1], sent_start), recorded(typed[-1], typed_start)
    assert program_exec == typed_exec
    assert [kind for _, kind, _ in program_exec[1]] == ["changed"] and "after A's WATCH (#1)" in program_exec[1][0][2]


async def test_a_programs_watch_is_marked_dirty_by_a_typed_write_and_another_programs(pg, gate):
    """A program's WATCHed keys are its tracker's (the recorder's `programs`, what the
    inspector shows); a typed client's write marks one dirty, another program's write the
    other, as for a session; the server agrees (EXEC returns nil); after EXEC nothing is
    WATCHed, and a connection that ends takes its WATCHes with it."""
    executor = Executor(pg, attribute=True)
    ProgramLines(executor.recorder).attach(gate)
    programs = executor.recorder.programs
    r = redis.Redis.from_url(await gate.listen("A"))
    other = redis.Redis.from_url(await gate.listen("C"))
    try:
        async def program():
            async with r.pipeline(transaction=True) as pipe:
                await pipe.watch("k", "j")
                pipe.multi()
                pipe.set("k", "mine")
                try:
                    return await pipe.execute()
                except redis_exceptions.WatchError:
                    return None

        task = asyncio.ensure_future(program())
        await step(gate, "A", "WATCH k j")
        assert (programs["A#1"].watched, programs["A#1"].dirty) == ((b"k", b"j"), ())
        await executor.run("B", [b"SET", b"k", b"1"])           # a typed write of a WATCHed key
        assert programs["A#1"].dirty == (b"k",)
        written = asyncio.ensure_future(other.set("j", "2"))
        await step(gate, "C", "SET j 2")                        # another program's write
        await written
        assert programs["A#1"].dirty == (b"k", b"j")
        await step(gate, "A", "MULTI")
        await step(gate, "A", "SET k mine")
        await step(gate, "A", "EXEC")
        assert await task is None                               # the server agrees: the WATCH was dirty
        reply, = await pg.reader.run([[b"GET", b"k"]])
        assert reply == b"1"
        assert (programs["A#1"].watched, programs["A#1"].dirty) == ((), ())

        reader, writer = await asyncio.open_unix_connection(socket_path(await gate.listen("D")))
        writer.write(b"*2\r\n$5\r\nWATCH\r\n$1\r\nj\r\n")
        await step(gate, "D", "WATCH j")
        assert await reader.readline() == b"+OK\r\n" and programs["D#1"].watched == (b"j",)
        writer.close()                                          # its connection ends: so do its WATCHes
        assert await gate.wait_for(lambda: "D#1" not in programs, WAIT)
    finally:
        gate.run_free()
        await r.aclose()
        await other.aclose()


async def test_a_programs_two_connections_each_have_their_units(pg, gate):
    """A MULTI is a connection's: a program's second connection's GET, sent while its first
    has a transaction open, runs at once and is a command of its own, and the first's EXEC
    ran only its SET (as the server says: both replies). Its units are followed per
    connection, in the program's lane (one tracker per program mixed them up)."""
    executor = Executor(pg)
    ProgramLines(executor.recorder).attach(gate)
    path = socket_path(await gate.listen("A"))
    (r1, w1), (r2, w2) = [await asyncio.open_unix_connection(path) for _ in range(2)]
    try:
        w1.write(b"*1\r\n$5\r\nMULTI\r\n")
        multi = await step(gate, "A", "MULTI")
        assert await r1.readline() == b"+OK\r\n"
        w2.write(b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
        get = await step(gate, "A", "GET k")
        assert await r2.readline() == b"$-1\r\n"            # (run at once: not QUEUED)
        w1.write(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n1\r\n")
        await step(gate, "A", "SET k 1")
        assert await r1.readline() == b"+QUEUED\r\n"
        w1.write(b"*1\r\n$4\r\nEXEC\r\n")
        exec_ = await step(gate, "A", "EXEC")
        assert await r1.readexactly(len(b"*1\r\n+OK\r\n")) == b"*1\r\n+OK\r\n"
    finally:
        gate.run_free()
        w1.close()
        w2.close()
    assert multi.units == []
    unit, = get.units
    assert (unit.client, unit.kind, unit.commands, unit.ran) == ("A", "command", [(b"GET", b"k")], True)
    unit, = exec_.units
    assert (unit.client, unit.kind, unit.outcome) == ("A", "transaction", "committed")
    assert unit.commands == [(b"SET", b"k", b"1")]
