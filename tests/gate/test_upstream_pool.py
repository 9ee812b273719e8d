"""Server connections kept between the explorer's schedules (gate/upstream_pool.py): a gate
client's server connection is kept when it ends with nothing on its way, and the next
client of its name gets it back as a new connection would be: no MULTI, WATCH, database,
CLIENT REPLY mode or subscription of the last one's, its name, logged in as the learner.
What it left is asked of the server itself (CLIENT INFO, the replies). On both servers."""

from __future__ import annotations

import asyncio

import pytest

from playground.gate.endpoint import Gate
from playground.gate.upstream_pool import UpstreamPool
from gate_steps import WAIT


async def _attached(pg, pool: UpstreamPool):
    gate = Gate.for_playground(pg)
    gate.pool = pool
    client = await gate.attach("A", 1)
    return gate, client


async def _run(gate: Gate, client, *argv: bytes) -> bytes:
    """One command sent on the attached connection and released; its raw reply."""
    raw = b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv)
    held, = gate.hand(client, raw)
    if not held.unstepped:
        gate.release(held)
    return await asyncio.wait_for(held.done, WAIT)


def _info(reply: bytes) -> dict[str, str]:
    text = reply.split(b"\r\n", 1)[1].decode()   # (a bulk string: its length, then CLIENT INFO's fields)
    return dict(field.split("=", 1) for field in text.split() if "=" in field)


@pytest.mark.parametrize("left", [
    [[b"SELECT", b"1"]],
    [[b"MULTI"], [b"SET", b"k", b"queued"]],
    [[b"WATCH", b"k"]],
    [[b"CLIENT", b"SETNAME", b"other"]],
])
async def test_a_kept_connection_comes_back_as_a_new_one(pg, left):
    pool = UpstreamPool()
    try:
        gate, client = await _attached(pg, pool)
        first_id = client.server_id
        for argv in left:
            await _run(gate, client, *argv)
        await gate.close()   # (the schedule ends: its clients' connections are kept)
        gate, client = await _attached(pg, pool)
        assert client.server_id == first_id   # (the same server connection: kept, not new)
        info = _info(await _run(gate, client, b"CLIENT", b"INFO"))
        assert (info["name"], info["db"]) == ("A#1", "0")
        assert info["user"] == (pg.address.username or "default")
        assert await _run(gate, client, b"MULTI") == b"+OK\r\n"   # (not nested in the last one's)
        await pg.admin.run([[b"SET", b"k", b"touched"]])   # (a WATCH left would fail the EXEC)
        assert await _run(gate, client, b"SET", b"k", b"v") == b"+QUEUED\r\n"
        assert await _run(gate, client, b"EXEC") == b"*1\r\n+OK\r\n"
        reply, = await pg.reader.run([[b"GET", b"k"]])
        assert bytes(reply) == b"v"
        await gate.close()
    finally:
        pool.close()


async def test_a_connection_with_something_on_its_way_is_not_kept(pg):
    """A reply still due (a blocked BLPOP), or a message pushed: closed, and the next client
    of that name connects anew."""
    pool = UpstreamPool()
    try:
        gate, client = await _attached(pg, pool)
        first_id = client.server_id
        raw = b"*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n"
        held, = gate.hand(client, raw)
        gate.release(held)
        assert client.inflight
        await gate.close()
        gate, client = await _attached(pg, pool)
        assert client.server_id != first_id
        second_id = client.server_id
        await _run(gate, client, b"SUBSCRIBE", b"news")
        await pg.reader.run([[b"PUBLISH", b"news", b"hello"]])
        await gate.wait_for(lambda: client.pushed, WAIT)
        await gate.close()
        gate, client = await _attached(pg, pool)
        assert client.server_id not in (first_id, second_id)
        await gate.close()
    finally:
        pool.close()


async def test_a_kept_connection_the_server_closed_is_not_taken(pg):
    pool = UpstreamPool()
    try:
        gate, client = await _attached(pg, pool)
        first_id = client.server_id
        await gate.close()
        await pg.admin.run([[b"CLIENT", b"KILL", b"ID", b"%d" % first_id]])
        gate, client = await _attached(pg, pool)
        assert client.server_id != first_id
        assert await _run(gate, client, b"PING") == b"+PONG\r\n"
        await gate.close()
    finally:
        pool.close()
