"""Pipelined lines: a client's plain lines sent ahead, replies read as they come.

`repl` reads many lines from a file or pipe; one round trip per line would make it
several times slower than redis-cli. Consecutive lines of one client that cannot block,
stream or change the connection (`pipelinable`) go to the server in windows of a few
hundred commands, and each reply is tracked, rendered and reported exactly as the
executor's one-line path does (same events, same order, same "(N.NNs)" rule: a
reply's own server time, from when its command was sent or the reply before it was
read, whichever is later).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from playground.engine import events as ev
from playground.engine.playground import Refused
from playground.engine.session import ConnectionLost, Session, replace
from playground.resp.connection import pack_pipeline

if TYPE_CHECKING:
    from playground.engine.executor import Executor

TIMING_FROM = 0.5  # redis-cli prints "(N.NNs)" after a reply that took at least this long

# Commands that may wait for another client or for time (blocking pops, WAIT, scripts
# that run until killed), stream (subscribe, monitor), end or replace the connection
# (QUIT, RESET, HELLO, AUTH, SHUTDOWN, CLIENT ..., SYNC), or enter redis-cli's own modes
# (SCRIPT DEBUG): they go one by one, with the executor's blocked-client detection.
NOT_PIPELINED = frozenset(w.encode() for w in """
    blpop brpop brpoplpush blmove blmpop bzpopmin bzpopmax bzmpop xread xreadgroup wait waitaof
    eval evalsha eval_ro evalsha_ro fcall fcall_ro script function
    subscribe psubscribe ssubscribe unsubscribe punsubscribe sunsubscribe monitor
    quit reset hello auth shutdown client debug sync psync replicaof slaveof failover
""".split())


def pipelinable(argv) -> bool:
    """May this line be sent before the replies of the lines ahead of it have come?"""
    return argv[0].lower() not in NOT_PIPELINED


async def run_pipelined(executor: "Executor", client: str,
                        lines: list[tuple[tuple[bytes, ...], int]]) -> list[ev.LineResult]:
    """Run `lines` ((argv, repeat) each) for an idle, connected client, sending ahead
    instead of waiting for each reply: the same events and output as one `run` per
    line, in the same order, at a fraction of the round trips. For lines that cannot
    block or change the connection (the caller picks them: `pipelinable`). Returns
    the results of the lines done; fewer than given if the connection dropped (the
    caller runs the rest one by one, which reconnects)."""
    session = executor.pg.sessions[client]
    listening = executor._has_sink
    executor._sinks.pop(client, None)
    results: list[ev.LineResult] = []
    allowed: list[tuple[tuple[bytes, ...], int]] = []
    for argv, repeat in lines:
        try:
            executor.pg.check_allowed(list(argv))
        except Refused as exc:
            if not await _pipeline(executor, session, allowed, results, listening):
                return results
            allowed = []
            executor.emit(ev.Refused(client, str(exc), "warning"))
            results.append(ev.LineResult(client, argv, refused=str(exc)))
            continue
        executor.pg.note_scripts(list(argv))
        allowed.append((argv, repeat))
    await _pipeline(executor, session, allowed, results, listening)
    return results


async def _pipeline(executor: "Executor", session: Session, lines, results: list, listening: bool) -> bool:
    if not lines:
        return True
    client = session.name
    sent_events = listening and not executor.replies_only
    argvs = [argv for argv, repeat in lines for _ in range(repeat)]
    replies = replies_of(session, argvs)
    try:
        for argv, repeat in lines:
            result = ev.LineResult(client, argv)
            results.append(result)
            outputs: list[bytes] = []
            waited = 0.0
            try:
                for _ in range(repeat):
                    if sent_events:
                        executor.emit(ev.Sent(client, argv))
                    _, reply = await replies.__anext__()
                    waited += session.waited
                    executor._replied(session, argv, reply, result, listening, None, outputs)
            except ConnectionLost as exc:
                await executor._lost(session, result, argv[0].lower(), str(exc))
                return False
            result.output = b"".join(outputs)
            result.elapsed = waited
            if waited >= TIMING_FROM:
                executor.emit(ev.Output(client, b"(%.2fs)\n" % waited, kind="timing", buffered=True))
            if executor.attribute:
                executor._attribute_later(result)
    finally:
        await replies.aclose()
    return True


async def replies_of(session: Session, argvs: list, window: int = 512):
    """Send `argvs` ahead, `window` commands a write, and yield (argv, reply) as the
    replies arrive, in order; `waited` is each reply's own server time (from when the
    command was sent or the reply before it was read, whichever is later). For plain
    commands only: no subscribe, monitor or QUIT (the caller picks them).

    Raises ConnectionLost if the connection drops. (A Session method but for its place:
    it keeps the session's state as `Session.execute` does.)"""
    if session._conn is None:
        raise ConnectionLost(f"client {session.name} is not connected")
    conn = session._conn
    session._running = asyncio.current_task()
    batches = [argvs[i:i + window] for i in range(0, len(argvs), window)]
    ready = 0.0
    try:
        sent_at = []
        for index, batch in enumerate(batches):
            if index == 0:
                await conn.send_packed_command(pack_pipeline(batch))
                sent_at.append(time.monotonic())
            if index + 1 < len(batches):  # the next window goes while this one is read
                await conn.send_packed_command(pack_pipeline(batches[index + 1]))
                sent_at.append(time.monotonic())
            ready = max(sent_at[index], ready)
            for argv in batch:
                session.last_unit = None
                reply = await conn.read_response()
                session.waited = max(conn.first_line_at - ready, 0.0)
                ready = time.monotonic()
                session._track(argv, reply)
                yield argv, reply
    except OSError as exc:
        session._conn = None
        session.state = replace(session.state, pending=None)
        raise ConnectionLost(str(exc)) from None
    finally:
        session._running = None
