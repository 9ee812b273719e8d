"""Bad and hostile input: what --url refuses (scripts included; what the private server
refuses is its own ACL: tests/server/test_sandbox.py), bad --url values, global options in
either place, bad client names, and one line instead of a traceback when a --url server cannot be used.

The --url tests point the playground at a throwaway server of their own (the
`private_server` fixture: a unix socket in a temp dir) and check its data afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.engine.guard import refusal
from playground.engine.playground import Playground
from playground.resp.connection import Address, TypedConnection
from playground.resp.replies import Err
from timing_lines import without_timing
from commands import line, send
from paths import SRC as SRC_DIR

SRC = str(SRC_DIR)
SECRET = "s3cr3t-pw"
FLUSHING_LIBRARY = (b"#!lua name=hostile\n"
                    b"redis.register_function('wipe', function() return redis.call('FLUSHALL') end)\n"
                    b"redis.register_function{function_name='wipe_ro', flags={'no-writes'},\n"
                    b"  callback=function() return redis.call('FLUSHALL') end}\n")
WIPE_SCRIPT = b"return redis.call('FLUSHALL')"


async def _raw(server, *commands: list[bytes]) -> list:
    """Run commands on the server over a connection of the test's own."""
    conn = TypedConnection(Address(path=server.socket_path))
    await conn.connect()
    try:
        return await conn.pipeline(list(commands))
    finally:
        await conn.close()


async def _seed(server) -> None:
    await _raw(server, [b"SET", b"k0", b"v0"], [b"SELECT", b"1"], [b"SET", b"k1", b"v1"], [b"SELECT", b"0"],
               [b"SCRIPT", b"LOAD", WIPE_SCRIPT], [b"FUNCTION", b"LOAD", FLUSHING_LIBRARY])


async def _assert_untouched(server) -> None:
    import hashlib

    sha = hashlib.sha1(WIPE_SCRIPT).hexdigest().encode()
    k0, _, k1, _, cached, libs, role, port = await _raw(
        server, [b"GET", b"k0"], [b"SELECT", b"1"], [b"GET", b"k1"], [b"SELECT", b"0"],
        [b"SCRIPT", b"EXISTS", sha], [b"FUNCTION", b"LIST"], [b"ROLE"], [b"CONFIG", b"GET", b"port"])
    assert (bytes(k0), bytes(k1)) == (b"v0", b"v1")
    assert [int(x) for x in cached] == [1]
    assert len(libs) == 1
    assert bytes(role[0]) == b"master"
    assert bytes(port[1]) == b"0"


HOSTILE_ON_URL = [
    [b"EVAL", WIPE_SCRIPT, b"0"],
    [b"eval", b"return redis.call(('flush'):upper()..'ALL')", b"0"],
    [b"EVAL", b"return redis.call('SWAPDB', 0, 1)", b"0"],
    [b"EVALSHA", b"0" * 40, b"0"],
    [b"FCALL", b"wipe", b"0"],
    [b"FUNCTION", b"FLUSH"], [b"function", b"delete", b"hostile"], [b"FUNCTION", b"RESTORE", b"x"],
    [b"FUNCTION", b"LOAD", b"REPLACE", FLUSHING_LIBRARY], [b"FUNCTION", b"LOAD", FLUSHING_LIBRARY],
    [b"SCRIPT", b"FLUSH"], [b"FLUSHALL"], [b"flushdb", b"ASYNC"], [b"SWAPDB", b"0", b"1"],
    [b"REPLICAOF", b"127.0.0.1", b"1"], [b"SLAVEOF", b"127.0.0.1", b"1"], [b"FAILOVER"],
    [b"CONFIG", b"SET", b"maxmemory", b"1"], [b"CONFIG", b"REWRITE"], [b"CONFIG", b"RESETSTAT"],
    [b"DEBUG", b"RELOAD"], [b"SHUTDOWN", b"NOSAVE"], [b"MIGRATE", b"127.0.0.1", b"1", b"k0", b"0", b"100"],
    [b"SAVE"], [b"BGSAVE"], [b"BGREWRITEAOF"], [b"ACL", b"SETUSER", b"x"], [b"ACL", b"DELUSER", b"x"],
    [b"ACL", b"LOAD"], [b"ACL", b"SAVE"], [b"MODULE", b"LOAD", b"/tmp/x.so"],
    [b"CLUSTER", b"RESET"], [b"CLUSTER", b"FLUSHSLOTS"],
    [b"SCRIPT", b"DEBUG", b"SYNC"], [b"script", b"debug", b"yes"], [b"CLIENT", b"PAUSE", b"3000", b"ALL"],
    [b"CLIENT", b"KILL", b"TYPE", b"normal", b"SKIPME", b"yes"], [b"client", b"kill", b"127.0.0.1:1"],
    [b"SYNC"], [b"PSYNC", b"?", b"-1"], [b"ACL", b"LOG", b"RESET"], [b"RESTORE", b"k9", b"0", b"payload"],
]


async def test_url_refuses_what_would_wipe_or_reconfigure_and_the_data_survives(private_server):
    await _seed(private_server)
    pg = Playground(url=Address(path=private_server.socket_path))
    async with pg:
        for argv in HOSTILE_ON_URL:
            result = await line(pg, "A", argv)
            message = result.refused
            assert message and not result.replies
            assert "\n" not in message and "--allow-flush" in message
            assert message.startswith(f"refused: {argv[0].decode().upper()}")
        # The read-only forms run: the server itself refuses the write inside them.
        for argv in ([b"EVAL_RO", WIPE_SCRIPT, b"0"],
                     [b"EVAL_RO", b"return redis.call(('flush'):upper()..'ALL')", b"0"],
                     [b"FCALL_RO", b"wipe_ro", b"0"], [b"FCALL_RO", b"wipe", b"0"]):
            assert isinstance(await send(pg, "A", argv), Err)
        # Reading, and writing a key the user names, still work.
        assert bytes(await send(pg, "A", [b"GET", b"k0"])) == b"v0"
        assert bytes((await send(pg, "A", [b"CONFIG", b"GET", b"port"]))[1]) == b"0"
        await send(pg, "A", [b"SET", b"mine", b"1"])
    await _assert_untouched(private_server)


async def test_allow_flush_says_the_url_server_is_disposable(private_server):
    await _seed(private_server)
    async with Playground(url=Address(path=private_server.socket_path), allow_flush=True) as pg:
        assert bytes(await send(pg, "A", [b"EVAL", WIPE_SCRIPT, b"0"])) == b"OK"
        assert int(await send(pg, "A", [b"DBSIZE"])) == 0


async def test_read_only_scripts_reach_nothing_that_changes_the_server(pg):
    """Pins what guard.py's docstring says: every command a read-only script may call and
    that is not flagged readonly is harmless, or a CLUSTER subcommand (cluster mode only)."""
    reply, = await pg.reader.run([[b"COMMAND"]])

    def walk(entries):
        for entry in entries:
            subcommands = entry[9] if len(entry) > 9 else []
            if subcommands:
                yield from walk(subcommands)
            else:
                yield bytes(entry[0]).decode(), {bytes(f).decode() for f in entry[2]}

    reachable = {name for name, flags in walk(reply) if not flags & {"noscript", "write", "readonly"}}
    harmless = {"asking", "echo", "info", "lastsave", "pfselftest", "ping", "publish", "readonly",
                "readwrite", "select", "spublish", "time", "wait", "waitaof"}
    families = ("cluster|", "command|", "memory|", "pubsub|", "slowlog|", "commandlog|")
    left = {n for n in reachable - harmless if not n.endswith("|help") and not n.startswith(families)}
    assert reachable and not left
    for name in ("flushall", "swapdb", "config|set", "replicaof", "shutdown", "debug", "acl|setuser"):
        assert name not in reachable


def test_a_dangerous_command_the_guard_has_not_reviewed_is_refused_on_url():
    """A newer server's @dangerous command is refused under --url until it is reviewed."""
    dangerous = frozenset({b"newadmin", b"client|newsub", b"keys"})
    message = refusal([b"NEWADMIN", b"x"], private=False, allow_flush=False, where="h:1", dangerous=dangerous)
    assert message and "NEWADMIN" in message and "has not reviewed it" in message
    assert refusal([b"client", b"newsub"], private=False, allow_flush=False, where="h:1", dangerous=dangerous)
    assert refusal([b"CLIENT", b"SETNAME", b"a"], private=False, allow_flush=False, where="h:1",
                   dangerous=dangerous) is None
    assert refusal([b"KEYS", b"*"], private=False, allow_flush=False, where="h:1", dangerous=dangerous) is None
    assert refusal([b"NEWADMIN"], private=False, allow_flush=True, where="h:1", dangerous=dangerous) is None


async def test_every_dangerous_command_of_the_servers_is_reviewed(private_server):
    """The guard's review list against the server's own: a server version that files a
    new command as @dangerous fails here until the guard decides about it."""
    from playground.engine.guard import REVIEWED_DANGEROUS

    pg = Playground(url=Address(path=private_server.socket_path))
    async with pg:
        assert len(pg.dangerous) > 50  # the server listed them (Redis 7.0 and Valkey 9 can)
        assert sorted(pg.dangerous - REVIEWED_DANGEROUS) == []
        for argv in ([b"CLIENT", b"UNBLOCK", b"1"], [b"SLOWLOG", b"RESET"], [b"LATENCY", b"RESET"],
                     [b"PFDEBUG", b"GETREG", b"h"], [b"REPLCONF", b"ACK", b"0"]):
            result = await line(pg, "A", argv)
            assert result.refused and not result.replies
        role = await send(pg, "A", [b"ROLE"])
        assert bytes(role[0]) == b"master"  # a reviewed one passes


def test_guard_is_a_pure_policy():
    assert refusal([b"FLUSHALL"], private=True, allow_flush=False, where="x") is None
    assert refusal([b"FLUSHALL"], private=False, allow_flush=True, where="x") is None
    assert refusal([b"EVAL_RO", b"return 1", b"0"], private=False, allow_flush=False, where="x") is None
    assert "FUNCTION DELETE" in refusal([b"FUNCTION", b"LOAD", FLUSHING_LIBRARY], private=False, allow_flush=False,
                                        where="x")  # what it loads, it could not delete
    assert "COMMAND INFO" in refusal([b"GET", b"k"], private=False, allow_flush=False, where="x", identified=False)
    assert refusal([b"GET", b"k"], private=False, allow_flush=True, where="x", identified=False) is None
    assert refusal([b"CONFIG", b"GET", b"*"], private=False, allow_flush=False, where="x") is None
    assert refusal([b"CONFIG", b"SET", b"port"], private=False, allow_flush=False, where="x")  # odd arity too
    assert "h:1" in refusal([b"SWAPDB", b"0", b"1"], private=False, allow_flush=False, where="h:1")


# -- --url parsing ------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    "redis://127.0.0.1:0", f"redis://:{SECRET}@127.0.0.1:0", f"redis://u:{SECRET}@h:99999",
    f"redis://:{SECRET}@h:port", "redis://h:", f"http://:{SECRET}@h", "redis://h/abc", "redis://h/1/2",
    "redis://h?db=1", "unix:///tmp/s?db=x", "unix:///tmp/s?foo=1", "unix://host/tmp/s", "unix://",
    f"redis://:{SECRET}@[::1", "redis://h/-1",
])
def test_bad_url_is_one_line_without_the_password(url):
    with pytest.raises(ValueError) as bad:
        Address.from_url(url)
    message = str(bad.value)
    assert message.startswith("bad --url ") and "\n" not in message and SECRET not in message


def test_good_urls():
    assert Address.from_url(f"redis://u:{SECRET}@h:6380/2") == Address(host="h", port=6380, db=2,
                                                                      username="u", password=SECRET)
    assert Address.from_url("unix:///tmp/s.sock?db=3") == Address(path="/tmp/s.sock", db=3)
    assert Address.from_url("redis://h").port == 6379
    assert SECRET not in Address.from_url(f"redis://:{SECRET}@h:1").describe()


# -- the command line -----------------------------------------------------------------

def _cli(*args: str, stdin: str = "", cwd: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("REDIS_PLAYGROUND_SERVER", None)
    return subprocess.run([sys.executable, "-m", "playground", *args], input=stdin, capture_output=True,
                          text=True, timeout=60, env=env, cwd=cwd)


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_url_cli_refuses_a_flushing_script_and_the_data_survives(private_server):
    import asyncio

    asyncio.run(_seed(private_server))
    proc = _cli("--url", f"unix://{private_server.socket_path}", "repl",
                stdin=f'A> EVAL "{WIPE_SCRIPT.decode()}" 0\nA> GET k0\n')
    assert "refused: EVAL" in proc.stderr and without_timing(proc.stdout.splitlines())[-1] == '"v0"'
    asyncio.run(_assert_untouched(private_server))


def test_url_errors_never_show_the_password(tmp_path):
    line = _one_line_error(_cli("--url", f"redis://:{SECRET}@127.0.0.1:0", "repl"))
    assert "no password on the command line" in line and SECRET not in line
    url_file = tmp_path / "url"
    url_file.write_text(f"redis://:{SECRET}@127.0.0.1:0")
    url_file.chmod(0o600)
    line = _one_line_error(_cli("--url-file", str(url_file), "repl"))
    assert "bad --url" in line and SECRET not in line
    url_file.write_text(f"unix://:{SECRET}@{tmp_path}/missing.sock")
    line = _one_line_error(_cli("repl", "--url-file", str(url_file)))
    assert "cannot connect" in line and SECRET not in line


@pytest.mark.parametrize("args", [
    ["--server", "bundled", "run", "watch-abort"],
    ["run", "watch-abort", "--server", "bundled"],
    ["--server", "bundled", "run", "watch-abort", "--server", "bundled"],
])
def test_global_options_before_or_after_the_subcommand(args):
    proc = _cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert "on Valkey" in proc.stdout.splitlines()[1]


def test_global_options_reach_repl_and_list(tmp_path):
    proc = _cli("--server", "bundled", "--clients", "X,Y", "repl", stdin="Y> PING\n")
    assert proc.returncode == 0 and proc.stdout == "PONG\n" and "Valkey" in proc.stderr
    source = Path(SRC).parent / "scenarios" / "watch-abort.toml"
    (tmp_path / "mine-only.toml").write_text(source.read_text())
    assert "mine-only" in _cli("--scenarios", str(tmp_path), "list").stdout


def test_conflicting_or_bad_global_options_are_one_line(private_server):
    line = _one_line_error(_cli("--server", "bundled", "run", "watch-abort", "--server", "system"))
    assert "--server" in line and "different values" in line
    assert "server binary not found: /nonexistent" in _one_line_error(_cli("--server", "/nonexistent", "repl"))
    url = f"unix://{private_server.socket_path}"
    proc = _cli("--url", url, "repl", stdin="A> CONFIG GET port\n")
    assert proc.returncode == 0 and private_server.socket_path in proc.stderr  # --url before repl is used


@pytest.mark.parametrize("names", ["ÄB,C", "A,a", "1A", "A B", "A,B;C", ",", "x" * 33])
def test_bad_client_names_are_refused_without_traceback(names):
    proc = _cli("repl", "--server", "bundled", "--clients", names)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--clients" in proc.stderr.strip().splitlines()[-1]


# -- run/check on a --url server that cannot be used ---------------------------------------------

def test_run_and_check_on_url_say_one_line(private_server, tmp_path):
    import asyncio

    asyncio.run(_seed(private_server))
    url = f"unix://{private_server.socket_path}"
    for args in (["run", "watch-abort", "--url", url], ["--url", url, "check", "watch-abort"]):
        assert "--allow-flush" in _one_line_error(_cli(*args))
    asyncio.run(_assert_untouched(private_server))
    for where in ("redis://127.0.0.1:1", f"unix://{tmp_path}/missing.sock"):
        for args in (["run", "watch-abort"], ["check"]):
            line = _one_line_error(_cli(*args, "--url", where, "--allow-flush"))
            assert "cannot connect" in line
