"""--url fails closed (engine/guard.py, engine/url_guard.py, engine/catalogue.py), on a
server of the test's own (a unix socket): a command name the server would not describe
(a user who may not run COMMAND) is refused, so a FLUSHDB renamed WIPEDB no longer empties
the user's database; FUNCTION LOAD is refused as FUNCTION DELETE is; what the server files
under @dangerous is read from COMMAND INFO too; and the key inspector leaves nothing in
the user's script cache."""

from __future__ import annotations

import secrets

import pytest
from commands import line, send
from user_servers import user_server

from playground.engine.key_reader import SNAPSHOT_SHA
from playground.engine.playground import Playground
from playground.resp.address import Address

pytestmark = [pytest.mark.server]

KEYS = 21
LIBRARY = b"#!lua name=mine\nredis.register_function('seven', function() return 7 end)\n"


def _with_user(url: str, user: str, password: str) -> Address:
    """The URL with an ACL user (the password as --user and $REDISCLI_AUTH give it)."""
    return Address.from_url(url).with_options(user=user, password=password)


async def test_a_renamed_flushdb_is_refused_when_the_user_may_not_run_command(server_binary, tmp_path):
    password = secrets.token_hex(16)
    with user_server(server_binary, tmp_path, "rename-command flushdb wipedb",
                     f"user limited on >{password} ~* &* +@all -command") as (user, url):
        user.mset({f"k{i}": i for i in range(KEYS)})
        async with Playground(url=_with_user(url, "limited", password)) as pg:
            for argv in ([b"WIPEDB"], [b"wipedb", b"ASYNC"], [b"GET", b"k0"]):
                result = await line(pg, "A", argv)
                assert result.refused and not result.replies, argv
                assert "cannot tell which command" in result.refused and "--allow-flush" in result.refused
                assert "NOPERM" in result.refused
        assert user.dbsize() == KEYS
        async with Playground(url=_with_user(url, "limited", password), allow_flush=True) as pg:
            assert int(await send(pg, "A", [b"DBSIZE"])) == KEYS  # disposable: it runs as typed
            assert bytes(await send(pg, "A", [b"WIPEDB"])) == b"OK"
        assert user.dbsize() == 0


async def test_an_unknown_name_still_gets_the_servers_own_error(server_binary, tmp_path):
    """The server said it has no such command: sending it cannot harm, redis-cli's error shows."""
    with user_server(server_binary, tmp_path) as (_, url):
        async with Playground(url=Address.from_url(url)) as pg:
            result = await line(pg, "A", [b"NOSUCHCOMMAND", b"x"])
            assert not result.refused
            assert b"unknown command" in bytes(result.replies[0].message)


async def test_function_load_is_refused_as_function_delete_is(server_binary, tmp_path):
    with user_server(server_binary, tmp_path) as (user, url):
        async with Playground(url=Address.from_url(url)) as pg:
            for argv in ([b"FUNCTION", b"LOAD", LIBRARY], [b"function", b"load", b"REPLACE", LIBRARY],
                         [b"FUNCTION", b"DELETE", b"mine"]):
                result = await line(pg, "A", argv)
                assert result.refused and "FUNCTION" in result.refused and "--allow-flush" in result.refused, argv
            assert await send(pg, "A", [b"FUNCTION", b"LIST"]) == []
        assert user.function_list() == []
        async with Playground(url=Address.from_url(url), allow_flush=True) as pg:
            assert bytes(await send(pg, "A", [b"FUNCTION", b"LOAD", LIBRARY])) == b"mine"
            assert bytes(await send(pg, "A", [b"FUNCTION", b"DELETE", b"mine"])) == b"OK"


def _raw(user, *args):
    """A reply as the server sent it (redis-py reads any COMMAND reply as COMMAND's)."""
    connection = user.connection_pool.get_connection()
    try:
        connection.send_command(*args)
        return connection.read_response()
    finally:
        user.connection_pool.release(connection)


async def test_the_servers_dangerous_commands_are_read_from_command_info_too(server_binary, tmp_path):
    """What COMMAND INFO files under @dangerous (each subcommand too) is what COMMAND LIST
    FILTERBY ACLCAT dangerous lists: a user who may run only COMMAND INFO loses nothing."""
    with user_server(server_binary, tmp_path) as (user, url):
        everything = [bytes(n).lower() for n in _raw(user, "COMMAND", "LIST")]
        listed = {bytes(n).lower() for n in _raw(user, "COMMAND", "LIST", "FILTERBY", "ACLCAT", "dangerous")}
        async with Playground(url=Address.from_url(url)) as pg:
            names = sorted({n.split(b"|")[0] for n in everything})
            await pg.catalogue.learn(names)
            found = set().union(*(pg.catalogue.dangerous(n) for n in names))
        assert found == listed


async def test_an_unreviewed_dangerous_command_is_refused_without_command_list(server_binary, tmp_path, monkeypatch):
    """A user who may run COMMAND INFO but not COMMAND LIST: the guard still knows what
    the server files as dangerous (here: FLUSHALL taken off the reviewed list)."""
    from playground.engine import guard

    password = secrets.token_hex(16)
    monkeypatch.setattr(guard, "_URL_REFUSED", {k: v for k, v in guard._URL_REFUSED.items() if k != b"flushall"})
    monkeypatch.setattr(guard, "REVIEWED_DANGEROUS", guard.REVIEWED_DANGEROUS - {b"flushall"})
    with user_server(server_binary, tmp_path, "rename-command flushall wipeall",
                     f"user limited on >{password} ~* &* +@all -command +command|info") as (user, url):
        user.set("k0", "v0")
        async with Playground(url=_with_user(url, "limited", password)) as pg:
            assert pg.dangerous == frozenset()  # COMMAND LIST: NOPERM
            result = await line(pg, "A", [b"WIPEALL"])
            assert result.refused and "dangerous" in result.refused and not result.replies
        assert user.dbsize() == 1


def _cached_scripts(user) -> int:
    return int(user.info("memory")["number_of_cached_scripts"])


async def test_the_inspector_leaves_nothing_in_the_users_script_cache(server_binary, tmp_path):
    with user_server(server_binary, tmp_path) as (user, url):
        user.mset({f"k{i}": i for i in range(KEYS)})
        before = _cached_scripts(user)
        async with Playground(url=Address.from_url(url)) as pg:
            snapshot = await pg.reader.snapshot()
            assert len(snapshot.keys) == KEYS and snapshot.complete
            detail = await pg.reader.detail(b"k3")
            assert detail
        assert user.script_exists(SNAPSHOT_SHA) == [False]
        assert _cached_scripts(user) == before == 0


async def test_the_inspector_reads_with_its_script_on_the_private_server(pg, a):
    """(Where the cache is the playground's own, one round trip: its script.)"""
    await a.execute([b"SET", b"k", b"v"])
    snapshot = await pg.reader.snapshot()
    assert [k.name for k in snapshot.keys] == [b"k"]
    reply, = await pg.reader.run([[b"SCRIPT", b"EXISTS", SNAPSHOT_SHA.encode()]])
    assert reply == [1]
