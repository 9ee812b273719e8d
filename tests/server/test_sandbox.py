"""The sandbox the private server enforces (server/sandbox.py), tried as an attacker would:
typed, from inside EVAL and from inside FCALL, with a "user's own" Redis on 127.0.0.1
holding data that must survive. Nothing here is refused by the app: the server says no."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time

import pytest

from playground.engine.guard import refusal
from playground.resp.replies import Err
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.server.node import free_port
from playground.server.children import stop_group
from playground.server.sandbox import ADMIN_USER, learner_rules

from paths import SCENARIOS

# What a learner may not do, each with what the server would otherwise do.
FORBIDDEN = [
    [b"MIGRATE", b"127.0.0.1", b"1", b"k", b"0", b"100"],
    [b"CLUSTER", b"MEET", b"127.0.0.1", b"1"],
    [b"CLUSTER", b"RESET"],
    [b"CLUSTER", b"FORGET", b"0" * 40],
    [b"REPLICAOF", b"127.0.0.1", b"1"],
    [b"REPLICAOF", b"NO", b"ONE"],
    [b"SLAVEOF", b"127.0.0.1", b"1"],
    [b"FAILOVER"],
    [b"SYNC"],
    [b"PSYNC", b"?", b"-1"],
    [b"ACL", b"SETUSER", b"intruder", b"on", b"nopass", b"~*", b"+@all"],
    [b"ACL", b"DELUSER", ADMIN_USER.encode()],
    [b"ACL", b"LIST"],
    [b"CONFIG", b"SET", b"port", b"6391"],
    [b"CONFIG", b"SET", b"protected-mode", b"no"],
    [b"CONFIG", b"SET", b"requirepass", b"x"],
    [b"CONFIG", b"SET", b"maxmemory", b"1"],
    [b"CONFIG", b"REWRITE"],
    [b"DEBUG", b"SLEEP", b"0"],
    [b"MODULE", b"LIST"],
]
IDS = [b" ".join(argv[:2]).decode() for argv in FORBIDDEN]


def _denied(reply) -> bool:
    """An error the ACL gave (or, for a noscript command inside a script, the script engine;
    for DEBUG and MODULE the server's enable-*-command, which it checks before the ACL)."""
    if not isinstance(reply, Err):
        return False
    text = bytes(reply.message)
    return (text.startswith(b"NOPERM") or b"ACL failure" in text or b"can't run this command" in text
            or b"not allowed from script" in text
            or text.startswith(b"ERR DEBUG command not allowed") or text.startswith(b"ERR MODULE command not allowed"))


def _lua(argv: list[bytes]) -> bytes:
    return b"return redis.call(" + b", ".join(b"'" + a + b"'" for a in argv) + b")"


@pytest.mark.parametrize("argv", FORBIDDEN, ids=IDS)
async def test_learner_cannot_typed_or_in_a_script_or_a_function(pg, argv):
    a = pg.session("A")
    assert _denied(await a.execute(list(argv))), argv
    assert _denied(await a.execute([b"EVAL", _lua(argv), b"0"])), argv
    library = b"#!lua name=attack\nredis.register_function('go', function() " + _lua(argv) + b" end)\n"
    assert bytes(await a.execute([b"FUNCTION", b"LOAD", b"REPLACE", library])) == b"attack"
    assert _denied(await a.execute([b"FCALL", b"go", b"0"])), argv
    # the server is as it was: no TCP port, a primary, the app's own user still there
    port, role, users = await pg.reader.run([[b"CONFIG", b"GET", b"port"], [b"ROLE"], [b"ACL", b"USERS"]])
    assert (bytes(port[1]), bytes(role[0])) == (b"0", b"master")
    assert sorted(bytes(u) for u in users) == sorted([b"default", ADMIN_USER.encode()])


async def test_what_lessons_need_still_runs(pg):
    a, b = pg.session("A"), pg.session("B")
    for argv, expected in [
        ([b"SET", b"k", b"1"], b"OK"), ([b"WATCH", b"k"], b"OK"), ([b"MULTI"], b"OK"), ([b"INCR", b"k"], b"QUEUED"),
        ([b"EXEC"], None), ([b"EVAL", b"return redis.call('INCR', KEYS[1])", b"1", b"k"], 3),
        ([b"CLIENT", b"SETNAME", b"A"], b"OK"), ([b"CONFIG", b"GET", b"maxmemory"], None),
        ([b"ACL", b"WHOAMI"], b"default"), ([b"SCRIPT", b"DEBUG", b"NO"], b"OK"), ([b"SCRIPT", b"FLUSH"], b"OK"),
        ([b"FUNCTION", b"FLUSH"], b"OK"), ([b"FLUSHALL"], b"OK"),
    ]:
        reply = await a.execute(argv)
        assert not isinstance(reply, Err), (argv, reply)
        if expected is not None:
            assert (reply if isinstance(expected, int) else bytes(reply)) == expected, argv
    assert await b.execute([b"PUBLISH", b"ch", b"hi"]) == 0


async def test_no_secret_reaches_the_learner(pg):
    secret = pg.server.credentials.admin_password.encode()
    a = pg.session("A")
    seen = b""
    for argv in ([b"CONFIG", b"GET", b"*"], [b"CLIENT", b"LIST"], [b"ACL", b"GETUSER", ADMIN_USER.encode()],
                 [b"INFO", b"everything"], [b"ACL", b"LOG"]):
        reply = await a.execute(argv)
        seen += repr(reply).encode()
    assert secret not in seen
    # the password is only in the 0600 config file of the 0700 dir
    conf = os.path.join(pg.server.dir, "server.conf")
    assert os.stat(conf).st_mode & 0o777 == 0o600 and os.stat(pg.server.dir).st_mode & 0o777 == 0o700


def _own_redis(binary) -> tuple[subprocess.Popen, int]:
    """A stand-in for the user's own Redis on 127.0.0.1 (loopback only, no persistence)."""
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="sandbox-victim-")
    proc = subprocess.Popen([binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"SET precious:0 mine\r\n")
                if sock.recv(16).startswith(b"+OK"):
                    return proc, port
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _get(port: int, key: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"GET " + key + b"\r\n")
        return sock.recv(64)


async def test_migrate_into_the_users_own_redis_is_refused_everywhere(pg, server_binary):
    """The issue's attack: MIGRATE ... REPLACE from the private server overwrote a key in
    another Redis on this machine. Typed, in EVAL, in FCALL: the key stays the user's."""
    proc, port = _own_redis(server_binary)
    try:
        a = pg.session("A")
        await a.execute([b"SET", b"precious:0", b"stolen"])
        migrate = [b"MIGRATE", b"127.0.0.1", b"%d" % port, b"precious:0", b"0", b"1000", b"COPY", b"REPLACE"]
        assert _denied(await a.execute(migrate))
        assert _denied(await a.execute([b"EVAL",
                                        b"return redis.call('MIGRATE','127.0.0.1',ARGV[1],'precious:0',0,1000,"
                                        b"'COPY','REPLACE')",
                                        b"0", b"%d" % port]))
        lib = (b"#!lua name=m\nredis.register_function('m', function(k, a) "
               b"return redis.call('MIGRATE','127.0.0.1',a[1],'precious:0',0,1000,'COPY','REPLACE') end)\n")
        await a.execute([b"FUNCTION", b"LOAD", b"REPLACE", lib])
        assert _denied(await a.execute([b"FCALL", b"m", b"0", b"%d" % port]))
        assert _get(port, b"precious:0") == b"$4\r\nmine\r\n"
        # the app's own user could: the test can fail (the sandbox, not the network, stops it)
        reply, = await pg.admin.run([migrate])
        assert bytes(reply) == b"OK" and _get(port, b"precious:0") == b"$6\r\nstolen\r\n"
    finally:
        stop_group(proc, grace=1)


def test_the_guard_leaves_the_private_server_to_the_server():
    """No second list of forbidden commands in the app: the private server's rules are its ACL."""
    for argv in FORBIDDEN:
        assert refusal(argv, private=True, allow_flush=False, where="x") is None


def test_rules_name_only_commands_the_server_knows():
    """An ACL rule naming an unknown subcommand stops the server: version-gated ones stay out."""
    old = learner_rules("6.2.14", node=False)
    assert "+cluster|shards" not in old and "-migrate" in old and "+config|get" in old
    assert "+cluster|shards" in learner_rules("7.0.15", node=False)
    assert "+config|get" not in learner_rules("7.0.15", node=True)


async def test_a_lesson_sets_its_own_script_time_limit_and_free_play_has_the_servers(pg, tmp_path):
    """The private server runs with the server's own default (5 s); a scenario's
    script_time_limit_ms holds for its parts only, and the next scenario is back on the default."""
    async def limit() -> bytes:
        reply, = await pg.admin.run([[b"CONFIG", b"GET", b"lua-time-limit"]])
        return bytes(reply[1])
    path = tmp_path / "quick-busy.toml"
    path.write_text('title = "t"\nlesson = "l"\nscript_time_limit_ms = 250\n'
                    '[[steps]]\nclient = "A"\ncommand = "SET k v"\nreply = "OK"\n')
    assert await limit() == b"5000"
    runner = Runner(pg)
    result = await runner.run(load_scenario(path))
    assert result.ok, result.error
    assert await limit() == b"250"
    result = await runner.run(load_scenario(SCENARIOS / "lost-update.toml"))
    assert result.ok and await limit() == b"5000"
    result = await runner.run(load_scenario(SCENARIOS / "busy-script.toml"))  # it needs BUSY within its steps
    assert result.ok, [(s.step.number, c.what, c.detail) for s, c in result.failed_checks] or result.error


async def test_a_refusal_says_why_under_the_reply(pg):
    """A learner's NOPERM, typed or from a script, gets a note naming the sandbox (not on
    a --url server, whose ACL is the user's own)."""
    from playground.engine.executor import Executor

    ex = Executor(pg, explain="en")
    for line in ("CONFIG SET maxmemory 1", "EVAL \"return redis.call('MIGRATE','127.0.0.1','1','k',0,1)\" 0"):
        result = await ex.run_line("A", line)
        assert result.output.startswith(b"(error) "), result.output
        assert [w.kind for w in result.whys] == ["sandbox"], line
        assert "keeps learners in" in result.whys[0].text
    ok = await ex.run_line("A", "SET k v")
    assert ok.whys == []
