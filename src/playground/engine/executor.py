"""The one command path: a typed line for one client in, typed events out.

Every front end goes through here — a pane, `repl`, the scenario runner, the stepper
and the challenge — and only renders the events (`engine.events`). The executor owns
what used to be done four times: parsing (redis-cli's splitting and repeat counts),
the words redis-cli answers itself (`help`, `clear`), refusals, sending, the
subscribe and monitor streams, noticing a blocked client, cancelling, timing, QUIT and
reconnects, the server-order number of every reply, the units that end, and (when
asked) which keys each unit wrote.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

from playground.engine import events as ev
from playground.engine import pipeline
from playground.engine.job import Job
from playground.engine.pipeline import TIMING_FROM
from playground.engine.changes import ChangeFeed, record as record_changes
from playground.engine.playground import Playground, Refused
from playground.i18n import tr
from playground.engine.session import STREAMING, ConnectionLost, MonitorLine, Session
from playground.engine.lua_debugger import LDB_ENDED
from playground.resp.cli_format import render, render_chunks, render_head, render_invalidate, render_ldb
from playground.resp.cli_lines import (INVALID_ARGUMENTS, INVALID_REPEAT, CommandLine, RepeatError,
                                       SplitError, format_argv, parse_line)
from playground.resp.replies import Array, Bulk, Err, Int, Map, Nil, Push, Set, Status
from playground.engine.redirect import follow

READING_MESSAGES = b"Reading messages... (press Ctrl-C to quit)\n"
_SUBSCRIBE_WORDS = (b"subscribe", b"psubscribe", b"ssubscribe")
RESTART_OUTSIDE_LDB = b"Use 'restart' only in Lua debugging mode.\n"
_BIG_OUTPUT = 1 << 20  # a reply this big is rendered in pieces when nobody keeps its output


class Executor:
    """Runs lines for the clients of one playground and reports typed events to `sink`.

    `attribute=True` works out which keys every unit wrote (two reader round trips at
    most per unit, cached per command name), after the line and in command order
    (`attributed()` waits for it): the inspector's "changed by" needs it; `repl`, `run`
    and `check` don't pay for it.

    `explain="en"` (or another language) emits a `Why` after a reply that needs one
    (EXEC → nil, EXECABORT, BUSY, UNKILLABLE, NOSCRIPT, an unwatched commit: engine/why.py);
    `repl` does not ask for it.
    """

    def __init__(self, pg: Playground, sink: Callable[[ev.Event], None] | None = None, *,
                 attribute: bool = False, explain: str | None = None) -> None:
        self.pg = pg
        self.why = None
        if explain:
            from playground.engine.why import WhyTracker  # (imported when asked for: repl never is)

            self.why = WhyTracker(pg, explain)
        self.sink = sink or (lambda event: None)
        self._has_sink = sink is not None  # else the per-reply events are not even built
        self.attribute = attribute
        self._records = attribute or bool(explain)  # what each unit changed, as the server says
        if self._records and pg.changes is None and ChangeFeed.possible(pg):
            pg.changes = ChangeFeed(pg)
        self._attributions: asyncio.Future | None = None  # the last attribution queued
        self._jobs: dict[str, Job] = {}
        self._sinks: dict[str, Callable[[ev.Event], None]] = {}  # a running job's own sink
        self.keep_output = True
        """False: LineResult.output stays empty, and a big reply's `Reply.output` is an
        iterator of rendered pieces (`repl` writes them as they come: a 50 MB value is
        never rendered in one piece)."""
        self.replies_only = False
        """True: no Sent or UnitEnded events (`repl` prints neither)."""
        for session in pg.sessions.values():
            session.on_stream = self._on_stream

    @property
    def has_sink(self) -> bool:
        """Does anyone listen to the per-reply events? (else they are not even built)"""
        return self._has_sink

    def adopt(self, job: Job) -> None:
        """`job` (a line started elsewhere: the pipeline's last, blocked) is its client's job now."""
        self._jobs[job.client] = job

    def default_sink(self, client: str) -> None:
        """`client`'s events go to the executor's own sink again (no job's own sink)."""
        self._sinks.pop(client, None)

    def emit(self, event: ev.Event) -> None:
        self._sinks.get(event.client, self.sink)(event)

    # -- lines ----------------------------------------------------------------------

    def parse(self, client: str, line: str | bytes) -> CommandLine | None:
        """redis-cli's reading of a line; a bad one is answered as redis-cli answers it."""
        try:
            return parse_line(line)
        except SplitError:
            self.emit(ev.Output(client, INVALID_ARGUMENTS, kind="error"))
        except RepeatError:
            self.emit(ev.Output(client, INVALID_REPEAT, kind="error", buffered=True))
        return None

    async def answer_locally(self, client: str, cmd: CommandLine) -> bool:
        """The words redis-cli answers itself. `help` is answered once whatever the
        repeat count (as redis-cli does: `3 help incr` prints it once); `clear`, `:…` and
        `connect` are checked before the count is stripped, so with a count they go to
        the server. True when answered."""
        word = cmd.argv[0].lower()
        if word in (b"help", b"?") and not self.pg.sessions[client].ldb.active:  # (the debugger has its own)
            index = await self.pg.help_index()
            text = index.output_help([a.decode("utf-8", "replace") for a in cmd.argv[1:]])
            self.emit(ev.Output(client, text, buffered=True))
            return True
        if cmd.counted:
            return False
        if word == b"restart":  # outside its Lua debugger, redis-cli answers this itself
            self.emit(ev.Output(client, RESTART_OUTSIDE_LDB))
            return True
        if word == b"clear" and len(cmd.argv) == 1:
            self.emit(ev.Cleared(client))
            return True
        if word == b"connect" and len(cmd.argv) == 3 and self.pg.topology is not None:
            from playground.engine.server_actions import connect_line
            await connect_line(self, client, cmd.argv[1], cmd.argv[2])  # to a node of the topology
            return True
        if word.startswith(b":"):
            self._preference(client, cmd.argv)
            return True
        if word == b"connect" and len(cmd.argv) == 3:
            self.emit(ev.Notice(client, tr("{command}: not supported here (the "
                                        "playground only talks to its own server, or the one given with --url)", command=cmd.argv[0].decode(errors='replace')),
                                "warning"))
            return True
        return False

    def _preference(self, client: str, argv: list[bytes]) -> None:
        """redis-cli's `cliSetPreferences`: `:set hints|nohints` (nothing to do here:
        there are no hints to switch) and its answers to anything else, which redis-cli
        prints without flushing them (`buffered`)."""
        if argv[0].lower() == b":set" and len(argv) >= 2:
            if argv[1].lower() in (b"hints", b"nohints"):
                return
            text = b"unknown redis-cli preference '%s'\n" % argv[1]
        else:
            text = b"unknown redis-cli internal command '%s'\n" % argv[0]
        self.emit(ev.Output(client, text, buffered=True))

    async def run_line(self, client: str, line: str | bytes) -> ev.LineResult | None:
        """Parse, answer locally or send, and wait for the end; None if nothing was sent."""
        cmd = self.parse(client, line)
        if cmd is None or await self.answer_locally(client, cmd):
            return None
        return await self.submit(client, cmd.argv, cmd.repeat)

    def in_flight(self) -> list:
        """Every line's task still running, and a write attribution still waiting on the
        reader (for a caller that abandons them after a time-out: scenario/time_limits.py)."""
        tasks = [job.task for job in self._jobs.values() if job.task is not None and not job.task.done()]
        if self._attributions is not None and not self._attributions.done():
            tasks.append(self._attributions)
        return tasks

    def busy(self, client: str) -> str | None:
        """Why client `client` can't take a command now (it waits for a reply), or None."""
        job = self._jobs.get(client)
        if job is None or job.task is None or job.task.done():
            return None
        state = self.pg.sessions[client].state
        what = tr("is blocked in") if state.blocked else tr("runs a script:") if state.busy_script else tr("waits for")
        return tr("client {client} {what} {command}: this line was not sent "
                  "(Ctrl+C cancels the wait)", client=client, what=what, command=format_argv(list(job.argv))[:60])

    def submit(self, client: str, argv, repeat: int = 1,
               sink: Callable[[ev.Event], None] | None = None) -> Job:
        """Start a command (repeat times) for `client`; the Job says when it settles.
        `sink` receives this job's events instead of the executor's own sink (the
        stepper draws its steps itself)."""
        job = Job(self, client, tuple(argv), repeat)
        why = self.busy(client)
        if why is not None:
            job.task = asyncio.ensure_future(self._refuse(client, job.argv, why))
            return job
        if sink is not None:
            self._sinks[client] = sink
        else:
            self._sinks.pop(client, None)
        job.task = asyncio.create_task(self._run(job))
        if self.attribute:
            job.task.add_done_callback(
                lambda task: task.cancelled() or task.exception() or self.attribute_later(task.result()))
        self._jobs[client] = job
        return job

    async def run(self, client: str, argv, repeat: int = 1, limit: int | None = None) -> ev.LineResult:
        """Like `submit`, but in the caller's own task, for a caller that waits for the
        end however long it takes (a pane): no task to start, so no extra turn of the
        event loop (where a frame may be drawn) between Enter and the reply. `limit`:
        render only the first bytes of each reply (a pane shows no more; `Reply.left_out`
        says how much was not rendered), in time and memory in proportion to it."""
        job = Job(self, client, tuple(argv), repeat, limit)
        why = self.busy(client)
        if why is not None:
            return await self._refuse(client, job.argv, why)
        self._sinks.pop(client, None)
        job.task = asyncio.current_task()
        self._jobs[client] = job
        try:
            result = await self._run(job)
        finally:
            self._jobs.pop(client, None)
        if self.attribute:
            self.attribute_later(result)
        return result

    async def run_pipelined(self, lines: list[tuple[str, tuple[bytes, ...], int]], overlap: bool = True,
                            settle_last: bool = False) -> tuple[list[ev.LineResult], Job | None]:
        """Run `lines` ((client, argv, repeat) each) for idle, connected clients, sending
        ahead: the same events and output as one `run` per line; the last line, if it
        blocks, handed back as a running Job (engine/pipeline.py)."""
        return await pipeline.run_lines(self, lines, overlap, settle_last)

    async def _refuse(self, client: str, argv, why: str) -> ev.LineResult:
        self.emit(ev.Notice(client, why, "warning"))
        return ev.LineResult(client, argv, refused=why)

    async def _run(self, job: Job) -> ev.LineResult:
        client, argv = job.client, job.argv
        pg = self.pg
        session = pg.sessions[client]
        result = ev.LineResult(client, argv)
        try:
            pg.check_allowed(list(argv))
        except Refused as exc:
            self.emit(ev.Refused(client, str(exc), "warning"))
            result.refused = str(exc)
            return result
        if session.dropped is not None and not session.state.disconnected:
            # found closed (CLIENT KILL) while other lines went out: as in redis-cli, this
            # line meets the closed connection and is lost; the next one reconnects
            await self.connection_lost(session, result, argv[0].lower(), session.dropped)
            return result
        if session.state.disconnected or not session.connected:
            after_quit = session.state.disconnected
            if not await self._reconnect(session, result, after_quit):
                return result
        pg.note_scripts(list(argv))
        if pg.changes is not None:
            await pg.changes.ready()
        word = argv[0].lower()
        listening = self._has_sink or client in self._sinks
        started = time.monotonic()
        waited = 0.0
        outputs: list[bytes] = []
        try:
            for count in range(job.repeat):
                was_streaming = session.streaming
                if listening and not self.replies_only:
                    self.emit(ev.Sent(client, argv))
                if self.why is not None:
                    self.why.sending(client, argv)
                try:
                    reply = await session.execute(list(argv))
                    if pg.follows_redirects:  # like redis-cli -c (engine/redirect.py)
                        reply = await follow(pg, session, list(argv), reply, self.emit)
                except ConnectionLost as exc:
                    await self.connection_lost(session, result, word, str(exc))
                    return result
                if reply is STREAMING:
                    result.streaming = True
                    if not was_streaming and count == 0 and word in _SUBSCRIBE_WORDS:
                        # (redis-cli enters its subscribe loop once: after an error the
                        # repeats are plain commands)
                        self.emit(ev.Output(client, READING_MESSAGES))
                    await session.wait_stream_drained()
                    if session.streaming and not was_streaming:
                        break  # redis-cli stays in its subscribe loop: `2 SUBSCRIBE a` subscribes once
                    continue
                waited += session.waited
                self.replied(session, argv, reply, result, listening, job.limit, outputs)
                if self._records and session.last_unit is not None:
                    await record_changes(pg, session.last_unit)
                if self.why is not None:
                    await self._explain(session, argv, reply, result)
                if session.state.disconnected:
                    why = tr("the Lua debugging session ended") if session.ldb.ended else "QUIT"
                    self.emit(ev.ConnectionClosed(client, tr("client {client} is disconnected ({why}); "
                                                          "the next command reconnects it", client=client, why=why)))
                    break
        except asyncio.CancelledError:  # Ctrl+C: session.cancel() reconnects and says so
            result.lost = "cancelled"
            return result
        finally:
            result.elapsed = time.monotonic() - started
            if self.why is not None:
                self.why.in_flight.pop(client, None)
            result.output = b"".join(outputs)
        # redis-cli's "(N.NNs)" measures its round trips; here only the server's part of
        # them counts (until each reply starts arriving), not our reading and rendering
        if waited >= TIMING_FROM and not result.streaming and (not session.ldb.reply or session.ldb.ended):
            self.emit(ev.Output(client, b"(%.2fs)\n" % waited, kind="timing", buffered=True))
        return result

    def replied(self, session: Session, argv, reply, result: ev.LineResult, listening: bool,
                 limit: int | None, outputs: list[bytes]) -> None:
        """Record a reply: its server order, its output, the unit it closed."""
        client = session.name
        seq = self.pg.next_seq()
        left_out = 0
        if session.ldb.reply:  # redis-cli's Lua debugger: its log lines, then the EVAL's reply
            output = render_ldb(reply)
            if session.ldb.ended:
                output += render(session.ldb.final) + LDB_ENDED
        elif limit is not None:
            output, left_out = render_head(reply, argv, limit)
        elif not self.keep_output and _maybe_big(reply):
            output = render_chunks(reply, argv)
        else:
            output = render(reply, argv)
        result.replies.append(reply)
        if self.keep_output:
            outputs.append(output)
        result.seqs.append(seq)
        if listening:
            self.emit(ev.Reply(client, argv, reply, output, seq, left_out))
        unit = session.last_unit
        if unit is None:
            return
        unit.seq = seq
        self.pg.order.ran(seq, client, unit)
        result.units.append(unit)
        if listening and not self.replies_only:
            self.emit(ev.UnitEnded(client, unit))

    async def _explain(self, session: Session, argv, reply, result: ev.LineResult) -> None:
        """The "why" of a surprising reply, right after it (engine/why.py)."""
        try:
            whys = await self.why.explain(session.name, argv, reply, result.seqs[-1], session.last_unit)
        except (OSError, ConnectionLost):
            return  # the server is busy or gone: no explanation, the reply stands
        for why in whys:
            result.whys.append(why)
            self.emit(why)

    def attribute_later(self, result: ev.LineResult) -> None:
        """Attribution costs reader round trips (COMMAND INFO, GETKEYS): it starts when
        the line is done, in command order, so neither the reply nor the line's end
        waits for it."""
        if result.units:
            self._attributions = asyncio.ensure_future(self._attribute_after(self._attributions, result.units))

    async def _attribute_after(self, before, units) -> None:
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)
        for unit in units:
            await self.attribute_unit(unit)

    async def attributed(self) -> None:
        """Wait until every unit that ended so far has been attributed."""
        while self._attributions is not None and not self._attributions.done():
            await asyncio.gather(self._attributions, return_exceptions=True)

    async def attribute_unit(self, unit) -> None:
        """Which keys `unit` wrote: a `Wrote` event (`pg.writes` remembers the writer)."""
        try:
            keys = await self.pg.writes.note_unit(unit)
        except (OSError, ConnectionLost):
            return  # the server is busy or gone: this write's author stays unknown
        if keys:
            self.emit(ev.Wrote(unit.client, keys, unit))

    async def connection_lost(self, session: Session, result: ev.LineResult, word: bytes, why: str) -> None:
        client = session.name
        shutdown = word == b"shutdown"
        if self.pg.server_stopped_now(wait=shutdown):
            message = tr("client {client}: the server stopped; {what}", client=client, what=self.pg.gone_message())
            result.server_gone, result.expected_stop = message, shutdown
            self.emit(ev.ServerGone(client, message, "error", expected=shutdown))
            return
        result.lost = why
        self.emit(ev.ConnectionClosed(client, tr("client {client}: connection lost ({error})", client=client, error=why), "warning"))
        await self._reconnect(session, result)

    async def _reconnect(self, session: Session, result: ev.LineResult, after_quit: bool = False) -> bool:
        if session.address is None:  # the server never started
            result.lost = tr("client {client} is not connected: there is no server", client=session.name)
            self.emit(ev.Notice(session.name, result.lost, "error"))
            return False
        try:
            message = await self.pg.reconnect(session.name)
        except (ConnectionLost, OSError) as exc:
            result.lost = str(exc)
            self.emit(ev.Notice(session.name, tr("{error} (not connected)", error=exc), "error"))
            return False
        if after_quit:
            cause = tr("the Lua debugging session") if session.ldb.ended else "QUIT"
            message = tr("client {client}: reconnected as a new client ({cause} ended the old one, "
                         "with its MULTI, WATCH and subscriptions)", client=session.name, cause=cause)
        self.emit(ev.Reconnected(session.name, message))
        return True

    async def reconnect(self, client: str) -> str | None:
        """A new connection for `client` (a scenario's reconnect step, after QUIT or a
        CLIENT KILL); what happened, or None if it could not connect."""
        session = self.pg.sessions[client]
        result = ev.LineResult(client, ())
        if not await self._reconnect(session, result, after_quit=session.state.disconnected):
            return None
        return tr("client {client}: reconnected as a new client", client=client)

    async def cancel(self, client: str) -> bool:
        """Ctrl+C: abandon what `client` waits for (a new connection); False if idle."""
        session = self.pg.sessions[client]
        if session.state.pending is None and not session.streaming:
            return False
        try:
            message = await session.cancel()
        except ConnectionLost as exc:  # e.g. BUSY: the server runs a script and takes no client
            self.emit(ev.Notice(client, str(exc), "error"))
            return True
        self.emit(ev.Reconnected(client, message))
        return True

    # -- streams ----------------------------------------------------------------------

    def _on_stream(self, session: Session, frame) -> None:
        client = session.name
        if isinstance(frame, ConnectionLost):
            self.emit(ev.ConnectionClosed(client, tr("client {client}: connection lost ({error})", client=client, error=frame), "warning"))
            return
        if isinstance(frame, MonitorLine) and self.pg.own_traffic.seen(bytes(frame)):
            return  # the playground's own reads (inspector, observer), not the clients'
        output = None
        if isinstance(frame, Push) and not session.streaming:
            output = render_invalidate(frame)
        self.emit(ev.Message(client, frame, output if output is not None else render(frame)))


def _maybe_big(reply) -> bool:
    """Could redis-cli's rendering of `reply` be over a MiB? (cheap: no rendering)"""
    kind = type(reply)
    if kind is Int or kind is Status or kind is Err or reply is Nil:
        return False
    if isinstance(reply, Bulk):
        return len(reply) > _BIG_OUTPUT
    if not isinstance(reply, (Array, Set, Map, Push)):
        return False
    return len(reply) > 4096 or any(isinstance(x, Bulk) and len(x) > _BIG_OUTPUT
                                    for x in (reply if not isinstance(reply, Map) else (v for _, v in reply)))
