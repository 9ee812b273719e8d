"""A fresh start of the playground's server for a scenario part (and each schedule the
explorer runs): a live server, no keys, no cached scripts or loaded functions, every
client reset (RESET) with no MULTI, WATCH or subscription, the scenario's script time
limit; then the part's setup. (Playground.reset and Playground.flushall call these.)

SCRIPT FLUSH and FUNCTION FLUSH each rebuild the server's Lua, most of what a short
schedule costs the server: they are sent only when a line since the last flush may have
cached a script or loaded a function (`Playground.note_scripts`, asked of the catalogue:
catalogue.LOADS_SCRIPTS), or when programs behind a gate may have sent anything."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from playground.engine.session import NoReply, Session
from playground.resp.info_text import config_value
from playground.resp.replies import Reply

if TYPE_CHECKING:
    from playground.engine.playground import Playground

FLUSH = [[b"FLUSHALL"], [b"SCRIPT", b"FLUSH"], [b"FUNCTION", b"FLUSH"]]  # no keys, scripts or functions
PRIVATE_FLUSH = [[b"FLUSHALL", b"SYNC"], *FLUSH[1:]]  # the private server: freed before the setup runs
                                                     # (Valkey frees in the background by default, and
                                                     # under its maxmemory that memory would still count)
UNPAUSE = [[b"CLIENT", b"UNPAUSE"]]  # the private server's fresh start has no pause (a WRITE pause
                                     # would hold the flush); a --url server's pauses are not ours


def empties(pg: "Playground") -> list[list[bytes]]:
    """What empties the server for a fresh start (UNPAUSE first: on the private server
    only; the scripts only when a line since the last flush may have cached one)."""
    if not pg.private:
        return FLUSH
    return UNPAUSE + (PRIVATE_FLUSH[:1] if pg.scripts_clean else PRIVATE_FLUSH)


async def set_script_time_limit(pg: "Playground", ms: int | None) -> None:
    """How long a script runs before other clients get BUSY: `ms`, or (None) the value the
    private server started with. Set as the app's own user (learners cannot CONFIG SET);
    nothing is sent when it is already so, or on a --url server."""
    if pg.server is None or ms == pg.script_limit:
        return
    admin = pg.admin
    assert admin is not None  # (started)
    if pg.script_limit_start is None:
        reply, = await admin.run([[b"CONFIG", b"GET", b"lua-time-limit"]])
        pg.script_limit_start = config_value(reply, b"lua-time-limit") or b"5000"
    value = pg.script_limit_start if ms is None else b"%d" % ms
    if pg.topology is not None:
        from playground.engine.topology_ops import config_set_everywhere
        await config_set_everywhere(pg.topology, b"lua-time-limit", value)
    else:
        await admin.run([[b"CONFIG", b"SET", b"lua-time-limit", value]])
    pg.script_limit = ms


async def reset_together(setter: Session, others: list[Session],
                         then: list[list[bytes]]) -> Sequence[Reply | NoReply]:
    """`setter` reset with `then` (the flush and the setup), the `others` reset at the same
    time: theirs are sent first and read after the setter's round trip.

    Returns:
        The replies to `then`.
    """
    sent = [await session.send_reset() for session in others]
    try:
        replies = await setter.reset(then)
    except BaseException as exc:
        for session, count in zip(others, sent, strict=True):  # (a count per session)
            if count is None:
                continue
            connection = session.connection
            if isinstance(exc, asyncio.CancelledError) and connection is not None:  # (no waiting now: their
                await connection.close()        # replies unread would be taken for the next command's)
            elif isinstance(exc, asyncio.CancelledError):
                continue
            else:
                await session.read_reset(count)
        raise
    for session, count in zip(others, sent, strict=True):
        await session.read_reset(count)
    return replies


async def reset(pg: "Playground", setup: Sequence[Sequence[bytes]] = (), by: str | None = None, label: str = "",
                script_time_limit_ms: int | None = None) -> Sequence[Reply | NoReply]:
    """The fresh start, then `setup` run by client `by` (default: the first). Returns the
    setup's replies. `script_time_limit_ms`: the scenario's own (set_script_time_limit).

    That client's reset, the flush and the setup go in one round trip, while the other
    clients reset on their own connections at the same time. `label` names the fresh
    start in the server order (a scenario part's name)."""
    pg.check_allowed([b"flushall"])
    if pg.writes is not None:  # nobody wrote what a fresh start holds: the setup is no client's
        pg.writes.forget()     # write, and a rewound lesson's undone writes are gone
    if pg.topology is not None:
        from playground.engine.topology_ops import reset_topology
        pg.order.mark("reset", label, setup)
        replies = await reset_topology(pg, setup, by)
        await set_script_time_limit(pg, script_time_limit_ms)
        return replies
    if pg.server is not None and not pg.server.alive():
        await pg.restart()
    await set_script_time_limit(pg, script_time_limit_ms)
    for argv in setup:
        pg.check_allowed(argv)
    fresh = empties(pg)
    setter = pg.sessions[by] if by else next(iter(pg.sessions.values()))
    others = [s for s in pg.sessions.values() if s is not setter]
    pg.order.mark("reset", label, setup)
    ran = await reset_together(setter, others, fresh + [list(argv) for argv in setup])
    pg.scripts_clean = True
    for argv in setup:
        pg.note_scripts(argv)
    if pg.changes is not None:
        await pg.changes.discard()  # the setup's key events are nobody's write
    return ran[len(fresh):]
