"""The stepping gate on real servers: redis-py and a raw socket as clients of the
playground, each command held until released, replies byte for byte."""

from __future__ import annotations

import asyncio
import os

import pytest

from playground.gate.endpoint import socket_path
from playground.resp.replies import Nil
from commands import send
from gate_steps import WAIT, step

redis = pytest.importorskip("redis.asyncio")


async def server_value(pg, key: bytes):
    reply, = await pg.reader.run([[b"GET", key]])
    return reply


async def client_list(pg) -> bytes:
    reply, = await pg.reader.run([[b"CLIENT", b"LIST"]])
    return bytes(reply)


async def until(predicate, what: str):
    """Poll an async condition with a deadline (a server-side state, no sleeps as sync)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not await predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def test_plain_commands_wait_for_release(pg, gate):
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        task = asyncio.ensure_future(r.set("k", "v"))
        held = await gate.wait_for(lambda: gate.held("A"), WAIT)
        assert [h.display for h in held] == ["SET k v"]  # the handshake passed without a step
        assert not task.done() and await server_value(pg, b"k") is Nil
        await step(gate, "A", "SET k v")
        assert await task is True
        get = asyncio.ensure_future(r.get("k"))
        held = await step(gate, "A", "GET k")
        assert await get == b"v"
        assert held.reply == b"$1\r\nv\r\n" and held.seq is not None
        assert b"name=A#1" in await client_list(pg)
    finally:
        await r.aclose()


async def test_pipeline_is_one_step_per_command(pg, gate):
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        pipe = r.pipeline(transaction=False)
        pipe.set("n", 1).incr("n").get("n")
        task = asyncio.ensure_future(pipe.execute())
        await step(gate, "A", "SET n 1")
        assert (await server_value(pg, b"n")) == b"1" and not task.done()
        await step(gate, "A", "INCRBY n 1")
        await step(gate, "A", "GET n")
        assert await task == [True, 2, b"2"]
        assert [h.display for h in gate.log if not h.unstepped] == ["SET n 1", "INCRBY n 1", "GET n"]
    finally:
        await r.aclose()


async def test_transaction_with_watch_retries(pg, gate):
    r = redis.Redis.from_url(await gate.listen("A"))
    await send(pg, "A", [b"SET", b"counter", b"10"])

    async def add_one(pipe):
        value = int(await pipe.get("counter"))
        pipe.multi()
        pipe.set("counter", value + 1)

    try:
        task = asyncio.ensure_future(r.transaction(add_one, "counter"))
        await step(gate, "A", "WATCH counter")
        await step(gate, "A", "GET counter")
        await send(pg, "B", [b"SET", b"counter", b"20"])  # another client writes in between
        await step(gate, "A", "MULTI")
        await step(gate, "A", "SET counter 11")
        exec_ = await step(gate, "A", "EXEC")
        await exec_.done
        assert exec_.reply in (b"*-1\r\n", b"_\r\n")  # the watched key changed: nothing ran
        gate.run_free()  # redis-py retries on its own
        await asyncio.wait_for(task, WAIT)
        assert await server_value(pg, b"counter") == b"21"
        assert [h.display for h in gate.log].count("EXEC") == 2
    finally:
        await r.aclose()


async def test_register_script_loads_it_after_noscript(pg, gate):
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        incr = r.register_script("return redis.call('INCR', KEYS[1])")
        task = asyncio.ensure_future(incr(keys=["hits"]))
        first = await gate.release_next("A", WAIT)
        assert first.argv[0] == b"EVALSHA"
        await first.done
        assert first.reply.startswith(b"-NOSCRIPT")
        load = await gate.release_next("A", WAIT)
        assert load.argv[:2] == [b"SCRIPT", b"LOAD"]
        again = await gate.release_next("A", WAIT)
        assert again.argv[0] == b"EVALSHA"
        assert await task == 1
    finally:
        await r.aclose()


async def test_blocking_pop_blocks_on_the_server(pg, gate):
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        task = asyncio.ensure_future(r.blpop(["jobs"], timeout=0))
        await step(gate, "A", "BLPOP jobs 0")

        async def blocked():
            return any(b"name=A#1" in line and b"cmd=blpop" in line
                       for line in (await client_list(pg)).splitlines())
        await until(blocked, "A blocked in BLPOP on the server")
        assert not task.done()
        await send(pg, "B", [b"RPUSH", b"jobs", b"j1"])
        assert await asyncio.wait_for(task, WAIT) in ([b"jobs", b"j1"], (b"jobs", b"j1"))
    finally:
        await r.aclose()


async def test_raw_socket_replies_byte_for_byte(pg, gate):
    url = await gate.listen("raw")
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    try:
        writer.write(b"*1\r\n$4\r\nPING\r\nECHO hi\r\n*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$0\r\n\r\n")
        await step(gate, "raw", "PING")
        await step(gate, "raw", "ECHO hi")
        await step(gate, "raw", 'RPUSH l ""')
        want = b"+PONG\r\n$2\r\nhi\r\n:1\r\n"
        got = b""
        while len(got) < len(want):
            got += await asyncio.wait_for(reader.read(100), WAIT)
        assert got == want
    finally:
        writer.close()


async def test_program_dies_mid_multi(pg, gate):
    url = await gate.listen("raw")
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    writer.write(b"MULTI\r\nSET k 1\r\nEXEC\r\n")
    await step(gate, "raw", "MULTI")
    await step(gate, "raw", "SET k 1")
    assert await asyncio.wait_for(reader.readexactly(len(b"+OK\r\n+QUEUED\r\n")), WAIT) == b"+OK\r\n+QUEUED\r\n"
    writer.close()  # dies with EXEC still held
    assert await gate.wait_for(lambda: all(c.closed for c in gate.clients), WAIT)

    async def gone():
        return b"name=raw#1" not in await client_list(pg)
    await until(gone, "the dead program's server connection to close")
    assert await server_value(pg, b"k") is Nil  # the transaction never ran
    r = redis.Redis.from_url(url)  # the gate is still usable
    try:
        gate.run_free()
        assert await r.incr("k") == 1
    finally:
        await r.aclose()


async def test_a_bare_info_first_is_the_ready_check(pg, gate):
    """ioredis sends INFO before anything else: no step; a later INFO is the program's own."""
    url = await gate.listen("raw")
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    try:
        writer.write(b"INFO\r\nPING\r\nINFO\r\n")
        await step(gate, "raw", "PING")
        await (await step(gate, "raw", "INFO")).done
        assert [h.unstepped for h in gate.log] == [True, False, False]
    finally:
        writer.close()


@pytest.mark.parametrize("protocol", [2, 3])
async def test_pubsub_through_the_gate(pg, gate, protocol):
    """SUBSCRIBE of two channels is one step (a confirmation each); messages are no replies."""
    r = redis.Redis.from_url(await gate.listen("A"), protocol=protocol)
    p = r.pubsub()
    try:
        task = asyncio.ensure_future(p.subscribe("news", "sport"))
        sub = await step(gate, "A", "SUBSCRIBE news sport")
        await asyncio.wait_for(task, WAIT)
        assert (await asyncio.wait_for(sub.done, WAIT)).count(b"subscribe") == 2
        assert await p.get_message(timeout=WAIT) == {"type": "subscribe", "pattern": None,
                                                    "channel": b"news", "data": 1}
        assert (await p.get_message(timeout=WAIT))["channel"] == b"sport"
        await send(pg, "B", [b"PUBLISH", b"sport", b"goal"])
        message = await p.get_message(timeout=WAIT)
        assert message["type"] == "message" and message["data"] == b"goal"
        ping = asyncio.ensure_future(p.ping())
        pong = await step(gate, "A", "PING")
        await asyncio.wait_for(ping, WAIT)
        assert (await asyncio.wait_for(pong.done, WAIT)).lower().count(b"pong") == 1
    finally:
        await p.aclose()
        await r.aclose()


async def test_a_flood_is_held_with_backpressure(pg, gate):
    """A program that pipelines far more than MAX_HELD commands is read no further until
    they go; released, every reply comes back in order."""
    from playground.gate import endpoint

    url = await gate.listen("raw")
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    count = endpoint.MAX_HELD * 3
    try:
        writer.write(b"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n" * count)
        client = (await gate.wait_for(lambda: gate.clients, WAIT))[0]
        assert await gate.wait_for(lambda: len(client.queue) > endpoint.MAX_HELD, WAIT)
        assert len(client.queue) < count  # the rest waits in the socket, not in the gate
        gate.run_free()
        want = b"".join(b":%d\r\n" % i for i in range(1, count + 1))
        got = await asyncio.wait_for(reader.readexactly(len(want)), WAIT * 3)
        assert got == want
    finally:
        writer.close()


@pytest.mark.slow
async def test_a_held_command_outlasts_redis_pys_default_timeout(pg):
    """redis-py 8 gives up on a reply after 5 s by default; a command held at the gate
    waits as long as the teacher talks: the URL asks redis-py for a day, and a program
    whose GET is held 6 s still gets its reply."""
    import redis as redis_py

    from playground.gate.endpoint import Gate

    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen("A")
        kwargs = redis_py.Redis.from_url(url).connection_pool.connection_kwargs
        assert kwargs["path"] == socket_path(url) and kwargs["socket_timeout"] >= 3600
        client = redis_py.Redis.from_url(url)
        reply = asyncio.ensure_future(asyncio.to_thread(client.get, "k"))
        held = await gate.wait_for(lambda: next(iter(gate.held("A")), None), 10)
        assert held is not None and held.display == "GET k"
        await asyncio.sleep(6)  # the time itself is what is tested: past redis-py's 5 s
        gate.release(held)
        assert await asyncio.wait_for(reply, 10) is None
        client.close()
    finally:
        await gate.close()


async def test_a_program_steps_next_line_names_the_command_it_holds(pg):
    """The narration's "next: B> …" for a program's step is the command the program
    holds at the gate (what Space will let through), once it sent it."""
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario
    from playground.scenario.stepper import Stepper

    stepper = Stepper(pg, load_scenario(bundled_dir() / "lost-update-python.toml"))
    await stepper.start()
    try:
        gate = stepper.runner.programs.gate
        assert await gate.wait_for(lambda: gate.held("A") and gate.held("B"), 10)
        _, step = stepper.next_step()
        assert (step.client, stepper.runner.preview(step)) == ("A", "GET counter")
        await stepper.step()
        _, step = stepper.next_step()
        assert (step.client, stepper.runner.preview(step)) == ("B", "GET counter")
    finally:
        await stepper.runner.programs.stop()


async def test_client_reply_off_and_skip_leave_no_reply_to_take_another_ones_place(pg, gate):
    """The server answers CLIENT REPLY SKIP and the command after it with nothing, and
    CLIENT REPLY OFF until CLIENT REPLY ON: the gate pairs each reply with its own command
    (it gave GET's reply to CLIENT REPLY SKIP, and so on down the line)."""
    url = await gate.listen("raw")
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    gate.run_free()
    try:
        writer.write(b"CLIENT REPLY SKIP\r\nSET a 1\r\nGET a\r\nCLIENT REPLY OFF\r\nINCR a\r\n"
                     b"CLIENT REPLY ON\r\nGET a\r\n")
        want = b"$1\r\n1\r\n+OK\r\n$1\r\n2\r\n"   # what the server itself sends, in order
        got = b""
        while len(got) < len(want):
            got += await asyncio.wait_for(reader.read(100), WAIT)
        assert got == want
        assert await gate.wait_for(lambda: len(gate.log) == 7, WAIT)
        assert [(h.display, h.reply) for h in gate.log] == [
            ("CLIENT REPLY SKIP", b""), ("SET a 1", b""), ("GET a", b"$1\r\n1\r\n"),
            ("CLIENT REPLY OFF", b""), ("INCR a", b""), ("CLIENT REPLY ON", b"+OK\r\n"),
            ("GET a", b"$1\r\n2\r\n")]
        assert [h.seq for h in gate.log] == sorted(h.seq for h in gate.log)   # in the server's order
        assert await server_value(pg, b"a") == b"2"
    finally:
        writer.close()


async def test_a_reply_that_comes_at_once_is_in_when_its_release_returns(pg, gate):
    """A command that cannot block is answered in its release's own call (the gate reads
    its reply there, as a typed line's): its Held is done, numbered and logged before any
    turn of the event loop. One that blocks is not waited for there: its release returns,
    and its reply comes by the loop once another client frees it."""
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        task = asyncio.ensure_future(r.incr("n"))
        held = await gate.wait_for(lambda: next(iter(gate.held("A")), None), WAIT)
        gate.release(held)
        assert held.done.done() and held.reply == b":1\r\n" and held.seq is not None and gate.log[-1] is held
        assert await task == 1
        pop = asyncio.ensure_future(r.blpop(["jobs"], timeout=0))
        held = await gate.wait_for(lambda: next(iter(gate.held("A")), None), WAIT)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        gate.release(held)
        assert not held.done.done() and loop.time() - t0 < 1.0   # (not waited for in the call)
        await pg.reader.run([[b"RPUSH", b"jobs", b"j1"]])
        assert await asyncio.wait_for(held.done, WAIT) == b"*2\r\n$4\r\njobs\r\n$2\r\nj1\r\n"
        assert await pop == (b"jobs", b"j1")
    finally:
        await r.aclose()


async def test_the_gate_is_never_quiet_while_a_new_connections_request_is_on_its_way(pg, gate):
    """From a program's connect and first request to that request held at the gate, no
    turn of the event loop finds the gate quiet for the program: not while the
    connection waits to be accepted, nor once accepted and not yet taken, nor while its
    request is read from the socket and not yet taken (asyncio's own server hands a
    connection over turns later, in a gap where it is in no list of the gate's)."""
    import socket as socket_module

    path = socket_path(await gate.listen("A"))
    raw = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    try:
        raw.connect(path)
        raw.sendall(b"*1\r\n$4\r\nPING\r\n")
        turns = 0
        while not gate.held("A"):
            assert not gate.quiet("A"), f"quiet at turn {turns}, with the PING on its way"
            await asyncio.sleep(0)
            turns += 1
            assert turns < 10_000, "the PING was never held"
        assert gate.held("A")[0].display == "PING"
    finally:
        raw.close()


async def test_the_gate_is_not_quiet_while_a_closed_connections_end_is_on_its_way(pg, gate):
    """A program's connection whose socket was closed under the gate (a write to a program
    that had exited failed: its transport closed) before the gate's reader took its end:
    at each turn of the event loop until the gate has it as closed, quiet() says False (its
    end is on its way), and does not fail on the closed socket (a ValueError, with fd -1,
    stopped an exploration in CI)."""
    import socket as socket_module

    path = socket_path(await gate.listen("A"))
    raw = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    try:
        raw.connect(path)
        raw.sendall(b"*1\r\n$4\r\nPING\r\n")
        assert await gate.wait_for(lambda: gate.held("A"), WAIT)
        client, = [c for c in gate.clients if c.label == "A"]
        client.to_program.close()   # (as a failed write closes it: its socket goes at the next turn)
        turns = 0
        while not client.closed:
            assert not gate.quiet("A"), f"quiet at turn {turns}, with the connection's end on its way"
            await asyncio.sleep(0)
            turns += 1
            assert turns < 10_000, "the connection's end was never taken"
    finally:
        raw.close()


async def test_a_script_a_program_loaded_is_gone_after_a_fresh_start(pg, gate):
    """The gate tells the playground of every command a program sends, as a typed line's
    are noted: after a program's SCRIPT LOAD, the next fresh start flushes the script
    cache (and only then: a fresh start after nothing that may cache one leaves it be)."""
    await pg.reset()
    gate.run_free()
    r = redis.Redis.from_url(await gate.listen("A"))
    try:
        sha = await r.script_load("return 1")
        assert await r.script_exists(sha) == [True]
    finally:
        await r.aclose()
    await pg.reset()
    reply, = await pg.reader.run([[b"SCRIPT", b"EXISTS", sha.encode()]])
    assert [int(x) for x in reply] == [0]


async def test_a_gate_listens_where_an_earlier_one_left_its_socket(pg, gate):
    """A program's socket path is the same for every gate in the private directory (the
    lesson's, then a schedule stepped from `explore`): a later gate listens there and
    takes that program's new connections, as asyncio's own servers replaced a socket left
    at their path (an "Address already in use" stopped the stepping)."""
    from playground.gate.endpoint import Gate

    first = await gate.listen("A")
    later = Gate.for_playground(pg)
    try:
        assert await later.listen("A") == first
        later.run_free()
        r = redis.Redis.from_url(first)
        try:
            assert await r.incr("n") == 1
        finally:
            await r.aclose()
        assert [h.display for h in later.log if not h.unstepped] == ["INCRBY n 1"] and not gate.log
        await gate.close()   # (the earlier gate ends first: the later one's socket stays)
        r = redis.Redis.from_url(first)
        try:
            assert await r.incr("n") == 2
        finally:
            await r.aclose()
    finally:
        await later.close()
    assert socket_path(first).rpartition("/")[2] not in os.listdir(gate.directory)   # (the last one removes it)
