"""`repl` always ends (issue 36): lines still waiting at the end of input, `quit` of one
client, a transaction that holds a SUBSCRIBE, a pause that ends by itself. Each runs the
real command in a child process under a timeout, so a hang fails the test instead of
stalling the run; the expected output is what redis-cli --no-raw printed for the same
lines (checked by hand against /usr/bin/redis-cli; one client's lines without their
prefixes), "(N.NNs)" lines masked where a time is printed."""

from __future__ import annotations

import pytest
import asyncio
import os
import subprocess
import sys

from playground.engine.executor import Executor
from timing_lines import timing_masked

HANG = 30  # seconds: far beyond what any of these needs (each ends within about 2 s)


def repl(server_binary, text: str) -> tuple[bytes, str, int]:
    """`redis-playground repl` in a child process: (stdout, stderr, exit status)."""
    proc = subprocess.run([sys.executable, "-m", "playground", "repl", "--server", server_binary.path],
                          input=text.encode(), capture_output=True, timeout=HANG, env={**os.environ, "LANG": "C"})
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    return timing_masked(proc.stdout, b"(T)"), err, proc.returncode


def test_a_line_blocked_for_ever_with_lines_behind_it_is_cancelled_and_they_never_run(server_binary):
    """BLPOP l 0 and four lines behind it: it hung in 5 runs of 6, and sometimes ran
    lines it had named as not run (a swallowed cancellation). Three times over."""
    for _ in range(3):
        out, err, code = repl(server_binary, "A> BLPOP l 0\n" + "A> ECHO x\n" * 4)
        assert (out, code) == (b"", 1), err
        assert err.count("client A: end of input while BLPOP l 0 waits forever") == 1, err
        assert err.count("client A: not run: ECHO x") == 4, err


def test_both_clients_blocked_for_ever_are_both_cancelled(server_binary):
    out, err, code = repl(server_binary, "A> BLPOP l 0\nA> ECHO a\nB> BLPOP m 0\nB> ECHO b\nA> ECHO a2\n")
    assert (out, code) == (b"", 1), err
    for line in ("client A: not run: ECHO a", "client A: not run: ECHO a2", "client B: not run: ECHO b"):
        assert line in err, err


def test_a_line_that_another_clients_remaining_lines_wake_is_not_cancelled(server_binary):
    """At end of input A waits with timeout 0, but B's lines behind its own BLPOP m 1
    push to A's list: A is woken, as its redis-cli would be, and nothing is cancelled."""
    out, err, code = repl(server_binary, "A> BLPOP l 0\nA> ECHO a\nB> BLPOP m 1\nB> RPUSH l x\n")
    assert code == 0, err
    assert out == b'(nil)\n(T)\n(integer) 1\n1) "l"\n2) "x"\n(T)\n"a"\n', out
    assert "cancelled" not in err


def test_subscribe_queued_in_a_transaction_ends(server_binary):
    """MULTI then SUBSCRIBE c1 c2: the server answers QUEUED once (not once per channel),
    and redis-cli, in its subscribe loop, reads no more input. It used to wait for the
    second channel's confirmation for ever."""
    out, err, code = repl(server_binary, "MULTI\nSUBSCRIBE c1 c2\nEXEC\nPING\n")
    assert out == b"OK\nReading messages... (press Ctrl-C to quit)\nQUEUED\n", (out, err)
    assert code == 0 and "not run: EXEC" in err and "not run: PING" in err


def test_quit_ends_only_its_own_client(server_binary):
    """`quit` ends A's redis-cli: A's later lines are named on stderr and never sent, B's
    run (they used to be dropped, silently, with the rest of the input)."""
    out, err, code = repl(server_binary, "A> SET a 1\nA> quit\nB> SET b 2\nA> SET a 2\nB> GET b\nB> GET a\n")
    assert (out, code) == (b'OK\nOK\n"2"\n"1"\n', 0), err
    assert "client A: not run: SET a 2 (after quit, redis-cli has exited)" in err


def test_quit_behind_a_blocked_line_ends_its_client_after_that_line(server_binary):
    out, err, code = repl(server_binary, "A> BLPOP l 1\nA> quit\nA> ECHO no\nB> ECHO yes\n")
    assert (out, code) == (b'"yes"\n(nil)\n(T)\n', 0), err
    assert "client A: not run: ECHO no (after quit" in err


def test_once_every_client_has_quit_the_rest_is_not_read(server_binary):
    out, err, code = repl(server_binary, "PING\nquit\nB> quit\nB> PING\nPING\n")
    assert (out, code) == (b"PONG\n", 0), err
    assert "not run" not in err


@pytest.mark.slow
def test_a_write_held_by_client_pause_at_end_of_input_waits_for_the_pause(server_binary):
    """redis-cli waits for the pause to end and prints the reply and its time; the
    repl used to cancel the line as if it waited for ever."""
    out, err, code = repl(server_binary, "A> CLIENT PAUSE 800 WRITE\nA> SET k v\nA> GET k\n")
    assert (out, code) == (b'OK\nOK\n(T)\n"v"\n', 0), err
    out, err, code = repl(server_binary, "A> CLIENT PAUSE 600 WRITE\nB> SET k v\nA> GET k\n")
    assert code == 0 and out.startswith(b"OK\n") and b"OK\n(T)\n" in out, (out, err)
    assert "cancelled" not in err


def test_a_repeated_blocking_line_prints_each_reply_when_it_comes(server_binary):
    """`2 BLPOP l 0`: the first reply is A's output as soon as B's push woke it (before
    B's next line), as A's redis-cli prints it; it used to wait for the second."""
    out, err, code = repl(server_binary, "A> 2 BLPOP l 0\nB> RPUSH l a\nB> ECHO mid\nB> RPUSH l b\nB> ECHO end\n")
    assert code == 0, err
    assert out.replace(b"(T)\n", b"") == (b'(integer) 1\n1) "l"\n2) "a"\n"mid"\n(integer) 1\n'
                                          b'1) "l"\n2) "b"\n"end"\n'), out


@pytest.mark.slow
def test_what_redis_cli_answers_itself_waits_behind_a_blocked_line(server_binary):
    """A bad line (Invalid argument(s)) or `help` behind a line still blocked is printed
    after that line's reply, as redis-cli prints it; it used to come first."""
    out, err, code = repl(server_binary, 'BLPOP l 1\nGET "x\n:set foo\n2 BLPOP l 0.3\nGET "y\nECHO after\n')
    assert code == 0, err
    assert out == (b"(nil)\n(T)\nInvalid argument(s)\nunknown redis-cli preference 'foo'\n(nil)\n(nil)\n(T)\n"
                   b'Invalid argument(s)\n"after"\n'), out


async def test_a_lines_task_cancelled_by_its_caller_stays_cancelled(pg):
    """Only Ctrl+C (`Executor.cancel`) ends a line with "cancelled" and a result; any
    other cancellation of the line's task is the canceller's and propagates (the repl's
    hang at end of input came from a cancellation swallowed here)."""
    executor = Executor(pg)
    job = executor.submit("A", (b"BLPOP", b"l", b"0"))
    assert not await job.settle()
    job.task.cancel()
    await asyncio.gather(job.task, return_exceptions=True)
    assert job.task.cancelled()
    await pg.session("A").connect()  # (the cancelled read dropped the connection)
    job = executor.submit("A", (b"BLPOP", b"l", b"0"))
    assert not await job.settle()
    assert await executor.cancel("A")
    assert not job.task.cancelled() and job.task.result().lost == "cancelled"
    assert (await executor.run("A", (b"ECHO", b"x"))).reply == b"x"


def test_client_reply_skip_sent_after_a_reconnect_is_cancelled_at_end_of_input(server_binary):
    """After QUIT, CLIENT REPLY SKIP goes on a new connection: the check that no reply
    will come ran before it was sent, and the wait for it polled for ever (found by
    fuzzing two clients' lines for hangs)."""
    out, err, code = repl(server_binary, "1 quit\nPING\nCLIENT REPLY SKIP\nB> ECHO b\n")
    assert (out, code) == (b'OK\n"b"\n', 1), err
    assert "client A: end of input while CLIENT REPLY SKIP waits for a reply the server never sends" in err
