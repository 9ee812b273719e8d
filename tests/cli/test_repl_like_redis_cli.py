"""`repl` line by line like redis-cli (issue 46): where "(N.NNs)" is printed, and what a
client dropped by the server had in flight.

The repros of the issue whose output two real redis-clis give are golden cases
(tests/golden/cases, compared by tests/test_golden.py on both servers): P1
`pause_then_blpop`, D1 `behind_a_timeout.clients`, `behind_a_pause.clients` and
`behind_a_paused_block.clients`, E1 `not_read_after_subscribe.listens`,
`not_read_after_monitor.listens` and `not_read_after_quit.clients`. Here are the two
that need more than an input: the repl's own delay (T1) and a `--url` server that drops
a client.

redis-cli prints "(N.NNs)" after a line whose round trip took 0.5 s or more, timed from
just before it sends the line (redis-cli.c, `repl()`: `start_time = mstime()` before
`issueCommandRepeat`, `elapsed >= 500`). A line that `repl` sent ahead of its turn
(engine/pipeline.py) is timed from when the reply before it had arrived, to when its
own arrived: how long we take to read and render the one before is not the server's.
"""

from __future__ import annotations

import io
import time

import pytest

from playground.cli.repl import run_repl
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from timing_lines import timing_masked

pytestmark = [pytest.mark.server]



async def repl(pg: Playground, text: bytes) -> tuple[bytes, str, int]:
    out, err = io.BytesIO(), io.StringIO()
    code = await run_repl(pg, stdin=io.BytesIO(text), stdout=out, stderr=err)
    assert "Traceback" not in err.getvalue()
    return out.getvalue(), err.getvalue(), code


async def test_our_own_slow_rendering_is_no_line_of_the_server(private_server, monkeypatch):
    """ECHO and PING go to the server together and are answered at once; rendering
    ECHO's reply takes us 0.6 s here (a huge reply would). redis-cli, a line at a time,
    sends PING after printing ECHO's reply, and PING takes it no time: no "(N.NNs)".
    The repl counted its own 0.6 s against PING. A line the server itself holds 0.6 s
    (BLPOP's timeout) still gets its line."""
    real = Executor.replied
    slowed = []

    def slow_first_reply(executor, session, argv, reply, *args):
        if argv[0].lower() == b"echo" and not slowed:
            slowed.append(argv)
            time.sleep(0.6)  # (our own slowness, not a wait for anything)
        return real(executor, session, argv, reply, *args)

    monkeypatch.setattr(Executor, "replied", slow_first_reply)
    out, err, code = await repl(Playground(server=private_server), b"ECHO a\nPING\nPING\nBLPOP nothing 0.6\n")
    assert slowed and code == 0, err
    assert timing_masked(out, b"(T)") == b'"a"\nPONG\nPONG\n(nil)\n(T)\n', out


async def test_a_dropped_clients_lost_ok_is_named(private_server):
    """Under --url (here the test's own throwaway server) the learner may set a tiny
    output buffer limit; the pipelined replies pile up and the server drops the client.
    Every line is then printed or named on stderr as one that may have run: the CONFIG
    SET's OK too, which was lost with the rest (it used to be left unnamed)."""
    lines = [b'CONFIG SET client-output-buffer-limit "normal 65536 65536 0"', b"SETRANGE v 2000 x", b"SET a 1",
             *[b"GET v"] * 200, b"SET b 1", b"GET a"]
    pg = Playground(url=private_server.admin_address, allow_flush=True)
    out, err, code = await repl(pg, b"".join(line + b"\n" for line in lines))
    named = [line for line in err.splitlines() if "no reply to" in line]
    assert code == 1 and "connection lost" in err, err
    assert any(line.startswith("client A: no reply to CONFIG SET client-output-buffer-limit") and "may have run" in line
               for line in named), err
    assert len(out.splitlines()) + len(named) == len(lines), (out[:200], err)
