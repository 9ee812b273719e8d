"""One command cannot grow a private server past its address space (server/sandbox.py
`limit_config`): maxmemory is checked before a command, so what one command may add is
bounded by the server's own limits, it answers with its own error (or closes that client),
and the server stays up with every key kept. Before, `SETRANGE big 536870911 x` made the
server allocate 512 MB, the allocator failed under the address-space cap and the server
aborted, every key lost."""

from __future__ import annotations

import socket

import pytest

from playground.resp.replies import Err

# A server of its own each: these push a server to its bounds, and what a server keeps of
# that (the allocator's mappings, a killed client's buffers not yet freed) would count
# against the next test's.
pytestmark = [pytest.mark.server, pytest.mark.fresh_server]

SEEDED = 21


async def _seed(a) -> None:
    for i in range(SEEDED):
        assert await a.execute([b"SET", b"k%d" % i, b"v%d" % i]) == b"OK"


async def _all_kept(pg) -> None:
    """The server answers (on a new connection of the app's own) and every seeded key is there."""
    reply, = await pg.reader.run([[b"MGET", *[b"k%d" % i for i in range(SEEDED)]]])
    assert [bytes(v) for v in reply] == [b"v%d" % i for i in range(SEEDED)]
    assert pg.server.alive()


async def test_setrange_past_the_bulk_limit_gets_the_servers_error(pg, a):
    await _seed(a)
    reply = await a.execute([b"SETRANGE", b"big", b"536870911", b"x"])
    assert isinstance(reply, Err) and b"proto-max-bulk-len" in reply.message, reply
    reply = await a.execute([b"SETBIT", b"bits", b"4294967295", b"1"])
    assert isinstance(reply, Err) and b"out of range" in reply.message, reply
    assert await a.execute([b"EXISTS", b"big", b"bits"]) == 0
    await _all_kept(pg)


async def test_a_script_of_large_setranges_stops_at_the_first_with_the_servers_error(pg, a):
    await _seed(a)
    script = (b"redis.call('SET', 'before', '1') "
              b"for i = 1, 3 do redis.call('SETRANGE', 'big' .. i, 536870911, 'x') end return 'done'")
    reply = await a.execute([b"EVAL", script, b"0"])
    assert isinstance(reply, Err) and b"proto-max-bulk-len" in reply.message, reply
    assert await a.execute([b"GET", b"before"]) == b"1"  # atomic, not rolled back: the earlier write stays
    assert await a.execute([b"EXISTS", b"big1"]) == 0
    await _all_kept(pg)


def _learner_socket(pg) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(pg.server.socket_path)
    return sock


def _read_until_closed(sock: socket.socket) -> int:
    total = 0
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except ConnectionResetError:
            return total
        if not chunk:
            return total
        total += len(chunk)


@pytest.mark.slow
async def test_one_mset_of_many_big_arguments_closes_that_client_and_keeps_every_key(pg, a):
    """30 arguments of 15 MB each: every one is under the bulk limit, together they are more
    than the server may map; the clients' memory limit closes the client on the way."""
    await _seed(a)
    value = b"x" * (15 << 20)
    pairs = 30
    with _learner_socket(pg) as sock:
        try:
            sock.sendall(b"*%d\r\n$4\r\nMSET\r\n" % (1 + 2 * pairs))
            for i in range(pairs):
                key = b"m%d" % i
                sock.sendall(b"$%d\r\n%s\r\n$%d\r\n" % (len(key), key, len(value)))
                sock.sendall(value)
                sock.sendall(b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed by the server, as it should be
        _read_until_closed(sock)
    await _all_kept(pg)
    assert await a.execute([b"EXISTS", b"m0"]) == 0


@pytest.mark.slow
async def test_a_reply_bigger_than_the_server_may_map_closes_that_client_and_keeps_every_key(pg, a):
    await _seed(a)
    assert await a.execute([b"SADD", b"s", b"x"]) == 1
    with _learner_socket(pg) as sock:
        sock.sendall(b"*3\r\n$11\r\nSRANDMEMBER\r\n$1\r\ns\r\n$10\r\n-100000000\r\n")
        received = _read_until_closed(sock)
    assert received < 100_000_000 * 7  # cut short: the whole reply is 700 MB
    await _all_kept(pg)
