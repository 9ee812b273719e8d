"""The headless repl with two clients: order of output, blocking, pub/sub, restarts."""

import asyncio
import io
import re

import pytest
from late_close import LateClose

from playground.engine.playground import Playground
from playground.cli.repl import Repl, run_repl


async def repl(private_server, text: str, code: int = 0, **kwargs) -> tuple[bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(server=private_server, **kwargs)
    # (a hang fails the test instead of stalling the run)
    got = await asyncio.wait_for(run_repl(pg, stdin=io.BytesIO(text.encode()), stdout=out, stderr=err), 60)
    assert got == code, err.getvalue()
    return out.getvalue(), err.getvalue()


async def test_prefix_chooses_client(private_server):
    out, _ = await repl(private_server, "CLIENT SETNAME first\nB> CLIENT GETNAME\nA> CLIENT GETNAME\n"
                                        "b> CLIENT SETNAME second\nCLIENT GETNAME\nB> CLIENT GETNAME\n")
    assert out == b'OK\n(nil)\n"first"\nOK\n"first"\n"second"\n'


async def test_client_getname_is_nil_as_for_redis_cli(private_server):
    """redis-cli's connection has no name; the repl's clients have none either (the
    playground knows them by client id), also after a reconnect."""
    out, _ = await repl(private_server, "CLIENT GETNAME\nB> CLIENT GETNAME\nCLIENT KILL TYPE normal SKIPME no\n"
                                        "PING\nCLIENT GETNAME\n")
    assert out.startswith(b"(nil)\n(nil)\n(integer) ") and out.endswith(b"\n(nil)\n"), out


@pytest.mark.parametrize("in_multi", [False, True], ids=["alone", "exec"])
@pytest.mark.parametrize("next_line", ["PING", "INCR n"])
async def test_the_line_after_killing_its_own_connection_is_lost_once_whenever_the_end_arrives(private_server,
                                                                                                 next_line, in_multi):
    """`CLIENT KILL TYPE normal SKIPME no`: the server closes A's own connection after the
    reply. redis-cli sends the next line on it anyway, loses it ("Error: Broken pipe" or
    "Server closed the connection" on stderr, exit status 0) and reconnects at the line
    after (redis-cli.c issueCommandRepeat: no second try). The end reaches A late here
    (tests/late_close.py: A's next line is sent before it could be seen, as on a busy
    machine): the same output, the same exit status, and no claim that the lost line
    may have run: the server read nothing more of that connection (INCR n did not run).
    The same when the kill ran in a transaction: the connection closes after EXEC's reply."""
    kill = "CLIENT KILL TYPE normal SKIPME no"
    lines = (["MULTI", kill, "EXEC"] if in_multi else [kill]) + [next_line, "GET n", "CLIENT GETNAME"]
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(server=private_server)
    r = Repl(pg, out, err)
    async with pg, LateClose(pg.address) as relay:
        await pg.sessions["A"].connect(relay.address)
        assert await asyncio.wait_for(r.feed_many([line.encode() + b"\n" for line in lines]), 60)
        await asyncio.wait_for(r.finish(), 60)
    said = err.getvalue()
    killed = rb"OK\nQUEUED\n1\) \(integer\) \d+\n" if in_multi else rb"\(integer\) \d+\n"
    assert re.fullmatch(killed + rb"\(nil\)\n\(nil\)\n", out.getvalue()), (out.getvalue(), said)
    assert r.exit_code == 0, said
    assert "connection lost" in said and "may have run" not in said, said


async def test_the_repeat_after_killing_its_own_connection_is_the_one_lost(private_server):
    """`2 CLIENT KILL TYPE normal SKIPME no`: redis-cli's second repeat meets the closed
    connection (lost, said on stderr) and the next line reconnects; the end late here too."""
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(server=private_server)
    r = Repl(pg, out, err)
    async with pg, LateClose(pg.address) as relay:
        await pg.sessions["A"].connect(relay.address)
        assert await asyncio.wait_for(r.feed_many([b"2 CLIENT KILL TYPE normal SKIPME no\n", b"GET n\n"]), 60)
        await asyncio.wait_for(r.finish(), 60)
    said = err.getvalue()
    assert re.fullmatch(rb"\(integer\) \d+\n\(nil\)\n", out.getvalue()), (out.getvalue(), said)
    assert r.exit_code == 0 and said.count("connection lost") == 1 and "may have run" not in said, said


async def test_a_prefix_that_names_no_client_is_refused(private_server):
    """`C> GET y` with clients A and B: one line on stderr naming the input line, the
    line is not run (never sent to A as typed), the others go on, exit status 1."""
    out, err = await repl(private_server, "SET y 1\nC> GET y\nc> SET y 2\nGET y\n", code=1)
    assert out == b'OK\n"1"\n'
    assert "line 2: no client C (the clients are A, B; --clients names them); not run: C> GET y" in err
    assert "line 3: no client c" in err and "Traceback" not in err


async def test_watch_abort_by_hand(private_server):
    out, _ = await repl(private_server, """SET balance 150
A> WATCH balance
A> GET balance
B> SET balance 200
A> MULTI
A> DECRBY balance 100
A> EXEC
A> GET balance
""")
    assert out == b'OK\nOK\n"150"\nOK\nOK\nQUEUED\n(nil)\n"200"\n'


async def test_blocking_pop_waits_for_the_other_client(private_server):
    out, err = await repl(private_server, "A> BLPOP jobs 0\nB> RPUSH jobs j1\nB> LLEN jobs\n")
    assert out.startswith(b'(integer) 1\n1) "jobs"\n2) "j1"\n')
    # A waited for B, so redis-cli would print the time it took after A's reply if >= 0.5 s
    rest = out[len(b'(integer) 1\n1) "jobs"\n2) "j1"\n'):]
    assert rest in (b"(integer) 0\n",) or (rest.startswith(b"(") and rest.endswith(b"s)\n(integer) 0\n"))


async def test_blocked_forever_at_end_of_input_is_cancelled_not_hung(private_server):
    out, err = await repl(private_server, "A> BLPOP never 0\nB> PING\nA> GET x\n", code=1)
    assert out == b"PONG\n"
    assert "BLPOP never 0 waits forever" in err and "cancelled" in err
    assert "not run: GET x" in err  # never silently lost


async def test_blocking_command_at_end_of_input_runs_to_its_timeout(private_server):
    """`BLPOP q 1` then `PING` on the same connection: redis-cli prints (nil) after a
    second, then PONG; nothing is lost and the exit status is 0."""
    out, err = await repl(private_server, "A> BLPOP q 1\nA> PING\n")
    assert out.startswith(b"(nil)\n(") and out.endswith(b"s)\nPONG\n"), out


async def test_one_clients_replies_keep_the_order_of_its_lines(private_server):
    out, _ = await repl(private_server, "SET a 1\nBLPOP q 1\nGET a\nECHO last\n")
    lines = out.decode().splitlines()
    assert lines[:2] == ["OK", "(nil)"] and lines[2].startswith("(1.") and lines[3:] == ['"1"', '"last"']


async def test_monitor_streams_and_later_replies_are_not_shifted(private_server):
    out, err = await repl(private_server, "A> MONITOR\nB> SET k v\nB> GET k\n")
    text = out.decode()
    assert text.startswith("OK\nOK\n") or text.startswith("OK\n")
    assert '"SET" "k" "v"' in text and '"GET" "k"' in text
    assert '"v"\n' in text  # B's GET reply is B's, not a monitor line
    assert "CLIENT" not in text and "EVALSHA" not in text  # the playground's own reads are left out


async def test_monitor_leaves_out_the_playgrounds_own_reconnects(private_server):
    """`CLIENT KILL USER playground` closes the app's own connections; the observer's new
    connection (asked while B's BLPOP waits) says AUTH and CLIENT SETNAME, which A's
    MONITOR used to show (and, under load, a reconnect after a cancelled read too)."""
    out, err = await repl(private_server, "A> MONITOR\nB> CLIENT KILL USER playground\nB> BLPOP q 0.2\nB> GET k\n")
    assert b'"BLPOP" "q" "0.2"' in out and b'"GET" "k"' in out, out
    assert b"SETNAME" not in out and b"AUTH" not in out, out


async def test_lines_for_a_blocked_client_wait_their_turn(private_server):
    out, _ = await repl(private_server, "A> BLPOP q 0\nA> GET after\nB> SET after yes\nB> RPUSH q x\n")
    assert out.split(b"\n")[:2] == [b"OK", b"(integer) 1"]
    assert b'1) "q"\n2) "x"\n' in out and out.endswith(b'"yes"\n')


async def test_subscribe_and_publish(private_server):
    out, _ = await repl(private_server, "A> SUBSCRIBE ch\nB> PUBLISH ch hello\nB> PUBLISH ch again\n")
    assert out == (b"Reading messages... (press Ctrl-C to quit)\n"
                   b'1) "subscribe"\n2) "ch"\n3) (integer) 1\n'
                   b"(integer) 1\n"
                   b'1) "message"\n2) "ch"\n3) "hello"\n'
                   b"(integer) 1\n"
                   b'1) "message"\n2) "ch"\n3) "again"\n')


async def test_shutdown_nosave_restarts_with_a_clear_message(private_server):
    out, err = await repl(private_server, "SET k v\nB> SHUTDOWN NOSAVE\nGET k\nB> PING\n")
    assert out == b"OK\n(nil)\nPONG\n"
    assert "SHUTDOWN" in err and "gone" in err and "fresh server" in err


@pytest.mark.slow
async def test_busy_script_and_script_kill(private_server):
    script = "local t = redis.call('TIME')[1] + 10 while tonumber(redis.call('TIME')[1]) < t do end return 1"
    out, _ = await repl(private_server, f'A> EVAL "{script}" 0\nB> GET k\nB> SCRIPT KILL\n')
    lines = out.decode().splitlines()
    assert lines[0].startswith("(error) BUSY")
    assert lines[1] == "OK"
    assert lines[2].startswith("(error) ") and "Script killed by user" in lines[2]


async def test_quit_stops_reading(private_server):
    out, _ = await repl(private_server, "PING\nquit\nPING\n")
    assert out == b"PONG\n"


async def test_help_is_answered_locally(private_server):
    out, _ = await repl(private_server, "HELP GET\nHELP\n")
    assert out.startswith(b"\r\n  \x1b[1mGET\x1b[0m \x1b[90mkey\x1b[0m\r\n  \x1b[33msummary:\x1b[0m ")
    assert b"(error)" not in out and b"help @<group>" in out


async def test_resp3_option(private_server):
    out, _ = await repl(private_server, "HSET h f v\nHGETALL h\n", resp=3)
    assert out == b'(integer) 1\n1# "f" => "v"\n'


async def test_more_than_two_clients(private_server):
    out, _ = await repl(private_server, "C> CLIENT SETNAME c\nC> WATCH k\nB> SET k 1\nC> MULTI\nC> EXEC\n"
                                        "C> CLIENT GETNAME\n", clients=("A", "B", "C"))
    assert out == b'OK\nOK\nOK\nOK\n(nil)\n"c"\n'


async def test_url_mode_uses_the_given_server_and_refuses_flush(private_server):
    from playground.resp.connection import Address

    out, err = await repl_url(Address(path=private_server.socket_path), "SET k v\nFLUSHALL\nGET k\n")
    assert out == b'OK\n"v"\n'
    assert "allow-flush" in err
    assert private_server.alive()


async def repl_url(address, text):
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(url=address)
    assert await run_repl(pg, stdin=io.BytesIO(text.encode()), stdout=out, stderr=err) == 0
    return out.getvalue(), err.getvalue()


async def test_client_kill_of_everyone_loses_each_clients_next_line_as_redis_cli_does(private_server):
    """`CLIENT KILL TYPE normal SKIPME no` closes A's and B's connections: each one's next
    line meets the closed connection and is lost, said on stderr (redis-cli: "Error:
    Broken pipe"), and the line after it reconnects. (A RecursionError, then a hang, before.)"""
    out, err = await repl(private_server, "A> CLIENT KILL TYPE normal SKIPME no\nA> PING\nB> PING\n"
                                          "A> PING\nB> PING\n")
    first, *rest = out.decode().splitlines()
    assert first.startswith("(integer) ") and rest == ["PONG", "PONG"], err
    assert "client A: connection lost" in err and "client B: connection lost" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("mode", ["SKIP", "OFF"])
async def test_client_reply_off_or_skip_waits_as_redis_cli_does_and_input_ends(private_server, mode):
    """The server sends no reply to CLIENT REPLY OFF/SKIP, and redis-cli waits for one for
    ever: A's later lines never go; B's go on (before: B's reply never came, no exit). At
    end of input A's wait is cancelled with a note, as a BLPOP with timeout 0 is."""
    out, err = await repl(private_server, f"A> CLIENT REPLY {mode}\nA> SET x 1\nB> GET x\nB> SET x 2\n", code=1)
    assert out == b"(nil)\nOK\n", err
    assert f"client A: end of input while CLIENT REPLY {mode} waits for a reply the server never sends" in err
    assert "client A: not run: SET x 1" in err


async def test_repeated_quit_loses_no_later_line(private_server):
    """`2 quit`: redis-cli's second QUIT meets the closed connection ("Error: Broken pipe"
    on stderr) and the PING after it reconnects; a single QUIT loses the next line."""
    out, err = await repl(private_server, "2 quit\nPING\nPING\nPING\n")
    assert out == b"OK\nPONG\nPONG\nPONG\n", err
    out, err = await repl(private_server, "1 quit\nPING\nPING\n")
    assert out == b"OK\nPONG\n", err


async def test_a_line_held_by_client_pause_prints_its_time_as_redis_cli_does(private_server):
    """B's GET waits out A's CLIENT PAUSE, so redis-cli prints "(1.00s)"-style time under
    it. With another client's line after it, the run's own key lookup (COMMAND INFO)
    used to sit out the pause first, and the time line went missing."""
    import re

    out, err = await repl(private_server, "A> CLIENT PAUSE 1000\nB> GET k\nA> GET j\n")
    assert re.fullmatch(rb"OK\n\(nil\)\n\((0\.9\d|1\.\d\d)s\)\n\(nil\)\n", out), (out, err)
