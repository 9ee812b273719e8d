"""Clients A and B: separate connections, state from the server's own truth,
blocking that blocks only one client, cancel, pub/sub. Commands go through the one
command path (engine.executor; tests/commands.py), as a pane's do."""

import pytest
import asyncio

from commands import line, send
from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.engine.session import STREAMING
from playground.resp.cli_format import render
from playground.resp.replies import Bulk, Err, Nil, Status


async def test_clients_are_separate_named_connections(pg, a, b):
    assert a.state.client_id != b.state.client_id
    assert await a.execute([b"CLIENT", b"GETNAME"]) == b"A"
    assert await b.execute([b"CLIENT", b"GETNAME"]) == b"B"


async def test_status_and_bulk_keep_their_type(pg, a):
    assert type(await a.execute([b"SET", b"k", b"OK"])) is Status
    assert type(await a.execute([b"GET", b"k"])) is Bulk
    assert await a.execute([b"GET", b"nope"]) is Nil


async def test_first_argument_with_space_is_one_argument(pg, a):
    reply = await a.execute([b"GET x"])
    assert isinstance(reply, Err) and b"unknown command" in reply.message


async def test_watch_abort_state_from_server(pg, a, b):
    """SCENARIOS.md watch-abort: A's watch is dirty as soon as B writes, before A's MULTI."""
    await send(pg, "A", [b"SET", b"balance", b"150"])
    await send(pg, "A", [b"WATCH", b"balance"])
    assert a.state.watched == (b"balance",) and not a.state.dirty
    assert await send(pg, "A", [b"GET", b"balance"]) == b"150"
    await send(pg, "B", [b"SET", b"balance", b"200"])
    assert a.state.dirty, "A must know its WATCH is dirty right after B's SET"
    assert not b.state.dirty
    await send(pg, "A", [b"MULTI"])
    assert a.state.in_multi and a.state.queued == 0
    assert await send(pg, "A", [b"DECRBY", b"balance", b"100"]) == b"QUEUED"
    assert a.state.queued == 1 and a.state.in_multi and a.state.dirty
    assert await send(pg, "A", [b"EXEC"]) is Nil
    assert not a.state.in_multi and a.state.watched == () and not a.state.dirty
    assert await send(pg, "B", [b"GET", b"balance"]) == b"200"


async def test_same_bytes_rewrite_still_dirties(pg, a, b):
    await send(pg, "A", [b"SET", b"w", b"same"])
    await send(pg, "A", [b"WATCH", b"w"])
    await send(pg, "B", [b"SET", b"w", b"same"])
    assert a.state.dirty


async def test_queue_time_error_marks_exec_abort(pg, a):
    await send(pg, "A", [b"MULTI"])
    reply = await send(pg, "A", [b"SET", b"x"])
    assert isinstance(reply, Err)
    assert a.state.exec_will_abort and a.state.queued == 0
    await send(pg, "A", [b"SET", b"y", b"1"])
    assert a.state.queued == 1
    reply = await send(pg, "A", [b"EXEC"])
    assert isinstance(reply, Err) and reply.code == "EXECABORT"
    assert not a.state.in_multi and not a.state.exec_will_abort


async def test_discard_and_unwatch_and_reset(pg, a):
    await send(pg, "A", [b"WATCH", b"k1", b"k2"])
    await send(pg, "A", [b"WATCH", b"k1"])
    assert a.state.watched == (b"k1", b"k2")
    await send(pg, "A", [b"UNWATCH"])
    assert a.state.watched == ()
    await send(pg, "A", [b"WATCH", b"k"])
    await send(pg, "A", [b"MULTI"])
    await send(pg, "A", [b"DISCARD"])
    assert not a.state.in_multi and a.state.watched == ()
    await send(pg, "A", [b"MULTI"])
    await send(pg, "A", [b"RESET"])
    assert not a.state.in_multi


async def _blocked(pg, session) -> None:
    """Until the server says `session` is blocked (CLIENT LIST flag b), bounded."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while True:
        await pg.refresh_states()
        if session.state.blocked:
            return
        assert loop.time() < deadline, f"{session.name} never blocked"
        await asyncio.sleep(0.005)


async def test_blocking_pop_blocks_only_its_client(pg, a, b):
    pending = asyncio.create_task(send(pg, "A", [b"BLPOP", b"jobs", b"0"]))
    await _blocked(pg, a)
    assert a.state.pending == (b"BLPOP", b"jobs", b"0")
    assert not pending.done()
    assert await send(pg, "B", [b"RPUSH", b"jobs", b"j1"]) == 1
    reply = await asyncio.wait_for(pending, 5)
    assert render(reply) == b'1) "jobs"\n2) "j1"\n'
    assert not a.state.blocked and a.state.pending is None


async def test_cancel_pending_command_reconnects(pg, a, b):
    await send(pg, "A", [b"WATCH", b"w"])
    old_id = a.state.client_id
    pending = asyncio.create_task(line(pg, "A", [b"BLPOP", b"jobs", b"0"]))
    await _blocked(pg, a)  # the BLPOP waits on the server
    message = await a.cancel()
    result = await asyncio.wait_for(pending, 5)
    assert result.lost and not result.replies, "the cancelled BLPOP got no reply"
    assert "WATCH" in message and "cancelled" in message
    assert a.state.client_id != old_id and a.state.watched == ()
    assert await send(pg, "A", [b"PING"]) == b"PONG"
    # the old connection is really gone: B's push is not eaten by a ghost BLPOP
    await send(pg, "B", [b"RPUSH", b"jobs", b"j1"])
    assert await send(pg, "B", [b"LLEN", b"jobs"]) == 1


@pytest.mark.slow
async def test_busy_script_blocks_everyone_and_script_kill(pg, a, b):
    script = b"local t = redis.call('TIME')[1] + 10 while tonumber(redis.call('TIME')[1]) < t do end return 1"
    pending = asyncio.create_task(send(pg, "A", [b"EVAL", script, b"0"]))
    reply = None
    for _ in range(100):
        reply = await send(pg, "B", [b"GET", b"k"])
        if isinstance(reply, Err):
            break
        await asyncio.sleep(0.02)
    assert isinstance(reply, Err) and reply.code == "BUSY"
    assert a.state.busy_script
    assert await send(pg, "B", [b"SCRIPT", b"KILL"]) == b"OK"
    killed = await asyncio.wait_for(pending, 10)
    assert isinstance(killed, Err) and b"Script killed by user" in killed.message


async def test_subscribe_streams_messages(pg, a, b):
    seen = []
    ex = Executor(pg, seen.append)
    assert await send(ex, "A", [b"SUBSCRIBE", b"news", b"sport"]) is STREAMING
    await a.wait_stream_drained()
    assert [render(e.frame) for e in seen if isinstance(e, ev.Pushed)] == [
        b'1) "subscribe"\n2) "news"\n3) (integer) 1\n',
        b'1) "subscribe"\n2) "sport"\n3) (integer) 2\n']
    assert a.state.subscriptions == 2
    assert await send(ex, "B", [b"PUBLISH", b"news", b"hello"]) == 1
    await a.sync()
    assert render([e.frame for e in seen if isinstance(e, ev.Pushed)][-1]) == b'1) "message"\n2) "news"\n3) "hello"\n'
    await send(ex, "A", [b"UNSUBSCRIBE"])
    await a.wait_stream_drained()
    assert a.state.subscriptions == 0 and not a.streaming
    assert await send(ex, "A", [b"PING"]) == b"PONG"


async def test_hello3_switches_protocol_on_the_same_connection(pg, a):
    await send(pg, "A", [b"HSET", b"h", b"f", b"v"])
    await send(pg, "A", [b"HELLO", b"3"])
    assert a.state.resp == 3
    assert render(await send(pg, "A", [b"HGETALL", b"h"])) == b'1# "f" => "v"\n'


async def test_shutdown_nosave_then_restart(pg, a, b):
    await send(pg, "A", [b"SET", b"k", b"v"])
    old_pid = pg.server.process.pid
    result = await line(pg, "B", [b"SHUTDOWN", b"NOSAVE"])
    assert result.expected_stop and "gone" in result.server_gone and not result.replies
    assert pg.server_stopped()
    message = await pg.restart()
    assert "fresh server" in message
    assert pg.server.process.pid != old_pid
    assert await send(pg, "A", [b"GET", b"k"]) is Nil
    assert await send(pg, "B", [b"PING"]) == b"PONG"


@pytest.mark.slow
async def test_unkillable_script_then_shutdown(pg, a, b):
    script = (b"redis.call('SET', KEYS[1], 'x') local t = redis.call('TIME')[1] + 10 "
              b"while tonumber(redis.call('TIME')[1]) < t do end return 1")
    pending = asyncio.create_task(line(pg, "A", [b"EVAL", script, b"1", b"k"]))
    reply = None
    for _ in range(100):
        reply = await send(pg, "B", [b"SCRIPT", b"KILL"])
        if isinstance(reply, Err) and reply.code == "UNKILLABLE":
            break
        await asyncio.sleep(0.02)
    assert isinstance(reply, Err) and reply.code == "UNKILLABLE"
    result = await line(pg, "B", [b"SHUTDOWN", b"NOSAVE"])
    assert result.server_gone and result.expected_stop
    killed = await asyncio.wait_for(pending, 10)
    assert killed.server_gone and not killed.replies, "the script's client saw the server go"
    await pg.restart()
    assert await send(pg, "A", [b"EXISTS", b"k"]) == 0


async def test_url_mode_refuses_flush_without_flag(private_server):
    from playground.engine.playground import Playground
    from playground.resp.connection import Address

    url = Address(path=private_server.socket_path)
    async with Playground(url=url) as pg:
        result = await line(pg, "A", [b"FLUSHALL"])
        assert "allow-flush" in result.refused and not result.replies
        result = await line(pg, "A", [b"shutdown"])
        assert result.refused and not result.replies
        assert await send(pg, "A", [b"PING"]) == b"PONG"
    assert private_server.alive()  # closing a --url playground never stops that server
    async with Playground(url=url, allow_flush=True) as pg:
        assert await send(pg, "A", [b"FLUSHALL"]) == b"OK"



async def test_a_fresh_start_lifts_a_pause_a_client_left(pg):
    """CLIENT PAUSE … WRITE left by a scenario would hold the next part's flush (and
    setup) until it expires: a fresh start is a server with no pause."""
    import asyncio

    assert await send(pg, "A", [b"CLIENT", b"PAUSE", b"600000", b"WRITE"]) == b"OK"
    replies = await asyncio.wait_for(pg.reset([[b"SET", b"k", b"1"]]), 10)  # (a hang fails, never stalls)
    assert [bytes(r) for r in replies] == [b"OK"]
    assert await send(pg, "B", [b"GET", b"k"]) == b"1"


async def test_a_fresh_start_resets_every_client_in_one_wait_whatever_each_was_doing(pg):
    """The other clients' RESETs go out before the setter's round trip and are read
    after it: one in a transaction with a WATCH comes back clean, one that QUIT
    reconnects."""
    import asyncio

    assert await send(pg, "B", [b"WATCH", b"k"]) == b"OK"
    assert await send(pg, "B", [b"MULTI"]) == b"OK"
    assert pg.sessions["B"].state.in_multi and pg.sessions["B"].state.watched
    replies = await asyncio.wait_for(pg.reset([[b"SET", b"k", b"1"]]), 10)  # (a hang fails, never stalls)
    assert [bytes(r) for r in replies] == [b"OK"]
    state = pg.sessions["B"].state
    assert not state.in_multi and not state.watched and state.pending is None
    assert await send(pg, "B", [b"GET", b"k"]) == b"1"  # (not QUEUED: the transaction is gone)
    assert await send(pg, "B", [b"QUIT"]) == b"OK"
    assert pg.sessions["B"].state.disconnected
    await asyncio.wait_for(pg.reset(), 10)
    assert pg.sessions["B"].connected and not pg.sessions["B"].state.disconnected
    assert await send(pg, "B", [b"EXISTS", b"k"]) == 0


async def test_a_fresh_start_cut_short_leaves_no_reply_to_be_misread(pg):
    """A time limit that ends a fresh start while the setter waits (here a setup that
    blocks) leaves the other clients' RESET replies unread: their connections are
    closed, so the next command reconnects and never takes "RESET" for its reply."""
    import pytest

    reset = asyncio.ensure_future(pg.reset([[b"BLPOP", b"q", b"0"]]))
    await _blocked(pg, pg.sessions["A"])  # the setter waits: BLPOP q 0 never answers
    reset.cancel()  # as a time limit ends it
    with pytest.raises(asyncio.CancelledError):
        await reset
    ex = Executor(pg)
    first = await ex.run("B", [b"PING"])
    assert first.replies in ([], [Status(b"PONG")]), first.replies  # (lost, and reconnected)
    assert (await ex.run("B", [b"PING"])).replies == [Status(b"PONG")]
