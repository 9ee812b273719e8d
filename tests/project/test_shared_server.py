"""The suite's shared server (servers.SharedServers): what a test leaves on it is gone
before the next test, on the same process when that can be done, on a new one when not."""

from __future__ import annotations

import redis

import pytest

from servers import SHARED

pytestmark = [pytest.mark.server]


def _admin(server) -> redis.Redis:
    address = server.admin_address
    return redis.Redis(unix_socket_path=address.path, username=address.username, password=address.password)


def test_what_a_test_leaves_is_gone_before_the_next(server_binary):
    server = SHARED.get(server_binary)
    pid, resets = server.process.pid, server.resets
    r = _admin(server)
    r.set("left", "behind")
    r.select(3)
    r.set("in-db-3", "x")
    r.script_load("return 1")
    r.execute_command("FUNCTION", "LOAD", "#!lua name=leftlib\nredis.register_function('f', function() return 1 end)")
    r.config_set("maxmemory-policy", "allkeys-lru")
    r.config_set("notify-keyspace-events", "KEA")
    blocked = redis.Redis(unix_socket_path=server.socket_path)
    blocked.execute_command("CLIENT", "SETNAME", "left-open")
    r.execute_command("CLIENT", "PAUSE", "60000", "WRITE")

    SHARED.next_test()
    again = SHARED.get(server_binary)

    assert again is server and server.process.pid == pid and server.resets == resets + 1
    r = _admin(server)
    assert r.dbsize() == 0 and r.select(3) and r.dbsize() == 0
    assert r.script_exists("e0e1f9fabfc9d4800c877a703b823ac0578ff8db") == [False]
    assert r.execute_command("FUNCTION", "LIST") == []
    assert r.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": ""}
    assert b"left-open" not in r.execute_command("CLIENT", "LIST")
    assert r.set("written", "now")  # no pause left


def test_a_memory_peak_past_half_of_maxmemory_gives_a_new_process(server_binary):
    """A test that filled the server's memory leaves a peak no command sets back (CONFIG
    RESETSTAT does not): on that process the explorer would judge every later exploration's
    memory tight and run every order. A new process instead."""
    from servers import _memory_tight

    server = SHARED.get(server_binary)
    pid = server.process.pid
    r = _admin(server)
    assert not _memory_tight(r)
    limit = int(r.config_get("maxmemory")["maxmemory"])
    chunk = b"x" * (1 << 20)
    for i in range(limit // len(chunk) // 2 + 2):
        r.set(f"fill:{i}", chunk)
    r.flushall()
    assert _memory_tight(r)   # (its peak stays)

    SHARED.next_test()
    assert SHARED.get(server_binary).process.pid != pid
    assert not _memory_tight(_admin(server))


def test_users_changed_or_a_dead_server_give_a_new_process(server_binary):
    server = SHARED.get(server_binary)
    pid = server.process.pid
    _admin(server).execute_command("ACL", "SETUSER", "intruder", "on", ">pw", "+@all", "~*")

    SHARED.next_test()
    assert SHARED.get(server_binary).process.pid != pid   # users cannot be set back: a new process
    assert b"intruder" not in b" ".join(_admin(server).execute_command("ACL", "LIST"))

    pid = server.process.pid
    server.process.kill()
    server.process.wait()
    SHARED.next_test()
    assert SHARED.get(server_binary).alive() and server.process.pid != pid


def test_a_playground_closing_leaves_the_shared_server_running(server_binary):
    import asyncio

    from playground.engine.playground import Playground

    server = SHARED.get(server_binary)

    async def use() -> None:
        async with Playground(server=server) as pg:
            await pg.session("A").execute([b"SET", b"k", b"v"])

    asyncio.run(use())
    assert server.alive()
