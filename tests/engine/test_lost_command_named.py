"""A command lost with its connection is named when it may have written (engine/executor.py
`may_have_written`, engine/session.py `Session.cancel`): after CLIENT KILL, B's INCR went
out on the closed connection and its reply never came; before, the app said only
"connection lost", then "cancelled; reconnected as a new client (nothing else lost)"
after a write that may have run."""

from __future__ import annotations

import asyncio

import pytest
from commands import executor_of, line
from late_close import LateClose

from playground.engine import events as ev
from playground.resp.replies import Nil

pytestmark = [pytest.mark.server]


def _heard(pg) -> list:
    executor = executor_of(pg)
    heard: list = []
    emit = executor.emit

    def hear(event):
        heard.append(event)
        return emit(event)

    executor.emit = hear
    return heard


async def _kill_b(pg) -> None:
    await line(pg, "B", [b"PING"])
    result = await line(pg, "A", [b"CLIENT", b"KILL", b"USER", b"default", b"SKIPME", b"yes"])
    assert result.reply == 1


async def _until_pending(pg, client: str) -> None:
    while pg.sessions[client].state.pending is None:  # noqa: ASYNC110 (a state nothing signals) — (the line went out: a state, not a time)
        await asyncio.sleep(0)


def _said(heard, kind) -> list[str]:
    return [event.text for event in heard if isinstance(event, kind)]


async def test_a_write_lost_to_client_kill_is_named_may_have_run(pg):
    await _kill_b(pg)
    heard = _heard(pg)
    result = await line(pg, "B", [b"INCR", b"n"])
    assert result.lost and not result.replies
    closed, = _said(heard, ev.ConnectionClosed)
    reconnected, = _said(heard, ev.Reconnected)
    assert "connection lost" in closed
    assert reconnected == "client B: INCR n may have run (its reply never came); reconnected as a new client"
    assert "nothing else" not in reconnected and "cancelled" not in reconnected


async def test_what_else_the_client_lost_follows_the_lost_write(pg):
    await line(pg, "B", [b"WATCH", b"k"])
    await _kill_b(pg)
    heard = _heard(pg)
    await line(pg, "B", [b"SET", b"k", b"v"])
    reconnected, = _said(heard, ev.Reconnected)
    assert reconnected == ("client B: SET k v may have run (its reply never came); reconnected as a new client "
                           "(its WATCH lost)")


async def test_a_lost_read_is_not_said_to_have_run(pg):
    await _kill_b(pg)
    heard = _heard(pg)
    await line(pg, "B", [b"GET", b"n"])
    reconnected, = _said(heard, ev.Reconnected)
    assert reconnected == "client B: reconnected as a new client"


async def test_a_cancelled_write_is_named_and_a_cancelled_read_loses_nothing_else(pg):
    ex = executor_of(pg)
    assert (await line(pg, "A", [b"CLIENT", b"PAUSE", b"100000", b"WRITE"])).reply == b"OK"
    heard = _heard(pg)
    held = asyncio.ensure_future(line(pg, "B", [b"INCR", b"n"], refresh=False))
    await asyncio.wait_for(_until_pending(pg, "B"), 30)  # B's INCR is out: the server holds it
    assert await ex.cancel("B")
    await asyncio.gather(held, return_exceptions=True)
    reconnected = _said(heard, ev.Reconnected)
    assert reconnected[-1] == "client B: INCR n may have run (its reply never came); reconnected as a new client"
    assert (await line(pg, "A", [b"CLIENT", b"UNPAUSE"])).reply == b"OK"
    blocked = asyncio.ensure_future(line(pg, "B", [b"XREAD", b"BLOCK", b"0", b"STREAMS", b"s", b"$"], refresh=False))
    await asyncio.wait_for(_until_pending(pg, "B"), 30)
    assert await ex.cancel("B")
    await asyncio.gather(blocked, return_exceptions=True)
    assert _said(heard, ev.Reconnected)[-1] == "client B: cancelled; reconnected as a new client (nothing else lost)"


async def test_a_write_after_killing_its_own_connection_is_lost_and_said_not_to_have_run(pg):
    """A's own `CLIENT KILL ... SKIPME no` closes A's connection after its reply; the end
    reaches A late here (tests/late_close.py: A's INCR goes out before it could be seen).
    The server read nothing more of that connection: the INCR is lost without a claim
    that it may have run (the server says it did not), as whenever the end arrives."""
    async with LateClose(pg.address) as relay:
        await pg.sessions["A"].connect(relay.address)
        killed = await line(pg, "A", [b"CLIENT", b"KILL", b"TYPE", b"normal", b"SKIPME", b"no"])
        assert killed.reply >= 1 and not killed.lost
        heard = _heard(pg)
        result = await line(pg, "A", [b"INCR", b"n"])
        assert result.lost and not result.replies
        assert _said(heard, ev.Reconnected) == ["client A: reconnected as a new client"]
        assert (await line(pg, "A", [b"GET", b"n"])).reply is Nil


async def test_a_kill_that_spares_its_own_connection_leaves_it_open(pg):
    """SKIPME yes (or a filter that matches no one): A's connection stays, its next line
    answers on it."""
    session = pg.sessions["A"]
    own = session.state.client_id
    assert (await line(pg, "A", [b"CLIENT", b"KILL", b"TYPE", b"normal", b"SKIPME", b"yes"])).reply >= 1
    assert (await line(pg, "A", [b"CLIENT", b"KILL", b"ID", b"999999999"])).reply == 0
    assert session.connected and session.dropped is None
    assert (await line(pg, "A", [b"CLIENT", b"ID"])).reply == own
