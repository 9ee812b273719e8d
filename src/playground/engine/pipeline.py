"""Pipelined lines: plain lines sent ahead, replies read as they come, in input order.

`repl` reads many lines from a file or pipe; one round trip per line would make it
several times slower than redis-cli. Lines that cannot block, stream or change the
connection (`pipelinable`) go to the server in windows of a few hundred commands, and
each reply is tracked, rendered and reported exactly as the executor's one-line path
does (same events, same order, same "(N.NNs)" rule: a reply's own server time, from
when its command was sent or the reply before it had arrived, whichever is later, to
when its first byte arrived: redis-cli, a line at a time, sends a line once the reply
before it is in, and our own reading and rendering count for no line).

Order: a client's lines keep their order on its connection. A line of another client
is sent once the replies of the lines before it are in (it may read what they wrote),
unless it commutes with every line still in flight (engine/commuting.py: they share no
key that either writes): then it is sent at once, and the replies are still read and
reported in input order. Either way each client sees what it would see line by line.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from playground.engine import events as ev
from playground.engine.catalogue import (BLOCK_TIMEOUT_AT, CLOSES_OWN_CONNECTION, SCRIPT_COMMANDS, SUBSCRIBE_FAMILY,
                                        may_close_own_connection)
from playground.engine.commuting import in_order, waits as commuting_waits
from playground.engine.playground import Refused
from playground.engine.job import Job
from playground.engine.client_state import replace
from playground.i18n import tr
from playground.resp.cli_lines import format_argv
from playground.engine.session import Session
from playground.resp.connection import MORE, TypedConnection, pack_command
from playground.resp.replies import Reply

if TYPE_CHECKING:
    from playground.engine.executor import Executor

TIMING_FROM = 0.5  # redis-cli prints "(N.NNs)" after a reply that took at least this long
WINDOW = 512       # commands sent and not yet answered, at most
SEND_AT = 64       # commands gathered before a write, unless a reply is waited for sooner
LOW_WATER = 16     # or fewer than this are on their way (after a wait for another client's reply)

# Commands that may wait for another client or for time (blocking pops, WAIT: the
# catalogue's BLOCK_TIMEOUT_AT, and XREAD/XREADGROUP with BLOCK; scripts that run until
# killed: its SCRIPT_COMMANDS), stream (its SUBSCRIBE_FAMILY, monitor), end or replace the connection
# (QUIT, RESET, HELLO, AUTH, SHUTDOWN, CLIENT ..., SYNC; its CLOSES_OWN_CONNECTION: CLIENT KILL, ACL
# DELUSER ..., whose end is asked of the server after the reply), or enter redis-cli's own modes
# (SCRIPT DEBUG): they go one by one, with the executor's blocked-client detection.
NOT_PIPELINED = (frozenset(BLOCK_TIMEOUT_AT) | frozenset(SCRIPT_COMMANDS) | SUBSCRIBE_FAMILY
                 | frozenset(CLOSES_OWN_CONNECTION) | frozenset(w.encode() for w in """
    xread xreadgroup script function monitor
    quit reset hello auth shutdown client debug sync psync replicaof slaveof failover
""".split()))


def pipelinable(argv: Sequence[bytes]) -> bool:
    """May this line be sent before the replies of the lines ahead of it have come?"""
    return argv[0].lower() not in NOT_PIPELINED


def may_close_after(session: Session, argv: Sequence[bytes]) -> bool:
    """May the server close `session`'s connection after the reply to `argv`: a command
    that may close its own connection (the catalogue's `may_close_own_connection`), or
    the EXEC of a transaction that queued one. Such a line goes alone (never with the
    lines after it: the executor asks the server after its reply whether it closed)."""
    if may_close_own_connection(argv):
        return True
    tx = session.units.open
    return (tx is not None and bytes(argv[0]).lower() == b"exec"
            and any(may_close_own_connection(queued) for queued in tx.commands))


class _Line:
    __slots__ = ("client", "argv", "repeat", "refused", "wait", "packed", "sent", "written", "read", "sent_at",
                 "result", "outputs", "waited")

    def __init__(self, client: str, argv: tuple[bytes, ...], repeat: int) -> None:
        self.client, self.argv, self.repeat = client, argv, repeat
        self.refused: str | None = None
        self.wait = -1                 # the line of another client to be answered before this is sent
        self.packed = b""
        self.sent = self.written = self.read = 0  # commands gathered to send, written, replies read
        self.sent_at = 0.0
        self.result = ev.LineResult(client, argv)
        self.outputs: list[bytes] = []
        self.waited = 0.0


async def run_lines(executor: "Executor", lines: list[tuple[str, tuple[bytes, ...], int]],
                    overlap: bool = True, settle_last: bool = False) -> tuple[list[ev.LineResult], "Job | None"]:
    """Run `lines` ((client, argv, repeat) each, clients idle and connected) sending
    ahead instead of waiting for each reply: the same events and output as one `run`
    per line, in the same order, at a fraction of the round trips. For lines that cannot
    block or change the connection (the caller picks them: `pipelinable`). `overlap`:
    send a line of one client while another's are in flight when they commute (off:
    wait at every switch between clients, e.g. while pushes are shown, whose place
    among the replies would depend on it).

    `settle_last`: the last line may block (a script that another client's line follows,
    which may have to kill it): it is waited for as `Job.settle` waits, and if the server
    says its client is blocked, it is handed back still running, as a Job.

    Returns the results of the lines done, in order, and that Job (or None); fewer
    results than lines if the server went away (the caller deals with that and runs the
    rest one by one). A client whose own connection dropped is reconnected, and its
    later lines run one by one."""
    pg = executor.pg
    todo = [_Line(client, argv, repeat) for client, argv, repeat in lines]
    clients = {line.client for line in todo}
    await pg.prepare_guard(line.argv for line in todo)
    for line in todo:
        try:
            pg.check_allowed(line.argv)
        except Refused as exc:
            line.refused = str(exc)
            continue
        pg.note_scripts(line.argv)
        line.packed = pack_command(line.argv)
    if len(clients) > 1:
        heads = [(line.client, line.argv) for line in todo]
        waits = await commuting_waits(pg.catalogue, heads) if overlap else in_order(heads)
        for line, wait in zip(todo, waits, strict=True):  # (a wait per line)
            line.wait = wait
    listening = executor.has_sink
    sessions = {name: pg.sessions[name] for name in clients}
    task = asyncio.current_task()
    for name, session in sessions.items():
        executor.default_sink(name)
        session.running = task
    run = _Run(executor, todo, sessions, listening)
    pending = None
    try:
        if not settle_last:
            return await run.go(), None
        results = await run.go(len(todo) - 1)
        if len(results) < len(todo) - 1:
            return results, None
        last = todo[-1]
        task = asyncio.ensure_future(run.answer_last(last))
        if await pg.settle(last.client, task):
            return results + [task.result()], None
        pending = Job(executor, last.client, last.argv, last.repeat)
        pending.task = task
        executor.adopt(pending)
        sessions[last.client].running = task
        return results, pending
    finally:
        for session in sessions.values():
            if pending is None or session.name != pending.client:
                session.running = None


class _Run:
    def __init__(self, executor: "Executor", todo: list[_Line], sessions: dict[str, Session], listening: bool) -> None:
        self.executor = executor
        self.todo = todo
        self.sessions = sessions
        self.listening = listening
        self.out: dict[str, list[bytes]] = {name: [] for name in sessions}
        self.unsent: list[_Line] = []   # lines with commands gathered and not yet written
        self.gathered = 0
        self.in_flight = 0              # commands sent (or gathered) and not yet answered
        self.next_send = 0
        self.answered = -1              # every line up to this one is answered
        self.lost: dict[str, str] = {}  # clients whose connection dropped here: why
        self.ready = 0.0
        self.sent_events = listening and not executor.replies_only
        self.own_scripts = executor.pg.url is not None  # note a script line sent (url_guard.stop_own_script)

    async def go(self, end: int | None = None) -> list[ev.LineResult]:
        """Answer the lines (up to `end`), in order."""
        results = []
        for index, line in enumerate(self.todo[:end]):
            if line.refused is not None:
                self._refused(line)
            elif self._one_by_one(line):
                self.next_send = max(self.next_send, index + 1)
                results.append(self._unanswered(line) if line.written > line.read else
                               await self.executor.run(line.client, line.argv, line.repeat))
                self.answered = index
                continue
            else:
                if self.next_send < len(self.todo):
                    self._gather()
                if self.gathered and (self.gathered >= SEND_AT or self.in_flight - self.gathered < LOW_WATER):
                    await self._send()  # (few replies left to come: send now, not when they are read)
                if not self._take(line) and not await self._answer(line) and line.result.server_gone:
                    results.append(line.result)
                    return results
            results.append(line.result)
            self.answered = index
        return results

    async def answer_last(self, line: _Line) -> ev.LineResult:
        """The last line, in a task of its own (see run_lines' `settle_last`)."""
        if line.refused is not None:
            self._refused(line)
        elif self._one_by_one(line):
            if line.written > line.read:
                return self._unanswered(line)
            return await self.executor.run(line.client, line.argv, line.repeat)
        else:
            session = self.sessions[line.client]
            session.state = replace(session.state, pending=line.argv)  # (the observer's busy_script)
            await self._answer(line)
        return line.result

    def _refused(self, line: _Line) -> None:
        assert line.refused is not None  # (refused: why is said)
        self.executor.emit(ev.Refused(line.client, line.refused, "warning"))
        line.result.refused = line.refused

    def _unanswered(self, line: _Line) -> ev.LineResult:
        """A line sent on a connection that then dropped, its reply never read: it may
        have run, so it is not sent again (INCR would count twice); stderr says so."""
        self.in_flight -= line.written - line.read
        self._may_have_run(line)
        return line.result

    def _may_have_run(self, line: _Line) -> None:
        what = format_argv(list(line.argv))
        if line.repeat > 1:
            what = f"{line.repeat} {what}"
        line.result.lost = tr("client {client}: no reply to {command}: it was sent before the connection "
                              "dropped and may have run; not sent again", client=line.client, command=what)
        line.result.may_have_run = True
        self.executor.emit(ev.Notice(line.client, line.result.lost, "warning"))

    def _one_by_one(self, line: _Line) -> bool:
        """After a dropped connection, whatever was not sent yet (and every later line of
        the client that lost it) goes the one-line way, which reconnects."""
        return bool(self.lost) and (line.client in self.lost or line.sent == 0)

    def _gather(self) -> None:
        """Take the lines that may be sent now, in input order: a line waits until the
        line of another client it does not commute with is answered (`_Line.wait`)."""
        todo = self.todo
        while self.next_send < len(todo) and self.in_flight < WINDOW:
            line = todo[self.next_send]
            if line.refused is not None:
                self.next_send += 1
                continue
            if line.wait > self.answered or self._one_by_one(line):
                return  # (after a dropped connection, only a line half sent goes on)
            count = min(line.repeat - line.sent, WINDOW - self.in_flight)
            self.out[line.client].append(line.packed * count if count > 1 else line.packed)
            line.sent += count
            self.in_flight += count
            self.gathered += count
            self.unsent.append(line)
            if self.own_scripts and bytes(line.argv[0]).lower() in SCRIPT_COMMANDS:
                self.sessions[line.client].script_sent = line.argv
            if line.sent < line.repeat:
                return
            self.next_send += 1

    async def _send(self) -> None:
        failed = set()
        for name, pieces in self.out.items():
            if pieces:
                data = b"".join(pieces)
                pieces.clear()
                session = self.sessions[name]
                conn = session.connection
                try:
                    if conn is None:  # (dropped meanwhile: as a closed socket)
                        raise ConnectionError("not connected")
                    await conn.send_packed_command(data)
                except OSError as exc:  # (a closed socket: the server read none of it)
                    self._dropped(session, exc)
                    failed.add(name)
        now = time.monotonic()
        for line in self.unsent:
            if line.client in failed:  # not sent after all: it goes the one-line way
                self.in_flight -= line.sent - line.written
                line.sent = line.written
                continue
            line.sent_at = now
            line.written = line.sent
        self.unsent.clear()
        self.gathered = 0

    def _dropped(self, session: Session, exc: BaseException) -> None:
        self.lost[session.name] = str(exc)
        session.forget_connection(str(exc))

    def _take(self, line: _Line) -> bool:
        """Answer `line` from the replies already in its connection's buffer; True when
        that was all of them (no coroutine, no wait: most lines of a long input)."""
        if line.written != line.repeat or self.lost:
            return False
        session = self.sessions[line.client]
        conn = session.connection
        if conn is None:  # (dropped: _answer says so)
            return False
        while line.read < line.repeat:
            reply = conn.buffered_response()
            if reply is MORE:
                return False
            self._got(line, session, conn, reply)
        self._done(line)
        return True

    async def _answer(self, line: _Line) -> bool:
        """Read `line`'s replies (sending more lines meanwhile); False if its connection
        dropped (the line is reported lost)."""
        session = self.sessions[line.client]
        while line.read < line.repeat:
            self._gather()
            if self.gathered and (self.gathered >= SEND_AT or line.written == line.read):
                await self._send()
            if line.client in self.lost:
                return await self._lost(line, session)
            conn = session.connection
            try:
                if conn is None:  # (dropped meanwhile: as a closed socket)
                    raise ConnectionError("not connected")
                for _ in range(line.written - line.read):
                    reply = conn.buffered_response()
                    if reply is MORE:
                        reply = await conn.read_response()
                    self._got(line, session, conn, reply)
            except OSError as exc:
                self._dropped(session, exc)
                return await self._lost(line, session)
        self._done(line)
        return True

    def _got(self, line: _Line, session: Session, conn: TypedConnection, reply: Reply) -> None:
        """One reply of `line`: tracked, rendered and reported as `Executor.run` does."""
        if self.sent_events:
            self.executor.emit(ev.Sent(line.client, line.argv))
        ready = self.ready if self.ready > line.sent_at else line.sent_at
        waited = conn.first_line_at - ready
        if waited < 0:
            waited = 0.0
        self.ready = conn.last_byte_at
        line.read += 1
        self.in_flight -= 1
        session.waited = waited
        line.waited += waited
        session.last_unit = None
        session.track(line.argv, reply)
        self.executor.replied(session, line.argv, reply, line.result, self.listening, None, line.outputs)

    def _done(self, line: _Line) -> None:
        executor, result = self.executor, line.result
        result.output = b"".join(line.outputs)
        result.elapsed = line.waited
        if line.waited >= TIMING_FROM:
            executor.emit(ev.Output(line.client, b"(%.2fs)\n" % line.waited, kind="timing", buffered=True))
        if executor.attribute:
            executor.attribute_later(result)

    async def _lost(self, line: _Line, session: Session) -> bool:
        """The connection dropped while `line`'s reply was awaited: the client reconnects,
        and a line that was sent is named as one that may have run (a CONFIG SET's OK
        lost with the replies piled up behind it, when the server dropped the client for
        its output buffer)."""
        sent = line.written > line.read
        self.in_flight -= line.sent - line.read
        session.running = None
        await self.executor.connection_lost(session, line.result, line.argv[0].lower(), self.lost[line.client])
        if sent and not line.result.server_gone:
            self._may_have_run(line)
        return False
