"""`import monitor`: a MONITOR capture made a lesson that a teacher can step, check and
explore.

A MONITOR line holds the command, its client's address and the time, not the reply. So
the capture is replayed on the playground's private server (after the `--setup`
commands: the keys as they were before the capture), one client per address, in the
server's order, and each step gets the reply it got there as its check. Then:

- The client library's handshake is left out (scenario/monitor_clients.py); `[0 lua]`
  lines are the commands a script ran: they go into its step's narration.
- A value a client writes that is its own earlier read of that key, changed in a simple
  way, becomes `save` on the read and `${name+1}` in the write (scenario/monitor_flow.py),
  but only when the runner's substitution gives back the captured bytes and the value is
  stored in the key afterwards; else the literal stays, with a comment saying why.
- An EVALSHA whose script the capture holds becomes an EVAL of it (the client's
  NOSCRIPT, SCRIPT LOAD, EVALSHA retry: one EVAL), so that the lesson does not depend
  on the order the script cache was filled in.
- A command that blocked gets `blocking = true` and a `wait` step where the server
  unblocked it; a gap in the capture's times while a key has a TTL becomes a `sleep`.

The capture is read three times, each time streamed (bounded memory whatever its
length): a survey (monitor_clients.py), the replay, which writes each step's TOML to a
private temporary file as soon as it is known, and the lesson's assembly, which puts the
header before those steps. The lesson is read back by the scenario loader before it is
handed over (cli/import_command.py writes it atomically).
"""

from __future__ import annotations

import asyncio
import datetime
import json
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO

from playground.engine.catalogue import (
    SCRIPT_COMMANDS,
    block_timeout,
    depends_on_time,
    script_run,
    ttl_set,
)
from playground.engine.executor import Executor
from playground.engine.units import transaction_role
from playground.engine.playground import Playground
from playground.i18n import Translated, again, tr, trn
from playground.resp.cli_lines import format_argv, quote_arg
from playground.resp.replies import Bulk, Err, Int, Nil
from playground.scenario.checks import describe_key
from playground.scenario.model import Step
from playground.scenario.monitor_clients import (
    CaptureError,
    CaptureSurvey,
    is_handshake,
)
from playground.scenario.monitor_flow import Guess, guess, save_name
from playground.scenario.monitor_lines import (
    MonitorFormatError,
    CaptureLine,
    read_monitor,
)
from playground.scenario.recorder import toml_string
from playground.scenario.source import MAX_FILE_BYTES
from playground.scenario.substitution import escape, plain_value
from playground.scenario.writer import script_lines, step_lines, text_lines

SLEEP_FROM = 0.05
"""Seconds: a shorter gap between two steps never becomes a `sleep` (it is noise)."""
MOST_SLEEP = 30.0
"""A step's `sleep` may be at most this (the scenario format's own bound)."""
READS_KEPT = 256
"""Per client, the reads of this many keys are remembered as sources of written values."""
HELD_MOST = 10_000
"""Steps held back while a transaction's written values wait for its EXEC, at most."""
LUA_SHOWN = 8
"""A script's own commands named in its step's narration, at most."""
_REFUSED_REPLIES = (b"NOPERM", b"ERR unknown command", b"ERR unknown subcommand", b"ERR wrong number of arguments")
"""Errors MONITOR never shows a command with (the server refuses it before running it):
on the replay they mean that the line was cut short or the sandbox refuses the command."""


@dataclass
class _Read:
    """A client's reply from reading one key: where a later written value may come from."""

    record: int
    line: int
    key: bytes
    name: str
    value: object           # as a scenario saves it: int, str; None for nil


@dataclass
class _Record:
    """One step of the lesson, until its TOML is written."""

    id: int
    client: str
    line: int
    offset: float                        # seconds since the capture's first command
    argv: tuple[bytes, ...] = ()
    words: list[str] = field(default_factory=list)   # each argument as the file has it
    reply: str | None = None
    error: str | None = None
    blocking: bool = False
    wait: bool = False
    sleep: float = 0.0
    save: str | None = None
    notes: list[str] = field(default_factory=list)     # narration, after its place in the capture
    comments: list[str] = field(default_factory=list)  # `# ...` lines above the step
    lua: list[tuple[bytes, ...]] = field(default_factory=list)
    lua_more: int = 0
    ready: bool = True                   # False: a written value waits for its transaction's EXEC


@dataclass
class _Written:
    """A step's written values waiting to be checked against the keys (after the command,
    or its transaction's EXEC): position -> guess."""

    record: _Record
    keys: frozenset[bytes]
    guesses: dict[int, Guess]
    source: _Read


@dataclass
class ImportResult:
    """What the replay found, for the lesson's header and the summary line."""

    steps: int = 0
    substituted: int = 0
    literals: int = 0
    lua_lines: int = 0
    orphan_lua: int = 0
    sleeps: int = 0
    scripts: dict[str, str] = field(default_factory=dict)   # name -> source, in order of use
    used: set[int] = field(default_factory=set)             # records whose save a later step uses
    dropped: set[int] = field(default_factory=set)          # records folded into a later one
    server: str = ""


class CaptureReplay:
    """Replays a surveyed capture on `pg` (a private server, started) and writes each
    step's TOML lines to `records` (one JSON object a line)."""

    def __init__(self, pg: Playground, survey: CaptureSurvey, setup: list[tuple[bytes, ...]],
                 records: IO[str]) -> None:
        self.pg = pg
        self.survey = survey
        self.setup = setup
        self.records = records
        self.executor = Executor(pg)
        self.catalogue = pg.catalogue
        self.result = ImportResult(server=pg.label)
        self._next_id = 0
        self._out: deque[_Record] = deque()
        self._reads: dict[str, OrderedDict[bytes, _Read]] = {}
        self._names: dict[str, dict[str, bytes]] = {}
        self._pending: dict[str, tuple[object, _Record]] = {}   # client -> (its blocked Job, its step)
        self._in_tx: dict[str, list[_Written]] = {}
        self._capture_db: dict[str, int] = {}
        self._stepped: set[str] = set()
        self._last_script: _Record | None = None
        self._noscript: dict[str, tuple[_Record, str, tuple[bytes, ...]]] = {}
        self._loaded: dict[str, tuple[_Record, _Record, str, tuple[bytes, ...]]] = {}
        self._script_names: dict[str, str] = {}
        self._ttl_until = 0
        self._last_micros: int | None = None
        self._bytes = 0  # the steps' TOML so far

    # -- the run ------------------------------------------------------------------------

    async def run(self, on_bytes: Callable[[int], None] | None = None) -> ImportResult:
        """Replay the whole capture: the setup, then every line in order."""
        first = self.survey.names[0]
        replies = await self.pg.reset(setup=[list(a) for a in self.setup], by=first)
        for argv, reply in zip(self.setup, replies, strict=True):
            if isinstance(reply, Err):
                raise CaptureError(tr("--setup {command}: {error}", command=format_argv(list(argv)),
                                      error=reply.message.decode("utf-8", "replace")))
            seconds = ttl_set(argv)
            if seconds is not None and self.survey.first_micros is not None:
                self._ttl_until = max(self._ttl_until, self.survey.first_micros + int(seconds[1] * 1e6))
        path = self.survey.path
        try:
            for line in _capture_lines(self.survey, on_bytes):
                try:
                    await self._line(line)
                except CaptureError as exc:
                    raise CaptureError(f"{path}: " + tr("line {number}: {message}", number=line.number,
                                                        message=str(exc))) from None
        except MonitorFormatError as exc:  # (the survey read it: the file changed since)
            raise CaptureError(f"{path}: {exc}") from None
        except OSError as exc:
            raise CaptureError(f"{path}: {exc.strerror or exc}") from None
        try:
            await self._end()
        except CaptureError as exc:
            raise CaptureError(f"{path}: {exc}") from None
        return self.result

    async def _line(self, line: CaptureLine) -> None:
        if line.lua:
            self._script_line(line)
            return
        self._last_script = None
        if line.source not in self.survey.clients:
            raise CaptureError(tr("the capture changed while it was imported: read it again"))
        client = self.survey.client(line.source)
        db_now = self._capture_db.get(line.source, 0)
        self._capture_db[line.source] = line.db
        if not client.steps:  # (only a handshake)
            return
        if is_handshake(line.argv, db_now, first=line.source not in self._stepped):
            return
        self._stepped.add(line.source)
        await self._unblocked()
        name = client.name
        for other, held in list(self._in_tx.items()):
            if other != name and held:  # another client moved: that EXEC is not coming next
                self._give_up(other)
        if name in self._pending:
            await self._own_wait(name, line)
        command = line.argv[0].lower()
        if command != b"select" and self.pg.sessions[name].state.db != line.db:
            await self._switch_db(name, line)
        await self._command(name, line)
        self._flush(keep_last=True)

    async def _end(self) -> None:
        await self._unblocked()
        for name, (job, record) in list(self._pending.items()):
            record.comments.append(tr("its reply had not come when the capture ended"))
            await self.executor.cancel(name)
            await asyncio.gather(job.task, return_exceptions=True)  # type: ignore[attr-defined]
        self._pending.clear()
        for name in list(self._in_tx):
            self._give_up(name)
        self._flush(keep_last=False)

    # -- one command --------------------------------------------------------------------

    def _record(self, name: str, line: CaptureLine, argv: tuple[bytes, ...]) -> _Record:
        self._next_id += 1
        first = self.survey.first_micros or line.micros
        record = _Record(self._next_id, name, line.number, (line.micros - first) / 1e6, argv,
                         [quote_arg(escape(a.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape"))
                          for a in argv])
        self._out.append(record)
        return record

    def _sleep(self, line: CaptureLine) -> float:
        """Seconds to let pass before this line: its gap from the line before, when a key
        had a TTL meanwhile (else nothing)."""
        last, self._last_micros = self._last_micros, line.micros
        if last is None or self._ttl_until <= last:
            return 0.0
        gap = (line.micros - last) / 1e6
        return round(min(gap, MOST_SLEEP), 3) if gap >= SLEEP_FROM else 0.0

    async def _command(self, name: str, line: CaptureLine) -> None:
        argv = line.argv
        command = argv[0].lower()
        await self.catalogue.learn([command])
        if self.catalogue.commands.get(command) is None:
            raise CaptureError(tr("{command}: {server} does not know this command (a module's, or a newer "
                                  "server's?): the lesson could not run it", command=argv[0].decode("utf-8", "replace"),
                                  server=self.pg.label))
        record = self._record(name, line, argv)
        record.sleep = self._sleep(line)
        if record.sleep:
            self.result.sleeps += 1
            await asyncio.sleep(record.sleep)
        seconds = ttl_set(argv)
        if seconds is not None:
            self._ttl_until = max(self._ttl_until, line.micros + int(seconds[1] * 1e6))
        state = self.pg.sessions[name].state
        queued = transaction_role(state.in_multi, argv) == "queued" and command != b"reset"  # (RESET runs at once)
        written = self._guesses(record, argv) if state.db == 0 else None
        self._scripts(name, record)
        job = await self.executor.settled(name, argv)
        if job.blocked:
            record.blocking = True
            self._pending[name] = (job, record)
            if command in SCRIPT_COMMANDS:
                self._last_script = record
            return
        result = job.result()
        self._reply(record, result)
        reply = result.reply
        if command == b"exec" and reply is Nil:
            record.notes.append(tr("EXEC answered (nil): a WATCHed key changed, so nothing ran; MONITOR does not "
                                   "show the commands the transaction had queued, so they are not here."))
        if command in SCRIPT_COMMANDS:
            self._last_script = record
        self._fold(name, record, reply)
        if written is not None:
            self._in_tx.setdefault(name, []).append(written)
            record.ready = False
        if not self.pg.sessions[name].state.in_multi and self._in_tx.get(name):
            await self._check_written(name)
        if not queued:
            self._note_read(name, record, reply)

    def _reply(self, record: _Record, result) -> None:
        """The step's reply check, from what the replay got; one line when the replay
        cannot go on or cannot follow the capture."""
        shown = format_argv(list(record.argv))[:80]
        why = result.refused or result.server_gone or (
            tr("connection lost ({error})", error=result.lost) if result.lost else None)
        if why:
            raise CaptureError(f"{shown}: {why}")
        reply = result.reply
        if isinstance(reply, Err):
            if reply.message.startswith(_REFUSED_REPLIES):
                raise CaptureError(tr("{command}: {error}: MONITOR shows only commands the server took, so the "
                                      "replay does not follow the capture (a line cut short, or a command the "
                                      "private server's sandbox refuses)", command=shown,
                                      error=reply.message.decode("utf-8", "replace")))
            record.error = reply.code
            return
        if result.streaming or not self._checkable(record.argv):
            return
        record.reply = result.output.decode("utf-8", "replace").rstrip("\n")

    def _checkable(self, argv: tuple[bytes, ...]) -> bool:
        """Is the reply the same on every run and server (the catalogue says)?"""
        if self.catalogue.nondeterministic(argv):
            return False
        effect = self.catalogue.effect(argv)
        if effect.server_state:
            return False
        return not (depends_on_time(argv) and effect.writes == frozenset())

    # -- scripts ------------------------------------------------------------------------

    def _script_name(self, sha: str) -> str | None:
        """The lesson's name for a script the capture holds the source of (None: it does not)."""
        source = self.survey.scripts.get(sha)
        if source is None:
            return None
        if sha not in self._script_names:
            try:
                text = source.decode("utf-8")
            except UnicodeDecodeError:
                return None
            name = f"script{len(self._script_names) + 1}"
            self._script_names[sha] = name
            self.result.scripts[name] = text
        return self._script_names[sha]

    def _scripts(self, name: str, record: _Record) -> None:
        """A script's source as `$name`, an EVALSHA of a known script as `$name.sha`."""
        run = script_run(record.argv)
        if run is None:
            return
        script = self._script_name(run[0])
        if script is None:
            return
        at = 2 if record.argv[0].lower() == b"script" else 1
        record.words[at] = f"${script}" if run[1] is not None else f"${script}.sha"

    def _fold(self, name: str, record: _Record, reply) -> None:
        """An EVALSHA of a script the capture holds runs as EVAL of it; the client's retry
        (EVALSHA → NOSCRIPT, SCRIPT LOAD, EVALSHA) is one EVAL at the retry's place."""
        argv = record.argv
        command = argv[0].lower()
        noscript, loaded = self._noscript.pop(name, None), self._loaded.pop(name, None)
        if command not in (b"evalsha", b"evalsha_ro"):
            loads = script_run(argv) if command == b"script" else None
            if noscript and loads is not None and loads[0] == noscript[1]:
                self._loaded[name] = (noscript[0], record, noscript[1], noscript[2])
            return
        sha, rest = argv[1].decode("ascii", "replace").lower(), argv[2:]
        script = self._script_name(sha)
        if isinstance(reply, Err) and reply.code == "NOSCRIPT":
            self._noscript[name] = (record, sha, rest)
            if script is None:
                record.comments.append(tr("the capture does not hold this script: it was loaded before; to run it, "
                                          "give it with --setup 'SCRIPT LOAD ...'"))
            return
        if script is None or isinstance(reply, Err):
            return
        record.words[0] = "EVAL" if command == b"evalsha" else "EVAL_RO"
        record.words[1] = f"${script}"
        if loaded and loaded[2] == sha and loaded[3] == rest:
            self.result.dropped.update((loaded[0].id, loaded[1].id))
            record.notes.append(tr("Its EVALSHA got NOSCRIPT (line {first}); it loaded the script (line {load}) "
                                   "and ran it again: one EVAL here.", first=loaded[0].line, load=loaded[1].line))
        else:
            record.notes.append(tr("EVALSHA in the capture (the script was cached): EVAL here, so that the "
                                   "lesson does not depend on the script cache."))

    def _script_line(self, line: CaptureLine) -> None:
        """A command a script ran: named in the script's step (it is no step)."""
        self.result.lua_lines += 1
        seconds = ttl_set(line.argv)
        if seconds is not None:
            self._ttl_until = max(self._ttl_until, line.micros + int(seconds[1] * 1e6))
        record = self._last_script
        if record is None:
            self.result.orphan_lua += 1
        elif len(record.lua) < LUA_SHOWN:
            record.lua.append(line.argv)
        else:
            record.lua_more += 1

    # -- blocked clients ----------------------------------------------------------------

    async def _unblocked(self) -> None:
        """Each blocked client the server no longer says is blocked gets its wait step now
        (its reply is on its way: the server unblocked it before it answered us)."""
        if not self._pending:
            return
        await self.pg.refresh_states()
        for name, (job, record) in list(self._pending.items()):
            state = self.pg.sessions[name].state
            if job.task.done() or not (state.blocked or state.busy_script):  # type: ignore[attr-defined]
                del self._pending[name]
                self._waited(name, record, await job.task)  # type: ignore[attr-defined]

    async def _own_wait(self, name: str, line: CaptureLine) -> None:
        """The client moves again while its command is blocked on the replay: it timed out
        in the capture (then it does here, in as long), else the replay cannot follow."""
        job, record = self._pending.pop(name)
        timeout = block_timeout(record.argv)
        if not timeout:
            await self.executor.cancel(name)
            raise CaptureError(tr("{client}'s {command} (line {line}) is still blocked on the replay when {client} "
                                  "sends its next command: what unblocked it is not in the capture",
                                  client=name, command=format_argv(list(record.argv))[:60], line=record.line))
        try:
            async with asyncio.timeout(timeout + 10):
                result = await asyncio.shield(job.task)  # type: ignore[attr-defined]
        except TimeoutError:
            await self.executor.cancel(name)
            raise CaptureError(tr("{client}'s {command} (line {line}) did not answer on the replay",
                                  client=name, command=format_argv(list(record.argv))[:60],
                                  line=record.line)) from None
        self._waited(name, record, result)

    def _waited(self, name: str, origin: _Record, result) -> None:
        self._next_id += 1
        record = _Record(self._next_id, name, origin.line, origin.offset, origin.argv, wait=True)
        record.notes.append(tr("The reply to {client}'s {command} (line {line}) arrives.", client=name,
                               command=format_argv(list(origin.argv))[:60], line=origin.line))
        self._reply(record, result)
        self._out.append(record)

    async def _switch_db(self, name: str, line: CaptureLine) -> None:
        """The client is in another database than on the replay (it selected it before the
        capture, or its SELECT is not in it): a SELECT step first."""
        argv = (b"SELECT", str(line.db).encode())
        record = self._record(name, line, argv)
        record.notes.append(tr("Before this, {client} had selected database {db} (its SELECT is not in the "
                               "capture).", client=name, db=line.db))
        job = await self.executor.settled(name, argv)
        self._reply(record, job.result())
        if record.error:
            raise CaptureError(tr("database {db}: {server} does not have it", db=line.db, server=self.pg.label))

    # -- data flow ----------------------------------------------------------------------

    def _guesses(self, record: _Record, argv: tuple[bytes, ...]) -> _Written | None:
        """The written values of this line that an earlier read of the same client could
        give (checked against the keys later), or None."""
        reads = self._reads.get(record.client)
        if not reads:
            return None
        positions = self.catalogue.key_positions(argv)
        if positions is None:
            return None
        command = argv[0].lower()
        if command in SCRIPT_COMMANDS:
            keys = frozenset() if SCRIPT_COMMANDS[command] else frozenset(argv[p] for p in positions)
            values = range(max(max(positions, default=2) + 1, 3), len(argv))
        else:
            effect = self.catalogue.effect(argv)
            keys = effect.writes or frozenset()
            values = range(1, len(argv))
        sources = [reads[k] for k in keys if k in reads]
        if not sources:
            return None
        source = max(sources, key=lambda r: r.line)
        guesses = {}
        for p in values:
            if p in positions:
                continue
            found = guess(argv[p], source.value, source.name)
            if found is not None:
                guesses[p] = found
        if not guesses and source.value is not None:
            return None  # (no value here could come from the read: nothing to say)
        return _Written(record, keys, guesses, source)

    def _note_read(self, name: str, record: _Record, reply) -> None:
        """A reply of a command that only reads one key: a source of later written values."""
        effect = self.catalogue.effect(record.argv)
        if (effect.writes != frozenset() or effect.reads is None or len(effect.reads) != 1 or effect.script
                or effect.time or effect.server_state or not (isinstance(reply, (Bulk, Int)) or reply is Nil)):
            return
        key, = effect.reads
        reads = self._reads.setdefault(name, OrderedDict())
        read = _Read(record.id, record.line, key, save_name(key, self._names.setdefault(name, {})),
                     plain_value(reply))
        reads[key] = read
        reads.move_to_end(key)
        while len(reads) > READS_KEPT:
            reads.popitem(last=False)
        if read.value is not None:
            record.save = read.name

    async def _check_written(self, name: str) -> None:
        """The client's guessed written values, now that its command (or transaction) ran:
        each is kept only if the value is stored in a key the command writes."""
        for written in self._in_tx.pop(name, []):
            stored: set[str] = set()
            for key in written.keys:
                stored.update(_stored_values(await describe_key(self.pg, key)))
            self._settle(written, stored)

    def _give_up(self, name: str) -> None:
        for written in self._in_tx.pop(name, []):
            self._settle(written, set())

    def _settle(self, written: _Written, stored: set[str]) -> None:
        record, source = written.record, written.source
        record.ready = True
        kept = {p: g for p, g in written.guesses.items()
                if record.argv[p].decode("utf-8", "replace") in stored}
        for p, found in kept.items():
            record.words[p] = quote_arg(found.template.encode("utf-8", "surrogateescape"))
            how = {"same": tr("the value it read at line {line}", line=source.line),
                   "plus": tr("the value it read at line {line} plus {n}", line=source.line, n=found.amount),
                   "minus": tr("the value it read at line {line} minus {n}", line=source.line, n=found.amount),
                   "suffix": tr("the value it read at line {line} with {suffix!r} after it", line=source.line,
                                suffix=found.suffix)}[found.how]
            record.notes.append(tr("{client} writes {how}: {value} in the capture.", client=record.client,
                                   how=how, value=record.argv[p].decode("utf-8", "replace")))
        if kept:
            self.result.substituted += len(kept)
            self.result.used.add(source.record)
            return
        self.result.literals += 1
        key = source.key.decode("utf-8", "replace")
        if source.value is None:
            record.comments.append(tr("{client} read {key} at line {line} and got (nil) on the replay: if {key} "
                                      "had a value before the capture, give it with --setup; the values here are "
                                      "written as captured", client=record.client, key=key, line=source.line))
        else:
            record.comments.append(tr("{client} read {key} = {value} at line {line}, but no value here is it, "
                                      "plus or minus a number, or it with text after it, stored in the key: "
                                      "written as captured", client=record.client, key=key,
                                      value=quote_arg(str(source.value).encode()), line=source.line))

    # -- writing ------------------------------------------------------------------------

    def _flush(self, keep_last: bool) -> None:
        """Write the steps that are known, in order (the last kept back: a script's own
        lines may follow it; a transaction's steps until its EXEC)."""
        while self._out and (len(self._out) > HELD_MOST or (self._out[0].ready
                                                            and (len(self._out) > 1 or not keep_last))):
            record = self._out.popleft()
            if not record.ready:
                self._give_up(record.client)
            self._write(record)

    def _write(self, record: _Record) -> None:
        self.result.steps += 1
        notes = [tr("+{seconds:.3f} s, line {line} of the capture.", seconds=record.offset, line=record.line)]
        if record.lua:
            shown = "; ".join(format_argv(list(a))[:80] for a in record.lua)
            more = trn(" … and {n} more", " … and {n} more", record.lua_more) if record.lua_more else ""
            notes.append(tr("The script ran: {commands}{more}.", commands=shown, more=more))
        notes += record.notes
        narration = Translated(_sentences(notes), lambda lang: _sentences([again(n, lang) for n in notes]))
        step = Step(0, record.client, None, " ".join(record.words), narration=narration,
                    reply=record.reply, error=record.error, blocking=record.blocking, wait=record.wait,
                    sleep=record.sleep, save=record.save, template=True)
        lines = [f"# {c}" for c in record.comments] + step_lines(step)
        save = f"save = {toml_string(record.save)}" if record.save else None
        self._bytes += sum(len(line.encode()) + 1 for line in lines) + 1
        if self._bytes > MAX_FILE_BYTES:
            raise CaptureError(tr("the lesson passes {most} MB here, the most a scenario file may be: import a "
                                  "shorter window of the capture", most=MAX_FILE_BYTES // 2**20))
        self.records.write(json.dumps({"id": record.id, "lines": lines, "save": save}) + "\n")


def _capture_lines(survey: CaptureSurvey, on_bytes: Callable[[int], None] | None) -> Iterator[CaptureLine]:
    """The capture's lines, read as they are replayed (a line at a time)."""
    with open(survey.path, "rb") as stream:
        yield from read_monitor(stream, on_bytes)


def _sentences(texts: list[str]) -> str:
    """Sentences one after another: a space between them, none after a full-width stop (。)."""
    out = ""
    for text in texts:
        out += ("" if not out or out.endswith(("。", "！", "？")) else " ") + text
    return out


def _stored_values(described: dict) -> set[str]:
    """Every value a key holds (a string; a list's, set's, hash's, sorted set's items)."""
    value = described.get("value")
    if value is None:
        return set()
    if isinstance(value, list):
        return {str(v) for v in value}
    return {str(value)}


def _when(micros: int) -> str:
    return datetime.datetime.fromtimestamp(micros / 1e6, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def lesson_header(survey: CaptureSurvey, result: ImportResult, setup_display: list[str]) -> list[str]:
    """The lesson's lines before its steps: where it came from, its clients, setup and scripts.

    Args:
        survey: what the survey of the capture found.
        result: what the replay found.
        setup_display: the --setup commands as given.
    """
    first, last = survey.first_micros or 0, survey.last_micros or 0
    clients = ", ".join(f"{c.name} ({c.address})" for c in survey.clients.values() if c.steps)
    title = tr("From a MONITOR capture: {file}", file=survey.path.name)
    lesson = tr("Imported from {file}: {steps} steps of {clients}, from {start} to {end} UTC ({seconds:.3f} s), "
                "replayed on {server}. The client libraries' handshakes ({handshakes} lines) are left out; the "
                "commands a script ran are in its step's narration.", file=survey.path.name, steps=result.steps
                - len(result.dropped), clients=clients, start=_when(first), end=_when(last),
                seconds=(last - first) / 1e6, server=result.server, handshakes=survey.handshakes)
    if result.substituted:
        lesson = tr("{lesson} Values a client wrote from what it had read are saved replies (save, ${{name+1}}), "
                    "so exploring the lesson follows the programs' logic.", lesson=lesson)
    out = ["# " + tr("Imported by redis-playground from a MONITOR capture (docs/import.md)."),
           *text_lines("title", title), *text_lines("lesson", lesson), 'tags = ["imported"]',
           "clients = [" + ", ".join(toml_string(n) for n in survey.names) + "]"]
    if result.orphan_lua:
        out.append("# " + trn("{n} line a script ran before the capture started is left out",
                              "{n} lines a script ran before the capture started are left out", result.orphan_lua))
    if result.scripts:
        out += ["", *script_lines(result.scripts)]
    out += ["", "[[parts]]", *text_lines("name", tr("the capture")),
            "setup = [" + ", ".join(toml_string(escape(line)) for line in setup_display) + "]"]
    return out


def assemble(header: list[str], records: IO[str], result: ImportResult, out: IO[str]) -> None:
    """The lesson's TOML: the header, then each step (a folded one left out, a `save`
    no later step uses taken off), streamed from `records`.

    Args:
        header: lesson_header's lines.
        records: the replay's records, from their start.
        result: what the replay found.
        out: where the TOML goes.
    """
    out.write("\n".join(header) + "\n")
    for text in records:
        record = json.loads(text)
        if record["id"] in result.dropped:
            continue
        lines = record["lines"]
        if record["save"] is not None and record["id"] not in result.used:
            lines = [line for line in lines if line != record["save"]]
        out.write("\n" + "\n".join(lines) + "\n")
