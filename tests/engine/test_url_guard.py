"""--url on a server the test starts as "the user's" (no sandbox, no limits: as a user's
own server is): commands are judged by what the server says they are (rename-command),
RESTORE is refused, a cluster node refuses read-only scripts too, and a read-only script
a client of ours still runs is killed when its line is cancelled or the playground ends
(engine/guard.py, engine/url_guard.py)."""

from __future__ import annotations

import asyncio
import subprocess

import pytest
import redis

from commands import executor_of, line, send
from dump_payload import duplicate_field_payload
from playground.engine.playground import Playground
from playground.resp.address import Address
from playground.server.node import free_port
from user_servers import user_server





async def test_renamed_commands_are_judged_by_the_servers_own_name(server_binary, tmp_path):
    with user_server(server_binary, tmp_path, "rename-command flushall wipeall",
                     'rename-command sort ""', "rename-command swapdb sort") as (user, url):
        user.set("k0", "v0")
        async with Playground(url=Address.from_url(url)) as pg:
            for argv, own in (([b"WIPEALL"], "FLUSHALL"), ([b"wipeall", b"ASYNC"], "FLUSHALL"),
                              ([b"SORT", b"0", b"1"], "SWAPDB")):
                result = await line(pg, "A", argv)
                assert result.refused and not result.replies, argv
                assert result.refused.startswith(f"refused: {argv[0].decode().upper()} ({own})"), result.refused
            assert bytes(await send(pg, "A", [b"GET", b"k0"])) == b"v0"  # the rest still runs
        assert user.get("k0") == b"v0" and user.dbsize() == 1
        async with Playground(url=Address.from_url(url), allow_flush=True) as pg:  # disposable: all of it runs
            assert bytes(await send(pg, "A", [b"WIPEALL"])) == b"OK"
        assert user.dbsize() == 0


async def test_restore_is_refused_on_url_and_runs_with_allow_flush(server_binary, tmp_path):
    with user_server(server_binary, tmp_path) as (user, url):
        user.hset("h", mapping={"field-a": "1", "field-b": "2"})
        payload = duplicate_field_payload(user.dump("h"))
        async with Playground(url=Address.from_url(url)) as pg:
            result = await line(pg, "A", [b"RESTORE", b"h2", b"0", payload])
            assert result.refused and "RESTORE" in result.refused and "--allow-flush" in result.refused
            result = await line(pg, "A", [b"restore", b"h", b"0", payload, b"REPLACE"])
            assert result.refused and not result.replies
        assert user.exists("h2") == 0 and user.hgetall("h") == {b"field-a": b"1", b"field-b": b"2"}
        async with Playground(url=Address.from_url(url), allow_flush=True) as pg:
            good = user.dump("h")
            assert bytes(await send(pg, "A", [b"RESTORE", b"h3", b"0", good])) == b"OK"
        assert user.hgetall("h3") == {b"field-a": b"1", b"field-b": b"2"}


async def test_a_cluster_node_refuses_read_only_scripts_and_cluster_changes(server_binary, tmp_path):
    with user_server(server_binary, tmp_path, cluster=True) as (user, url):
        other = free_port()
        meet = b"return redis.call('CLUSTER', 'MEET', '127.0.0.1', '%d')" % other
        nodes = user.execute_command("CLUSTER", "NODES")
        async with Playground(url=Address.from_url(url)) as pg:
            assert pg.follows_redirects
            for argv in ([b"EVAL_RO", meet, b"0"], [b"EVALSHA_RO", b"0" * 40, b"0"], [b"FCALL_RO", b"f", b"0"],
                         [b"CLUSTER", b"MEET", b"127.0.0.1", b"%d" % other], [b"CLUSTER", b"FORGET", b"x"],
                         [b"CLUSTER", b"SETSLOT", b"1", b"STABLE"], [b"CLUSTER", b"FAILOVER", b"TAKEOVER"]):
                result = await line(pg, "A", argv)
                assert result.refused and not result.replies and "--allow-flush" in result.refused, argv
            assert b"cluster_enabled:1" in bytes(await send(pg, "A", [b"INFO", b"cluster"]))
        assert user.execute_command("CLUSTER", "NODES") == nodes  # nobody met, nothing forgotten


async def test_a_read_only_script_is_not_refused_off_cluster(server_binary, tmp_path):
    with user_server(server_binary, tmp_path) as (user, url):
        async with Playground(url=Address.from_url(url)) as pg:
            assert not pg.follows_redirects
            assert int(await send(pg, "A", [b"EVAL_RO", b"return 7", b"0"])) == 7


async def _until_busy(user) -> None:
    """Until the user's server answers BUSY (the script runs past its threshold)."""
    while True:
        try:
            await asyncio.to_thread(user.ping)
        except redis.exceptions.BusyLoadingError:
            return
        except redis.ResponseError as exc:
            assert "BUSY" in str(exc), exc
            return


SPIN_LIBRARY = (b"#!lua name=spin\n"
                b"redis.register_function{function_name='spin', flags={'no-writes'},\n"
                b"  callback=function() while true do end end}\n")


@pytest.mark.parametrize("how", ["close", "cancel"])
@pytest.mark.parametrize("spin", [[b"EVAL_RO", b"while true do end", b"0"], [b"FCALL_RO", b"spin", b"0"]],
                         ids=["script", "function"])
async def test_a_running_read_only_script_is_killed_when_the_playground_leaves_it(server_binary, tmp_path, how, spin):
    with user_server(server_binary, tmp_path, "lua-time-limit 50") as (user, url):
        user.set("k0", "v0")
        user.execute_command("FUNCTION", "LOAD", SPIN_LIBRARY)
        pg = Playground(url=Address.from_url(url))
        await pg.start()
        try:
            running = asyncio.ensure_future(line(pg, "A", spin, refresh=False))
            await _until_busy(user)
            assert not running.done()
            if how == "cancel":
                assert await executor_of(pg).cancel("A")
                await asyncio.gather(running, return_exceptions=True)
                assert await asyncio.to_thread(user.ping)  # killed: the server serves again
                assert bytes(await send(pg, "A", [b"GET", b"k0"])) == b"v0"
        finally:
            await pg.close()
            await asyncio.gather(running, return_exceptions=True)
        assert await asyncio.to_thread(user.ping)
        assert user.get("k0") == b"v0"


def test_repl_ended_while_its_read_only_script_runs_leaves_the_server_serving(server_binary, tmp_path):
    """`repl --url` stopped (SIGTERM) while a script it sent in a pipelined run loops:
    the script is killed on the way out, the user's server is not left BUSY."""
    import signal
    import sys

    with user_server(server_binary, tmp_path, "lua-time-limit 50") as (user, url):
        repl = subprocess.Popen([sys.executable, "-m", "playground", "--url", url, "repl"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            repl.stdin.write(b'SET k v\nEVAL_RO "while true do end" 0\n')
            repl.stdin.flush()
            asyncio.run(_until_busy(user))
            repl.send_signal(signal.SIGTERM)
            repl.wait(timeout=30)
        finally:
            if repl.poll() is None:
                repl.kill()
                repl.wait()
        assert user.ping() and user.get("k") == b"v"
