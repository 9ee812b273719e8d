"""A clean client on the same connection (RESET, then its name and a --url's database
back), for a scenario part's fresh start: one client's in one round trip with the
flush and the setup, the others' sent first and read after it, so that every client
resets in one wait (Playground.reset). Reconnects instead when the connection is busy
or the server has no RESET (before 6.2)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from playground.engine.client_state import ClientState
from playground.resp.connection import pack_pipeline
from playground.resp.replies import Err

if TYPE_CHECKING:
    from playground.engine.session import Session


async def reset(session: "Session", then: list[list[bytes]] = ()) -> list:
    """RESET (no MULTI, WATCH, subscriptions, tracking; db 0; RESP2), then the name and a
    --url's database back, in one round trip; `then` are more commands sent in that
    round trip, their replies returned and the client's state following them as
    `execute` would."""
    then = [list(argv) for argv in then]
    if not _resettable(session):
        return await _anew(session, then)
    commands = _commands(session)
    try:
        replies = await session.connection.pipeline(commands + then)
    except OSError:
        return await _anew(session, then)
    if any(isinstance(r, Err) for r in replies[:_ours(session)]):
        return await _anew(session, then)
    _done(session)
    for argv, reply in zip(then, replies[len(commands):]):
        session.track(argv, reply)
    return replies[len(commands):]


async def reset_together(setter: "Session", others: list["Session"], then: list[list[bytes]]) -> list:
    """`setter` reset with `then` (the flush and the setup), the `others` reset at the same
    time: theirs are sent first and read after the setter's round trip. The replies to
    `then`."""
    sent = [await send_reset(session) for session in others]
    try:
        replies = await reset(setter, then)
    except BaseException as exc:
        for session, count in zip(others, sent):
            if count is None:
                continue
            if isinstance(exc, asyncio.CancelledError):  # (no waiting now: their replies unread
                await session.connection.close()           # would be taken for the next command's)
            else:
                await read_reset(session, count)
        raise
    for session, count in zip(others, sent):
        await read_reset(session, count)
    return replies


async def send_reset(session: "Session") -> int | None:
    """Send what `reset` sends without waiting for its replies: how many replies
    `read_reset` is to read; None when the client is to be `reset` the long way."""
    if not _resettable(session):
        return None
    commands = _commands(session)
    try:
        await session.connection.send_packed_command(pack_pipeline(commands))
    except OSError:
        return None
    return len(commands)


async def read_reset(session: "Session", sent: int | None) -> None:
    """The end of a reset that `send_reset` began."""
    if sent is None:
        await reset(session)
        return
    try:
        replies = [await session.connection.read_response() for _ in range(sent)]
    except OSError:
        await session.connect()
        return
    if any(isinstance(r, Err) for r in replies[:_ours(session)]):
        await session.connect()
        return
    _done(session)


def _resettable(session: "Session") -> bool:
    return session.connection is not None and not session.streaming and session.state.pending is None


def _ours(session: "Session") -> int:
    """How many of `_commands` are RESET and the name (whose errors mean: reconnect)."""
    return 2 if session.named else 1


def _commands(session: "Session") -> list[list[bytes]]:
    commands = [[b"RESET"], [b"CLIENT", b"SETNAME", session.name.encode()]] if session.named else [[b"RESET"]]
    if session.start_resp == 3:
        commands.append([b"HELLO", b"3"])
    if session.address.db:            # a --url's /db: where a new connection starts
        commands.append([b"SELECT", b"%d" % session.address.db])
    return commands


async def _anew(session: "Session", then: list[list[bytes]]) -> list:
    await session.connect()
    return [await session.execute(argv) for argv in then]


def _done(session: "Session") -> None:
    session.units.clear()
    session.state = ClientState(session.name, client_id=session.state.client_id, db=session.address.db,
                                resp=session.start_resp)
