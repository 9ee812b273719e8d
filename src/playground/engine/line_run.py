"""One line's run on its client's connection: the checks before it is sent (refused,
dropped, reconnect), each repeat sent and its reply recorded, the subscribe loop's
first line, QUIT, Ctrl+C and redis-cli's "(N.NNs)" (engine/executor.py starts it).

Its progress lives on the object, not in a coroutine's locals, so that a line whose
reply is late can be taken over by a task of its own halfway (engine/settled_line.py):
`start(late=...)` returns LATE with the command sent, `finish()` waits for the rest.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Literal

from playground.engine import events as ev
from playground.engine.catalogue import SUBSCRIBES, may_close_own_connection
from playground.engine.pipeline import TIMING_FROM
from playground.engine.playground import Refused
from playground.engine.redirect import follow
from playground.engine.session import LATE, STREAMING, ConnectionLost, NoReply
from playground.i18n import tr
from playground.resp.connection import CLOSED_BY_SERVER
from playground.resp.replies import Err, Reply

if TYPE_CHECKING:
    from playground.engine.executor import Executor
    from playground.engine.job import Job

READING_MESSAGES = b"Reading messages... (press Ctrl-C to quit)\n"


class LineRun:
    """`await LineRun(executor, job).start()`: the line's LineResult."""

    __slots__ = ("executor", "job", "session", "result", "listening", "started", "waited", "outputs", "count",
                 "word")

    def __init__(self, executor: "Executor", job: "Job") -> None:
        self.executor = executor
        self.job = job
        self.session = executor.pg.sessions[job.client]
        self.result = ev.LineResult(job.client, job.argv)
        self.count = 0           # the repeat being run
        self.waited = 0.0
        self.outputs: list[bytes] = []

    async def start(self, late: float | None = None) -> ev.LineResult | Literal[NoReply.LATE]:
        """Run the line; LATE (with `late` given, for a line of one command) when its
        reply has not started to come within `late` seconds: `finish()` then waits
        for it and ends the line."""
        executor, job, session, result = self.executor, self.job, self.session, self.result
        client, argv = job.client, job.argv
        pg = executor.pg
        try:
            await pg.prepare_guard([argv])
            pg.check_allowed(list(argv))
        except Refused as exc:
            executor.emit(ev.Refused(client, str(exc), "warning"))
            result.refused = str(exc)
            return result
        if session.dropped is not None and not session.state.disconnected:
            # found closed (CLIENT KILL) while other lines went out: as in redis-cli, this
            # line meets the closed connection and is lost; the next one reconnects
            await executor.connection_lost(session, result, argv[0].lower(), session.dropped, sent=False)
            return result
        if session.state.disconnected or not session.connected:
            after_quit = session.state.disconnected
            if not await executor.reconnect_for(session, result, after_quit):
                return result
        pg.note_scripts(list(argv))
        if pg.changes is not None:
            await pg.changes.ready()
        self.word = argv[0].lower()
        if self.word == b"shutdown":   # (every client's connection closes as it runs: see connection_lost)
            pg.shutdown_asked = True
        self.listening = executor.listens(client)
        self.started = time.monotonic()
        return await self._commands(late if job.repeat == 1 else None)

    async def finish(self) -> ev.LineResult | Literal[NoReply.LATE]:
        """The rest of a line whose reply was late (in the task that took it over)."""
        return await self._commands(None, resumed=True)

    async def _commands(self, late: float | None, resumed: bool = False) -> ev.LineResult | Literal[NoReply.LATE]:
        executor, job, session, result = self.executor, self.job, self.session, self.result
        client = job.client
        why = executor.why
        handed_over = False
        try:
            for count in range(self.count, job.repeat):
                was_streaming = session.streaming
                try:
                    reply = await self._reply(late, resumed)
                except ConnectionLost as exc:
                    await executor.connection_lost(session, result, self.word, str(exc))
                    return result
                resumed = False
                if reply is LATE:
                    self.count = count
                    handed_over = True
                    return LATE
                if reply is STREAMING:
                    if await self._streamed(count, was_streaming):
                        break  # redis-cli stays in its subscribe loop: `2 SUBSCRIBE a` subscribes once
                    continue
                if await self._replied(reply, count + 1 < job.repeat):
                    break
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or session.cancelling is not task or task.cancelling() > 1:
                raise  # not (only) Ctrl+C's: whoever cancelled the task gets its cancellation
            task.uncancel()  # Ctrl+C: session.cancel() reconnects and says so
            result.lost = "cancelled"
            return result
        finally:
            if not handed_over:
                result.elapsed = time.monotonic() - self.started
                if why is not None:
                    why.in_flight.pop(client, None)
                result.output = b"".join(self.outputs)
        # redis-cli's "(N.NNs)" measures its round trips; here only the server's part of
        # them counts (until each reply starts arriving), not our reading and rendering
        if self.waited >= TIMING_FROM and not result.streaming and (not session.ldb.reply or session.ldb.ended):
            executor.emit(ev.Output(client, b"(%.2fs)\n" % self.waited, kind="timing", buffered=True))
        return result

    async def _reply(self, late: float | None, resumed: bool) -> Reply | NoReply:
        """One repeat's reply: sent now (LATE when it is late), or, `resumed`, the one to
        the command sent before; a MOVED/ASK followed (like redis-cli -c)."""
        executor, session, argv = self.executor, self.session, self.job.argv
        reply: Reply | NoReply
        if resumed:
            reply = await session.reply_to(list(argv))
        else:
            if self.listening and not executor.replies_only:
                executor.emit(ev.Sent(self.job.client, argv))
            if executor.why is not None:
                executor.why.sending(self.job.client, argv)
            reply = await session.execute(list(argv), late)
            if reply is LATE:
                return LATE
        if executor.pg.follows_redirects:  # (engine/redirect.py)
            reply = await follow(executor.pg, session, list(argv), reply, executor.emit)
        return reply

    async def _streamed(self, count: int, was_streaming: bool) -> bool:
        """A repeat that (un)subscribed or monitors: its frames come by the stream. True
        when the repeats end here."""
        session, word = self.session, self.word
        self.result.streaming = True
        if not was_streaming and count == 0 and word in SUBSCRIBES:
            # (redis-cli enters its subscribe loop once: after an error the repeats are plain commands)
            self.executor.emit(ev.Output(self.job.client, READING_MESSAGES))
        await session.wait_stream_drained()
        return session.streaming and not was_streaming

    def _may_have_closed(self, reply: Reply) -> bool:
        """Did the line that got `reply` run a command that may close its own connection
        (the catalogue's `may_close_own_connection`), alone or in the transaction its EXEC ran?"""
        if isinstance(reply, Err):
            return False
        if may_close_own_connection(self.job.argv):
            return True
        unit = self.session.last_unit
        return (unit is not None and unit.kind == "transaction" and unit.ran
                and any(may_close_own_connection(argv) for argv in unit.commands))

    async def _replied(self, reply: Reply, more: bool) -> bool:
        """A repeat's reply shown, recorded and explained. True when the repeats end here
        (the connection is closed: QUIT, the end of a Lua debugging session, a CLIENT
        KILL of its own connection). `more`: repeats follow."""
        executor, session, argv, client = self.executor, self.session, self.job.argv, self.job.client
        self.waited += session.waited
        if self.word == b"shutdown":   # (a reply: it did not stop the server, an error said why)
            executor.pg.shutdown_asked = False
        executor.replied(session, argv, reply, self.result, self.listening, self.job.limit, self.outputs)
        if executor.records:  # what its unit changed, and why (the recorder's: engine/recorder.py)
            await executor.settle(session, argv, reply, self.result)
        if self._may_have_closed(reply) and await executor.pg.closed_by_own_line(session):
            if more:  # as in redis-cli, the next repeat meets the closed connection and is lost
                await executor.connection_lost(session, self.result, self.word, CLOSED_BY_SERVER, sent=False)
            return True
        if not session.state.disconnected:
            return False
        said = tr("the Lua debugging session ended") if session.ldb.ended else "QUIT"
        executor.emit(ev.ConnectionClosed(client, tr(
            "client {client} is disconnected ({why}); the next command reconnects it",
            client=client, why=said)))
        return True
