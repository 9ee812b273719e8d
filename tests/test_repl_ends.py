"""`repl` always ends (issue 36): lines still waiting at the end of input, `quit` of one
client, a transaction that holds a SUBSCRIBE, a pause that ends by itself. Each runs the
real command in a child process under a timeout, so a hang fails the test instead of
stalling the run; the expected output is what redis-cli --no-raw printed for the same
lines (checked by hand against /usr/bin/redis-cli; one client's lines without their
prefixes), "(N.NNs)" lines masked where a time is printed."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

from playground.engine.executor import Executor

_TIMING = re.compile(rb"^\(\d+\.\d\ds\)$", re.M)
HANG = 30  # seconds: far beyond what any of these needs (each ends within about 2 s)


def repl(server_binary, text: str) -> tuple[bytes, str, int]:
    """`redis-playground repl` in a child process: (stdout, stderr, exit status)."""
    proc = subprocess.run([sys.executable, "-m", "playground", "repl", "--server", server_binary.path],
                          input=text.encode(), capture_output=True, timeout=HANG, env={**os.environ, "LANG": "C"})
    err = proc.stderr.decode()
    assert "Traceback" not in err, err
    return _TIMING.sub(b"(T)", proc.stdout), err, proc.returncode


def test_subscribe_queued_in_a_transaction_ends(server_binary):
    """MULTI then SUBSCRIBE c1 c2: the server answers QUEUED once (not once per channel),
    and redis-cli, in its subscribe loop, reads no more input. It used to wait for the
    second channel's confirmation for ever."""
    out, err, code = repl(server_binary, "MULTI\nSUBSCRIBE c1 c2\nEXEC\nPING\n")
    assert out == b"OK\nReading messages... (press Ctrl-C to quit)\nQUEUED\n", (out, err)
    assert code == 0 and "not run: EXEC" in err and "not run: PING" in err


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
