"""A lesson's programs in the scenario runner: started for each part after its fresh
start, each step of a program client releases that program's next command at the gate
(lesson_steps.py: the step's checks apply to its reply, as for a typed command), and
after the part's last step the gate runs free until every program has exited — a
program that hangs, or dies, ends the run with one line naming it.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Any

from playground.engine.catalogue import SUBSCRIBE_FAMILY, SUBSCRIBES
from playground.gate import process_rest
from playground.gate.endpoint import Gate, Held
from playground.gate.process_rest import Rest
from playground.gate.upstream_pool import UpstreamPool
from playground.gate.warm import WarmInterpreter
from playground.gate.programs import TIME_LIMIT, Program, ProgramError, ProgramOutcome
from playground.i18n import tr
from playground.scenario.programs.lesson_format import part_programs

LISTENING = "listening"
"""What `rest` says of a program that waits for pushed data: subscribed, it holds no
command and has been quiet since what it was last sent."""
QUIET = 0.3
"""Seconds a subscribed program that holds no command is given, after it was sent
something (a message, its subscription's confirmation), to send its next command or
end; past that it is waiting for pushed data (the explorer lets the others move). Used only
where its threads cannot be seen (gate/process_rest.py)."""
REST_POLL = 0.002
"""Seconds between two looks at a busy program's threads, waiting for it to be at rest."""


_WARM: weakref.WeakKeyDictionary[Any, WarmInterpreter] = weakref.WeakKeyDictionary()
"""Each playground's warm interpreter (gate/warm.py), once a lesson's Python program needed it."""
_POOLS: weakref.WeakKeyDictionary[Any, UpstreamPool] = weakref.WeakKeyDictionary()
"""Each playground's server connections kept between the explorer's schedules (gate/upstream_pool.py)."""


def time_limit(scenario) -> float:
    """Seconds each of the scenario's programs may run: its `program_time_limit`, else TIME_LIMIT."""
    return scenario.program_time_limit or TIME_LIMIT


class LessonPrograms:
    """The gate and the running programs of the current part."""

    def __init__(self, pg, executor=None) -> None:
        self.pg = pg
        self.executor = executor  # the runner's: each answered command is recorded through it
        self.gate: Gate | None = None
        self.running: dict[str, Program] = {}
        self._watchers: list[asyncio.Task] = []
        self.history: dict[str, list] = {}   # client -> [(argv, reply)] of its steps in this run
        self.outcomes: dict[str, ProgramOutcome] = {}   # client -> how its program ended (after finish)
        self.described: dict[str, str] = {}   # client -> "A (python x.py)": how messages name its program
        self.failures: dict[str, str | None] = {}   # client -> the line saying how it ended badly (after finish)
        self.seen: dict[tuple, tuple] = {}   # (client, history, pushes) -> the command sent next, in any run
        self.not_repeatable: str | None = None
        self._lesson: tuple[object, ...] | None = None
        self._cwd = Path()   # the lesson's directory, its programs' working directory
        self.lenient = False  # the explorer, a part with no steps: a step of a program that ended well is
        # skipped, not failed, and a step may block or not
        self.warm = False     # the explorer: Python programs forked from a warm interpreter (gate/warm.py)
        self.replay: Any = None    # the explorer: programs replayed from what they saw (explore/program_tree.py)
        self.keep_connections = False  # the explorer: a schedule's gate takes the server connections the
        # last one's clients ended with (gate/upstream_pool.py), not new ones
        self._readable: dict[int, bool] = {}   # pid -> its threads can be seen (gate/process_rest.py)
        self._rests: dict[str, Rest | None] = {}   # program -> how it was at rest when `rest` said LISTENING
        self.gave_up: dict[str, list[Held]] = {}   # program -> its commands it gave up on while they were held,
        # before the command next_command returned last (noted as sent, with no reply: what it saw)
        self._noted_drops: set[int] = set()

    async def start(self, scenario, part=None) -> str | None:
        """Start the programs of the scenario's `part` (its own, else [programs]'s) on a new
        gate; the error line if one cannot start."""
        await self.stop()
        programs = part_programs(scenario, part)
        lesson = (scenario.path, tuple(programs.items()))
        if self._lesson != lesson:  # each run of the same programs is compared with the others
            self.seen, self._lesson = {}, lesson
            self._cwd = scenario.path.resolve().parent   # (asked of the file system once, not each schedule)
        self.history = {name: [] for name in programs}
        self.gave_up, self._noted_drops = {}, set()
        self.outcomes, self.described = {}, {}
        self.not_repeatable = None
        if not scenario.programs:
            return None
        try:
            self.gate = Gate.for_playground(self.pg)
        except ValueError:
            return tr("a lesson with programs runs on the playground's own private server")
        if self.keep_connections:
            self.gate.pool = self._pool()
        self.gate.anonymous = self.replay is not None   # (the explorer's: see Gate.anonymous)
        if self.executor is not None:  # its commands into the records typed ones go to (lanes, why, changed by)
            from playground.engine.program_lines import ProgramLines
            ProgramLines(self.executor.recorder).attach(self.gate)
        self.pg.closing.append(self.stop)  # the app quits: its programs go too
        limit = time_limit(scenario)
        cwd = self._cwd
        try:
            warm = await self._warm_interpreter({n: a for n, a in programs.items() if n not in scenario.by_hand})
            for name, argv in programs.items():
                by_hand = scenario.by_hand.get(name)   # (its own directory; its own interpreter: no warm fork)
                def real(url: str, name=name, argv=argv, by_hand=by_hand) -> Program:
                    return (Program(name, argv, Path(by_hand.cwd), url, limit, by_hand=by_hand) if by_hand
                            else Program(name, argv, cwd, url, limit, warm))
                replayed = self.replay and self.replay.program(name, argv, cwd, self.gate, limit, real,
                                                               shared=by_hand is None)
                program = self.running[name] = replayed or real(await self.gate.listen(name))
                await program.start()
                watcher = program.when_ended(self._changed)
                if watcher is not None:
                    self._watchers.append(watcher)
        except ProgramError as exc:
            await self.stop()
            return str(exc)
        return None

    async def _warm_interpreter(self, programs: dict):
        """With `warm`, the playground's warm interpreter when a program is Python: started
        at the first need and kept for the playground's life (its start, an interpreter's
        and redis's imports, is paid once, not once per exploration); it is closed with the
        playground."""
        if not self.warm or not any(argv[0] == "python" for argv in programs.values()):
            return None
        warm = _WARM.get(self.pg)
        if warm is None or not warm.running:
            import os

            from playground.gate.programs import HASH_SEED
            try:   # (its children's hash seed is its own: fixed, as for a program started afresh)
                warm = await WarmInterpreter(env=dict(os.environ, PYTHONHASHSEED=HASH_SEED)).start()
            except OSError:
                return None  # each program then starts an interpreter of its own
            _WARM[self.pg] = warm
            self.pg.closing.append(warm.stop)
        return warm

    def _pool(self) -> UpstreamPool:
        """The playground's kept server connections: made at the first need, closed with it."""
        pool = _POOLS.get(self.pg)
        if pool is None:
            pool = _POOLS[self.pg] = UpstreamPool()
            self.pg.closing.append(_closer(pool))
        return pool

    async def close(self) -> None:
        """stop(), and let go of the warm interpreter (the playground keeps it)."""
        await self.stop()

    async def unmet(self, scenario) -> str | None:
        """Why the programs cannot run here (a `programs_need` command failed), or None."""
        for argv in scenario.programs_need:
            probe = Program("need", argv, scenario.path.resolve().parent, "", TIME_LIMIT)
            shown = " ".join(argv)
            try:
                await probe.start()
            except ProgramError:
                return tr("needs {command}: {program} is not installed", command=shown, program=argv[0])
            await probe.wait()
            if probe.failure():
                words = probe.last_words()
                return tr("needs {command}", command=shown) + (f": {words}" if words else "")
        return None

    def _changed(self) -> None:
        if self.gate is not None:
            self.gate.changed()  # a release step waiting for its next command learns it ended

    async def finish(self, judged=frozenset(), waiting=frozenset()) -> str | None:
        """Let every program run to its end; the line saying which ended badly, if any:
        a program in `judged` (the lesson expects its exit status: scenario/expectations.py)
        is judged by that check instead, unless the playground stopped it. A program in
        `waiting` (the explorer: it still waits for pushed data, nobody is left to send
        it any) is stopped now, and that is its outcome (status None), not a failure.
        How each ended is in `outcomes` after."""
        if not self.running or self.gate is None:  # (programs run only on a gate)
            return None
        self.gate.run_free()
        failures, self.failures = [], {}
        for name, program in self.running.items():
            if name in waiting and not program.exited:
                await program.stop(tr("waited for a message nobody was left to send"))
                self.outcomes[name] = program.outcome()
                self.described[name] = program.describe
                self.failures[name] = None
                continue
            await program.wait()
            self.outcomes[name] = program.outcome()
            if self.replay is not None:
                self.replay.ended(name, self.history.get(name, []), program,
                                  [c for c in (self.gate.clients if self.gate else ()) if c.label == name])
            self.described[name] = program.describe
            failure = self.failures[name] = program.failure()
            if failure and (name not in judged or program.stopped):
                failures.append(failure)
        await self.stop()
        return "; ".join(failures) or None

    async def stop(self) -> None:
        """Stop every program still running and close the gate."""
        for program in self.running.values():
            await program.stop()
        for watcher in self._watchers:
            watcher.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
        self._watchers.clear()
        self.running.clear()
        if self.gate is not None:
            await self.gate.close()
            self.gate = None
        if self.stop in self.pg.closing:
            self.pg.closing.remove(self.stop)

    def wait_for_class(self, seconds: float) -> None:
        """The lesson waited `seconds` for the class between steps (scenario/lesson_clock.py):
        not its programs' time, so their time limits move on by as much."""
        for program in self.running.values():
            program.deadline += seconds

    async def next_command(self, name: str) -> Held | str:
        """Program `name`'s next command at the gate, or why there is none."""
        program = self.running.get(name)
        gate = self.gate
        if program is None or gate is None:
            return tr("program {name} is not running", name=name)

        def ready():
            held = gate.held(name)
            return held[0] if held else (program.exited and "exited")
        got = await gate.wait_for(ready, program.time_left())
        if isinstance(got, Held):
            self._note_given_up(name, got)
            return got
        if got is None:
            past = tr("ran past its time limit ({seconds} s)", seconds=f"{program.time_limit:g}")
            await program.stop(past)
            return program.failure() or past
        await program.drained()
        return (program.failure()
                or tr("program {program} ended before its next command", program=program.describe))

    def _note_given_up(self, name: str, held: Held) -> None:
        """The commands program `name` sent before `held` and gave up on while the gate
        held them (its own timeout closed their connection: they never ran): in its
        history as sent with no reply, so what it sends next is keyed by what it saw; and
        in `gave_up`, for the step to say so."""
        gate = self.gate
        assert gate is not None  # (the caller's)
        dropped = [d for d in gate.dropped
                   if d.client.label == name and d.arrived < held.arrived and id(d) not in self._noted_drops]
        self.gave_up[name] = dropped
        if dropped and self.replay is not None:   # (the explorer: its timing decided; a replay cannot give up)
            self.replay.waits(name, self.history.get(name, []), forever=False)
        for d in dropped:
            self._noted_drops.add(id(d))
            self.note_sent(name, d)
            self.note_reply(name, d)

    def pushes(self, name: str) -> int:
        """How many frames no command asked for (messages) program `name` was sent so far."""
        return sum(c.pushes for c in self.gate.clients if c.label == name) if self.gate is not None else 0

    def listening(self, name: str) -> bool:
        """Program `name` has a connection whose last stepped command subscribed (it may
        be waiting for a message on it)."""
        gate = self.gate
        if gate is None:
            return False
        return any(c.label == name and not c.closed and c.last_answered is not None
                   and c.last_answered.argv[0].lower() in SUBSCRIBES for c in gate.clients)

    async def rest(self, name: str) -> Held | str:
        """Program `name`'s next command, else LISTENING when it is subscribed and at rest
        (it waits for pushed data: the others may move), else why there is none (as
        next_command). At rest: every thread of it asleep in a wait, and nothing it sent
        still on its way through the gate (gate/process_rest.py, Gate.quiet); where its
        threads cannot be seen, quiet QUIET seconds instead."""
        program, gate = self.running.get(name), self.gate
        if program is None or gate is None or not self.listening(name):
            return await self.next_command(name)

        def ready():
            held = gate.held(name)
            return held[0] if held else (program.exited and "exited")
        pid = self._seen_pid(program)
        if pid is None:
            got = await gate.wait_for(ready, min(QUIET, program.time_left()))
        else:
            got = await self._settled(name, pid, ready, program.time_left())
        self._rests[name] = got if isinstance(got, Rest) else None
        if (got is None and pid is None or isinstance(got, Rest)) and self.listening(name) \
                and program.time_left() > 0:
            return LISTENING
        return await self.next_command(name)

    def own_timeout_seen(self, name: str) -> bool:
        """Program `name`, found LISTENING last, waited with a timeout of its own (or its
        threads could not be seen: it may have)."""
        seen = self._rests.get(name)
        return seen is None or seen.own_timeout

    def _seen_pid(self, program: Program) -> int | None:
        """The program's pid when its threads can be seen (process_rest.readable), else None."""
        pid = getattr(program.process, "pid", None)
        if pid is None:
            return None
        if pid not in self._readable:
            self._readable[pid] = process_rest.readable(pid)
        return pid if self._readable[pid] else None

    async def _settled(self, name: str, pid: int, ready, limit: float, blocked: bool = False):
        """ready()'s first true value (a held command, "exited"), else the program's Rest
        once it is at rest with nothing of it on its way through the gate (`blocked`: but
        its commands at the server, which wait there); None after `limit` seconds. Its
        threads are looked at every REST_POLL seconds while it is busy."""
        gate = self.gate
        assert gate is not None  # (the caller's)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while True:
            got = ready()
            if got:
                return got
            at_rest = process_rest.rest(pid)
            if at_rest is not None and gate.quiet(name, inflight=blocked):
                await self._server_said_all()
                await asyncio.sleep(0)   # (bytes the gate's readers took already: passed on first)
                got = ready()
                if got:
                    return got
                if gate.quiet(name, inflight=blocked) and process_rest.rest(pid) is not None:
                    return at_rest
            left = deadline - loop.time()
            if left <= 0:
                return None
            got = await gate.wait_for(ready, min(REST_POLL, left))
            if got:
                return got

    async def _server_said_all(self) -> None:
        """Every frame the server wrote for what ran so far (a message PUBLISH sent a
        subscriber, written as the publisher's reply was) is on its way to the gate: a
        round trip of the playground's own after it, on its reader's connection."""
        if self.pg.reader is not None:
            await self.pg.reader.run([[b"PING"]])

    async def wait_alone(self, name: str, seconds: float) -> bool:
        """Let program `name`, waiting for pushed data, go on by itself (its own timeout
        fires) for up to `seconds`: True when it then holds a command or has ended. False
        at once when it is at rest in waits with no timeout of their own (`p.listen()`):
        it will not go on by itself."""
        program, gate = self.running.get(name), self.gate
        if program is None or gate is None:
            return True

        def ready():
            return bool(gate.held(name)) or program.exited
        pid = self._seen_pid(program)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(seconds, program.time_left())
        while pid is not None:
            left = deadline - loop.time()
            got = await self._settled(name, pid, ready, max(0.0, left))
            if got is True:
                return True
            if got is None or not got.own_timeout:
                return False
            left = deadline - loop.time()
            if left <= 0:
                return False
            wait = left if got.timeout == process_rest.UNKNOWN else max(got.timeout, REST_POLL)
            if await gate.wait_for(ready, min(wait, left)):   # (its timeout fires; an unknown one: as it may)
                return True
        got = await gate.wait_for(ready, max(0.0, deadline - loop.time()))
        return bool(got)

    async def own_timeout(self, name: str) -> bool | None:
        """Program `name`, its command blocked at the server, waits with a timeout of its
        own (a client-side socket timeout) that ends before its time limit: it goes on by
        itself if nobody unblocks it. Asked once it is at rest (gate/process_rest.py); None
        where its threads cannot be seen."""
        program, gate = self.running.get(name), self.gate
        if program is None or gate is None:
            return False
        pid = self._seen_pid(program)
        if pid is None:
            return None
        got = await self._settled(name, pid, lambda: bool(gate.held(name)) or program.exited or None,
                                  program.time_left(), blocked=True)
        return isinstance(got, Rest) and got.own_timeout and got.timeout < program.time_left()

    async def has_ended(self, name: str) -> bool:
        """Program `name` has ended: no command of it waits for a reply, and it exited
        rather than send another (waited for as next_command does, so it is known as
        soon as the program knows it). False for a client that is no program."""
        if name not in self.running or self.gate is None:
            return False
        if any(c.inflight and not c.closed for c in self.gate.clients if c.label == name):
            return False  # its command is at the server (blocked, or its reply on the way)
        if not self.running[name].exited and self._listening(name):
            return False  # a subscriber waits for messages, not for the gate: its own move tells
        return not isinstance(await self.next_command(name), Held)

    def _listening(self, name: str) -> bool:
        if self.gate is None:
            return False
        last = next((h for h in reversed(self.gate.log) if h.client.label == name and not h.unstepped), None)
        return last is not None and bool(last.argv) and last.argv[0].lower() in SUBSCRIBE_FAMILY

    def held_for(self, name: str, held: Held) -> None:
        """Its command goes through now: the time it waited at the gate for its step (the
        lesson's, another program's turn) is not the program's own, so its time limit
        moves on by that much."""
        program = self.running.get(name)
        if program is not None:
            program.deadline += max(0.0, asyncio.get_running_loop().time() - held.since)

    def note_sent(self, name: str, held: Held) -> str | None:
        """Remember what program `name` sent after the replies it got so far; the line
        saying so when an earlier run got the same replies and it sent something else
        (randomness, the clock: its outcomes could not be trusted)."""
        history = self.history.setdefault(name, [])
        key = (name, tuple(history), held.pushes)   # (the messages it had been sent: what it saw too)
        before = self.seen.setdefault(key, tuple(held.argv))
        if before != tuple(held.argv) and self.not_repeatable is None:
            from playground.resp.cli_lines import format_argv
            self.not_repeatable = tr(
                "program {program} is not repeatable at command {n}: after the same replies it sent {now}, "
                "where it sent {before} before", program=self.running[name].describe, n=len(history) + 1,
                now=held.display, before=format_argv(list(before)))
        elif self.replay is not None and before == tuple(held.argv):
            self.replay.moved(name, history, held, self.running.get(name))
        return self.not_repeatable

    def note_reply(self, name: str, held: Held) -> None:
        self.history.setdefault(name, []).append((tuple(held.argv), held.reply))


def _closer(pool: UpstreamPool):
    async def close() -> None:
        pool.close()
    return close
