"""The one command path: a typed line for one client in, typed events out.

Every front end goes through here — a pane, `repl`, the scenario runner, the stepper
and the challenge — and only renders the events (`engine.events`). The executor owns
what used to be done four times: parsing (redis-cli's splitting and repeat counts),
the words redis-cli answers itself (`help`, `clear`), refusals, sending, the
subscribe and monitor streams, noticing a blocked client, cancelling, timing, QUIT and
reconnects, and the server-order number of every reply. What a reply then goes through
(the unit it closed in the server order, what it changed, its why, which keys it wrote)
is the recorder's (engine/recorder.py), the one a program's commands go through too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from playground.engine import events as ev
from playground.engine import local_words, pipeline
from playground.engine.job import Job
from playground.engine.changes import ChangeFeed
from playground.engine.client_state import ClientState
from playground.engine.line_run import LineRun
from playground.engine.recorder import Recorder
from playground.engine.settled_line import run_settled
from playground.engine.playground import Playground
from playground.i18n import tr
from playground.engine.session import LATE, ConnectionLost, MonitorLine, Session
from playground.engine.lua_debugger import LDB_ENDED
from playground.resp.cli_format import render, render_chunks, render_head, render_invalidate, render_ldb
from playground.resp.cli_lines import CommandLine, format_argv
from playground.resp.cli_secrets import redact_line
from playground.resp.replies import Array, Bulk, Err, Int, Map, Nil, Push, Reply, Set, Status

if TYPE_CHECKING:  # (imported when asked for: repl never is)
    pass

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
                 attribute: bool = False, explain: str | None = None, recorder: Recorder | None = None) -> None:
        """`recorder`: what each reply goes through (default: one for `pg` with `attribute`
        and `explain`, its events going to this executor's sinks)."""
        self.pg = pg
        why = None
        if explain and recorder is None:
            from playground.engine.why import WhyTracker  # (imported when asked for: repl never is)

            why = WhyTracker(pg, explain)
        self.recorder = recorder or Recorder(pg, self.emit, why, attribute)
        self.why = self.recorder.why
        self.sink = sink or (lambda event: None)
        self._has_sink = sink is not None  # else the per-reply events are not even built
        self.attribute = self.recorder.attribute
        self.records = self.recorder.records  # what each unit changed, as the server says
        if self.records and pg.changes is None and ChangeFeed.possible(pg):
            pg.changes = ChangeFeed(pg)
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

    def take(self, job: Job, sink: Callable[[ev.Event], None] | None = None) -> None:
        """`job` is its client's line now, its events going to `sink` (None: the
        executor's own)."""
        if sink is not None:
            self._sinks[job.client] = sink
        else:
            self._sinks.pop(job.client, None)
        self._jobs[job.client] = job

    def drop(self, job: Job) -> None:
        """`job` is no longer its client's line (it ended with its caller)."""
        if self._jobs.get(job.client) is job:
            del self._jobs[job.client]

    def listens(self, client: str) -> bool:
        """Does anyone listen to `client`'s per-reply events?"""
        return self._has_sink or client in self._sinks

    def emit(self, event: ev.Event) -> None:
        self._sinks.get(event.client, self.sink)(event)

    # -- lines ----------------------------------------------------------------------

    def parse(self, client: str, line: str | bytes) -> CommandLine | None:
        """redis-cli's reading of a line; a bad one is answered as redis-cli answers it."""
        return local_words.parse(self, client, line)

    async def answer_locally(self, client: str, cmd: CommandLine) -> bool:
        """The words redis-cli answers itself (engine/local_words.py); True when answered."""
        return await local_words.answer_locally(self, client, cmd)

    async def run_line(self, client: str, line: str | bytes) -> ev.LineResult | None:
        """Parse, answer locally or send, and wait for the end; None if nothing was sent."""
        cmd = self.parse(client, line)
        if cmd is None or await self.answer_locally(client, cmd):
            return None
        return await self.submit(client, cmd.argv, cmd.repeat)

    def in_flight(self) -> list[asyncio.Future[Any]]:
        """Every line's task still running, and a write attribution still waiting on the
        reader (for a caller that abandons them after a time-out: scenario/time_limits.py)."""
        tasks = [job.task for job in self._jobs.values() if job.task is not None and not job.task.done()]
        attributing = self.recorder.pending()
        if attributing is not None:
            tasks.append(attributing)
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

    def submit(self, client: str, argv: Sequence[bytes], repeat: int = 1,
               sink: Callable[[ev.Event], None] | None = None) -> Job:
        """Start a command (repeat times) for `client`; the Job says when it settles.
        `sink` receives this job's events instead of the executor's own sink (the
        stepper draws its steps itself)."""
        job = Job(self, client, tuple(argv), repeat)
        why = self.busy(client)
        if why is not None:
            job.task = asyncio.ensure_future(self._refuse(client, job.argv, why))
            return job
        job.task = asyncio.create_task(self._run(job))
        if self.attribute:
            job.task.add_done_callback(self.attribute_when_done)
        self.take(job, sink)
        return job

    def attribute_when_done(self, task: asyncio.Future[Any]) -> None:
        """(a line's task's done callback, with `attribute`)"""
        if not task.cancelled() and task.exception() is None and isinstance(task.result(), ev.LineResult):
            self.attribute_later(task.result())

    async def settled(self, client: str, argv: Sequence[bytes],
                      sink: Callable[[ev.Event], None] | None = None) -> Job:
        """`submit` and `Job.settle` in one: the line is done (`job.task.done()`) or its
        client is blocked (`job.blocked`), in the caller's task when the line cannot
        block (engine/settled_line.py)."""
        return await run_settled(self, client, argv, sink)

    async def run(self, client: str, argv: Sequence[bytes], repeat: int = 1,
                  limit: int | None = None) -> ev.LineResult:
        """Like `submit`, but in the caller's own task, for a caller that waits for the
        end however long it takes (a pane): no task to start, so no extra turn of the
        event loop (where a frame may be drawn) between Enter and the reply. `limit`:
        render only the first bytes of each reply (a pane shows no more; `Reply.left_out`
        says how much was not rendered), in time and memory in proportion to it."""
        job = Job(self, client, tuple(argv), repeat, limit)
        why = self.busy(client)
        if why is not None:
            return await self._refuse(client, job.argv, why)
        job.task = asyncio.current_task()
        self.take(job)
        try:
            result = await self._run(job)
        finally:
            self.drop(job)
        if self.attribute:
            self.attribute_later(result)
        return result

    async def run_pipelined(self, lines: list[tuple[str, tuple[bytes, ...], int]], overlap: bool = True,
                            settle_last: bool = False) -> tuple[list[ev.LineResult], Job | None]:
        """Run `lines` ((client, argv, repeat) each) for idle, connected clients, sending
        ahead: the same events and output as one `run` per line; the last line, if it
        blocks, handed back as a running Job (engine/pipeline.py)."""
        return await pipeline.run_lines(self, lines, overlap, settle_last)

    async def _refuse(self, client: str, argv: tuple[bytes, ...], why: str) -> ev.LineResult:
        self.emit(ev.Notice(client, why, "warning"))
        return ev.LineResult(client, argv, refused=why)

    async def _run(self, job: Job) -> ev.LineResult:
        result = await LineRun(self, job).start()
        assert result is not LATE  # (no `late` given: it waits for the reply)
        return result

    def replied(self, session: Session, argv: tuple[bytes, ...], reply: Reply, result: ev.LineResult, listening: bool,
                 limit: int | None, outputs: list[bytes]) -> None:
        """A reply: its server-order number and its output; the unit it closed, recorded
        (the recorder's first step; `settle` does the next)."""
        client = session.name
        seq = self.pg.next_seq()
        left_out = 0
        output: bytes | Iterator[bytes]
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
        if self.keep_output and isinstance(output, bytes):  # (kept: always rendered whole)
            outputs.append(output)
        result.seqs.append(seq)
        if listening:
            self.emit(ev.Reply(client, argv, reply, output, seq, left_out))
        unit = session.last_unit
        if unit is not None:
            self.recorder.ran(client, unit, seq, result, listening and not self.replies_only)

    async def settle(self, session: Session, argv: tuple[bytes, ...], reply: Reply, result: ev.LineResult) -> None:
        """What the reply's unit changed, and the "why" of a surprising reply, right after
        it (the recorder's: engine/recorder.py)."""
        await self.recorder.settle(session.name, argv, reply, result.seqs[-1], session.last_unit,
                                   session.units.role, result)

    def attribute_later(self, result: ev.LineResult) -> None:
        """Which keys the line's units wrote, once it is done, in command order (the
        recorder's: engine/recorder.py)."""
        self.recorder.attribute_later(result)

    async def attributed(self) -> None:
        """Wait until every unit that ended so far has been attributed."""
        await self.recorder.attributed()

    async def connection_lost(self, session: Session, result: ev.LineResult, word: bytes, why: str,
                              sent: bool = True) -> None:
        """The client's connection closed under its line: the server stopped (SHUTDOWN),
        or only the connection went (CLIENT KILL, a timeout) and a new one is opened (`sent`:
        after the line went out, so a write of it may have run: named so). A SHUTDOWN
        closes every client a moment before its process ends: a connection that cannot be
        opened again is looked at once more, then, as the server's end."""
        client = session.name
        shutdown = word == b"shutdown"   # (its own; another client's SHUTDOWN closes this one too: waited for)
        stopped = self.pg.server_stopped_now(wait=shutdown or self.pg.shutdown_asked)
        if not stopped:
            self.pg.shutdown_asked = False   # (it did not stop this server: a node's, or refused)
        if not stopped and session.address is not None:
            may_have_run = await self.may_have_written(result.argv) if sent else None
            try:
                message = await self.pg.reconnect(client, may_have_run, dropped=True)
            except (ConnectionLost, OSError) as exc:
                if not self.pg.server_stopped_now(wait=True):  # the server runs: only this client is cut off
                    result.lost = str(exc)
                    lost = tr("client {client}: connection lost ({error})", client=client, error=why)
                    self.emit(ev.ConnectionClosed(client, lost, "warning"))
                    self.emit(ev.Notice(client, tr("{error} (not connected)", error=exc), "error"))
                    return
            else:
                result.lost = why
                self.emit(ev.ConnectionClosed(client, tr("client {client}: connection lost ({error})", client=client,
                                                         error=why), "warning"))
                self.emit(ev.Reconnected(client, message))
                return
        if session.address is None:  # the server never started
            result.lost = why
            self.emit(ev.ConnectionClosed(client, tr("client {client}: connection lost ({error})", client=client,
                                                     error=why), "warning"))
            await self.reconnect_for(session, result)
            return
        message = tr("client {client}: the server stopped; {what}", client=client, what=self.pg.gone_message())
        result.server_gone, result.expected_stop = message, shutdown
        # the connection closed with the server: no more blocked, waiting or in a MULTI
        session.state = ClientState(client, db=session.state.db, resp=session.state.resp, server_stopped=True)
        self.emit(ev.ServerGone(client, message, "error", expected=shutdown))

    async def may_have_written(self, argv: tuple[bytes, ...] | list[bytes] | None) -> str | None:
        """How a command whose reply never came is named when it may have written (the
        catalogue says it writes, or cannot say: a script, EXEC, a name it does not know):
        its line, secrets left out, cut at 80 characters; None for one that only reads."""
        if not argv:
            return None
        try:
            await self.pg.catalogue.learn([argv[0]])
        except Exception:  # (the server is gone too: the catalogue cannot say, so it may have written)
            pass
        effect = self.pg.catalogue.effect(list(argv))
        if effect.writes is not None and not effect.writes and not effect.script and not effect.server_state:
            return None
        shown = redact_line(format_argv(list(argv)), list(argv))
        return shown if len(shown) <= 80 else shown[:79] + "…"

    async def reconnect_for(self, session: Session, result: ev.LineResult, after_quit: bool = False,
                            may_have_run: str | None = None, dropped: bool = False) -> bool:
        """A new connection for the line `result` is about; False (and why, in `result`) if none.
        `may_have_run`, `dropped`: how the old one ended (Session.cancel words it)."""
        if session.address is None:  # the server never started
            result.lost = tr("client {client} is not connected: there is no server", client=session.name)
            self.emit(ev.Notice(session.name, result.lost, "error"))
            return False
        try:
            message = await self.pg.reconnect(session.name, may_have_run, dropped)
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
        if not await self.reconnect_for(session, result, after_quit=session.state.disconnected):
            return None
        return tr("client {client}: reconnected as a new client", client=client)

    async def cancel(self, client: str) -> bool:
        """Ctrl+C: abandon what `client` waits for (a new connection); False if idle."""
        session = self.pg.sessions[client]
        if session.state.pending is None and not session.streaming:
            return False
        pending = session.state.pending
        # (a command the server holds blocked has not run: waiting is all it did)
        may_have_run = (await self.may_have_written(pending)
                        if pending is not None and not session.state.blocked else None)
        await self.pg.stop_own_script([session])
        try:
            message = await session.cancel(may_have_run)
        except ConnectionLost as exc:  # e.g. BUSY: the server runs a script and takes no client
            self.emit(ev.Notice(client, str(exc), "error"))
            return True
        self.emit(ev.Reconnected(client, message))
        return True

    # -- streams ----------------------------------------------------------------------

    def _on_stream(self, session: Session, frame: object) -> None:
        client = session.name
        if isinstance(frame, ConnectionLost):
            lost = tr("client {client}: connection lost ({error})", client=client, error=frame)
            self.emit(ev.ConnectionClosed(client, lost, "warning"))
            return
        if isinstance(frame, MonitorLine) and self.pg.own_traffic.seen(bytes(frame)):
            return  # the playground's own reads (inspector, observer), not the clients'
        output = None
        if isinstance(frame, Push) and not session.streaming:
            output = render_invalidate(frame)
        self.emit(ev.Pushed(client, frame, output if output is not None else render(frame)))


def _maybe_big(reply: object) -> bool:
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
