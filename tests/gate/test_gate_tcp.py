"""The gate's TCP endpoint, for libraries that cannot use a unix socket: 127.0.0.1 only,
a random password the gate checks itself (never forwarded), on both real servers."""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

import pytest
import pytest_asyncio

from playground.gate.endpoint import Gate

redis = pytest.importorskip("redis.asyncio")
from redis.exceptions import AuthenticationError, ResponseError  # noqa: E402

WAIT = 10.0


@pytest_asyncio.fixture
async def gate(pg):
    g = Gate.for_playground(pg)
    g.run_free()
    yield g
    await g.close()


async def test_loopback_only_with_a_password(gate):
    url = urlparse(await gate.listen("A", tcp=True))
    assert url.scheme == "redis" and url.hostname == "127.0.0.1" and len(url.password) == 32
    server = gate._servers[("tcp", "A")]
    assert [s.getsockname()[0] for s in server.sockets] == ["127.0.0.1"]


@pytest.mark.parametrize("protocol", [2, 3])  # AUTH, then HELLO 3 AUTH default PASSWORD
async def test_redis_py_with_the_url(pg, gate, protocol):
    r = redis.Redis.from_url(await gate.listen("A", tcp=True), protocol=protocol)
    try:
        assert await r.set("k", "v") is True and await r.get("k") == b"v"
        assert await r.execute_command("ACL", "WHOAMI") == b"default"  # the learner user, not the gate's password
    finally:
        await r.aclose()


@pytest.mark.slow
async def test_no_or_a_wrong_password_is_refused(pg, gate):
    url = urlparse(await gate.listen("A", tcp=True))
    for password in (None, "wrong"):
        r = redis.Redis(host="127.0.0.1", port=url.port, password=password)
        try:
            with pytest.raises((AuthenticationError, ResponseError)):
                await r.set("k", "v")
        finally:
            await r.aclose()
    reply, = await pg.reader.run([[b"EXISTS", b"k"]])
    assert reply == 0


async def test_raw_socket_must_auth_first(pg, gate):
    url = urlparse(await gate.listen("raw", tcp=True))
    reader, writer = await asyncio.open_connection("127.0.0.1", url.port)
    try:
        writer.write(b"SET k v\r\nAUTH wrong\r\nAUTH %s\r\nPING\r\nAUTH %s\r\n"
                     % (url.password.encode(), url.password.encode()))
        want = (b"-NOAUTH Authentication required.\r\n"
                b"-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n+PONG\r\n+OK\r\n")
        assert await asyncio.wait_for(reader.readexactly(len(want)), WAIT) == want
    finally:
        writer.close()
