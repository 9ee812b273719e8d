"""A command lost with its connection is named when it may have written (engine/executor.py
`may_have_written`, engine/session.py `Session.cancel`): after CLIENT KILL, B's INCR went
out on the closed connection and its reply never came; before, the app said only
"connection lost", then "cancelled; reconnected as a new client (nothing else lost)"
after a write that may have run."""

from __future__ import annotations

import asyncio

import pytest
from commands import executor_of, line

from playground.engine import events as ev

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
