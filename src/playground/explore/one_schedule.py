"""Running one schedule of the explorer on the server: a fresh start and the setup, then
each client's moves in the planned order; a blocked client waits until it can move (or its
timeout fires), and a schedule where nobody can move is a deadlock. A mixin of
explore/explorer.py's Explorer: what it needs of it is declared by `ScheduleHost`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from playground.engine.catalogue import block_timeout, clock_free, may_block
from playground.engine.job import Job
from playground.engine.playground import Playground
from playground.engine.session import STREAMING, NoReply
from playground.errors import ExploreError
from playground.explore import program_moves, schedules as sch
from playground.explore.outcomes import Run
from playground.explore.program_tree import ProgramTrees
from playground.explore.pushes import PushLog
from playground.explore.snapshot import Snapshotter
from playground.i18n import tr
from playground.resp.cli_format import render
from playground.resp.cli_lines import format_argv
from playground.scenario.model import Part, Scenario, Step
from playground.scenario.programs.lesson_steps import ProgramJob
from playground.scenario.results import StepResult
from playground.scenario.runner import Runner
from playground.scenario.time_limits import WAIT_TIMEOUT

WAIT_ALONE = 1.0
"""Seconds a program that waits for pushed data is given to go on by itself (its own
timeout), as the move of its that comes before the others' (the report says so)."""
OTHER_WAIT = 2.0  # seconds a client held up by something other than a blocking command is given

Kept = list[tuple[str, int, StepResult]]
"""With `keep`: each step's (client, index of its step, StepResult), a blocked reply's with
its command's index."""


class ScheduleHost(Protocol):
    """What OneSchedule needs of the class it is mixed into (explore/explorer.py's
    Explorer sets each of these in its constructor)."""

    pg: Playground
    scenario: Scenario
    part: Part
    runner: Runner
    programs: dict[str, list[Step]]   # each client's steps (explorer.programs_of)
    pushes: PushLog
    snapshots: Snapshotter
    trees: ProgramTrees
    keep: Kept | None                 # set by run_checked for one schedule
    kept_pushes: list[tuple[int, str, str]]
    moved_now: tuple[list[str], list[tuple[bytes, ...] | None]]
    # and, for a lesson with programs, the rest of program_moves.MoveHost (next_client's: who moves next), which
    # OneSchedule does not keep itself:
    bound_pairs: list[tuple[sch.Move, sch.Move]]
    sleeping: tuple[int, program_moves.Sleep] | None
    evicting: bool
    footprint_memo: dict[tuple, Any]


@dataclass
class _Moves:
    """A schedule's run so far: the planned moves still to make, each client's next step,
    what ran and what each client saw."""

    remaining: list[str]
    position: dict[str, int]
    seen: dict[str, list[str]]
    executed: list[str] = field(default_factory=list)
    commands: list[tuple[bytes, ...] | None] = field(default_factory=list)  # per move, the command it sent
    done: list[tuple[str, int | None, bool]] = field(default_factory=list)  # as Run.moves
    sent_at: dict[str, int] = field(default_factory=dict)   # each client's last command that blocked
    last: tuple[str, int] | None = None                       # the move just made


def _replied(job: Job | ProgramJob) -> bool:
    """The blocked command's reply is back (a job in the runner's `waiting` was submitted)."""
    return job.task is not None and job.task.done()


def _task(job: Job | ProgramJob) -> asyncio.Future[object]:
    """The blocked command's task (a job in the runner's `waiting` was submitted)."""
    if job.task is None:
        raise RuntimeError(f"{format_argv(list(job.argv))}: waiting, never submitted")
    return job.task


class OneSchedule(ScheduleHost):
    """Explorer's moves on the server, one schedule at a time."""

    failing: dict[str, str] | None = None   # programs that ended badly in every schedule so far
    runner: Runner                          # (the Explorer's)
    scenario: Scenario
    pushes: PushLog
    choices: list[list[str]]
    listened: set[str]                      # programs seen waiting for pushed data (set by the Explorer)
    timed: set[str]                         # of those, the ones seen waiting with a timeout of their own
    untimed: dict[str, str]                 # program -> its command seen blocked with no timeout of its own
    resting: dict[str, tuple[int, int]]     # this run: program -> (its pushes, its moves) when it was last at rest
    stuck: dict[str, int]                   # this run: program -> its pushes when its own wait did not end
    alone_tried: dict[str, int]             # this run: program -> its pushes when its own wait did not end
    # either while nobody else could move (up to its time limit): not offered again until it is sent something
    own_waits: dict[str, tuple[object, bool]]   # this run: program -> (its blocked command's job, whether a
    # timeout of the program's own ends that wait first)

    async def run_schedule(self, planned: tuple[str, ...]) -> Run:
        """Fresh server, setup, then the moves in `planned` order (a blocked client's
        moves wait until it can move); the run as it happened. `self.keep` (a list, set
        by `run_checked`) gets each step's (client, index of its step, StepResult), a
        blocked reply's with its command's index.

        Args:
            planned: the schedule, one client name per move.

        Returns:
            The run as it happened.
        """
        error = await self.runner.begin_part(self.scenario, self.part)
        if error:
            raise ExploreError(f"{self.scenario.id}: {error}")
        self.pushes.attach()   # a subscriber's messages: its replies too (explore/pushes.py)
        self.kept_pushes = []
        self.resting, self.stuck, self.own_waits = {}, {}, {}   # a waiting program's (program_moves._program_ready)
        self.alone_tried = {}
        moves = _Moves(list(planned), dict.fromkeys(self.programs, 0), {c: [] for c in self.programs})
        self.moved_now = (moves.executed, moves.commands)   # (program_moves.next_client: who sleeps)
        while True:
            client, deadlock = await self._next_mover(moves)
            if client is None:
                break
            await self._move(moves, client)
        return await self._end_schedule(moves, deadlock)

    async def _next_mover(self, moves: _Moves) -> tuple[str | None, str | None]:
        """Who makes the next move (the prefix, then whoever can move first, for a lesson
        with programs; the plan's next that can move, else), waiting for a blocked reply
        while nobody can; (None, who waits for ever or None) once nobody moves any more."""
        runner = self.runner
        while True:
            await self._settle_pending()
            if self.scenario.programs:   # the prefix, then whoever can move first
                client = await program_moves.next_client(self, moves.remaining, moves.position, moves.last)
                if client is not None:
                    waited = await self._waited_alone(client, moves)
                    if waited is None:
                        return client, None
                    if waited is not False:   # its wait ended by itself: a move with no command
                        moves.last = waited
                    continue
                if await self._wait_for_any():
                    continue
                return None, self._who_waits() or None
            if not moves.remaining:
                if any(not _replied(job) for job, _ in runner.waiting.values()) \
                        and not await self._wait_for_any(all_of=True):
                    return None, self._who_waits()
                return None, None
            pick = next((i for i, c in enumerate(moves.remaining) if self.can_move(c) or self.may_time_out(c)), None)
            if pick is not None:
                return moves.remaining.pop(pick), None
            if await self._wait_for_any():
                continue
            return None, self._who_waits()

    async def _move(self, moves: _Moves, client: str) -> None:
        """The client's next move: its blocked command's timeout first if it cannot move
        otherwise, its reply taken first if its next step is a command, then the step."""
        runner, keep, position = self.runner, self.keep, moves.position
        if not self.can_move(client):
            await self._time_out(client)
        step = program_moves.step_at(self, client, position[client])
        if client in runner.waiting and not step.wait:
            taken = await self._collect(client)
            await self._note(moves.seen, client, taken)
            moves.done.append((client, None, False))
            if keep is not None:
                keep.append((client, moves.sent_at[client], taken))
        nothing_to_take = step.wait and client not in runner.waiting   # it answered at once
        out = await runner.run_step(self.scenario, self.part.name, step)
        blocked = client in runner.waiting and runner.waiting[client][1] is out
        moves.done.append((client, position[client], blocked))
        if keep is not None:
            keep.append((client, moves.sent_at.get(client, position[client]) if step.wait else position[client], out))
        if blocked:
            moves.sent_at[client] = position[client]
        if not blocked and not nothing_to_take:
            await self._note(moves.seen, client, out)
        else:
            await self._note(moves.seen, None, None)
        moves.last = (client, position[client])
        position[client] += 1
        moves.executed.append(client)
        moves.commands.append(tuple(out.argv) if out.argv and not step.wait and not out.skipped else None)

    async def _end_schedule(self, moves: _Moves, deadlock: str | None) -> Run:
        """The replies still to take and the pushes still on their way, the programs to
        their end (stopped if one waits for ever), the final state: the Run."""
        runner, keep = self.runner, self.keep
        if not deadlock:   # replies that came with no wait step left to take them
            for client in [c for c, (job, _) in runner.waiting.items() if _replied(job)]:
                taken = await self._collect(client)
                await self._note(moves.seen, client, taken)
                if keep is not None:
                    keep.append((client, moves.sent_at[client], taken))
        await self._note(moves.seen, None, None)   # the messages still on their way
        if deadlock and runner.programs.running:  # a program waits for ever: stopped, not waited for
            await runner.discard_pending()
            await runner.programs.stop()
        self.trees.check()   # a replay ran out of its tree: the schedule runs again (program_tree.py)
        ended = await self._programs_end(moves.executed)
        shot = await self.snapshots.read()
        if deadlock:
            await runner.discard_pending()
        return Run(tuple(moves.executed), shot, deadlock, moves=moves.done,
                   replies=tuple((c, tuple(r)) for c, r in moves.seen.items()), commands=tuple(moves.commands),
                   ended=ended)

    async def _own_wait(self, client: str, job) -> None:
        """Whether program `client`, its command blocked at the server with no timeout of
        the command's own (BLPOP jobs 0), has a timeout of its own that ends its wait
        first (a client-side socket timeout): then that is a move of its (`may_time_out`,
        `_time_out`). Asked once per blocked command, when the program is at rest. Where
        its threads cannot be seen (gate/process_rest.py), that is not tried, and the
        report says so (`untimed`)."""
        if client not in self.scenario.programs or not may_block(job.argv) or block_timeout(job.argv):
            return
        known = self.own_waits.get(client)
        if known is not None and known[0] is job:
            return
        programs = self.runner.programs
        history = programs.history.get(client, [])
        if self.trees.blocked_forever(client, history, programs.running.get(client)):
            self.own_waits[client] = (job, False)
            return
        if self.trees.diverged:   # (a replay: the real program is asked, in the schedule run again)
            return
        own = await programs.own_timeout(client)
        self.own_waits[client] = (job, bool(own))
        if own is None:
            self.untimed.setdefault(client, format_argv(list(job.argv)))
        else:
            self.trees.waits(client, history, forever=not own)

    async def _waited_alone(self, client: str, moves: _Moves) -> tuple[str, int] | Literal[False] | None:
        """A program that waits for pushed data was chosen to move: its move is its own
        wait ending first (its client-side timeout: it then holds its next command, or
        ends), before anyone else moves; the move, as `last`, recorded in `moves` (the
        run's done, position, executed and commands) with no command. None: it holds a
        command (a move as any). False when its wait did not end within WAIT_ALONE
        seconds (within its time limit when nobody else can move): it waits for pushed
        data only (`p.listen()`), and is not offered again until it is sent something;
        no move is made.

        Args:
            client: the program chosen to move.
            moves: the run's moves so far (the move is recorded there).
        """
        programs = self.runner.programs
        if client not in self.scenario.programs or client in self.runner.waiting or programs.gate is None \
                or programs.gate.held(client) or not programs.listening(client):
            return None   # (a blocked command's wait: a move of its own, `_time_out`)
        alone = len(self.choices[-1]) == 1   # nobody else can move: up to its time limit
        if not await programs.wait_alone(client, float("inf") if alone else WAIT_ALONE):
            self.stuck[client] = programs.pushes(client)
            if alone:
                self.alone_tried[client] = self.stuck[client]
            self.choices.pop()
            return False
        move = (client, moves.position[client])
        moves.done.append((*move, False))
        moves.position[client] += 1
        moves.executed.append(client)
        moves.commands.append(None)
        await self.pushes.settle()   # (what it was sent while it waited: taken with the next move)
        return move

    async def _programs_end(self, executed: list[str]) -> tuple[tuple[str, int | None, object, int | None], ...]:
        """Every program to its end: how each ended, (client, exit status, return value,
        after which move when the status is not 0), the schedule's outcome. One the
        playground stopped (its time limit) or that is not repeatable stops the search."""
        programs = self.runner.programs
        waiting = frozenset(c for c in programs.running if programs.gate is not None and not programs.gate.held(c)
                            and not programs.running[c].exited and programs.listening(c))
        problem = programs.not_repeatable or await programs.finish(frozenset(self.scenario.programs), waiting)
        self.trees.check()   # (a replay that ran out of its tree as the programs ran to their end)
        if problem:
            raise ExploreError(f"{self.scenario.id}: {problem}")
        failing = {c: line for c, line in programs.failures.items() if line}
        self.failing = failing if self.failing is None else {c: m for c, m in self.failing.items() if c in failing}
        return tuple((c, o.status, o.returned, executed.count(c) if o.status else None)
                     for c, o in programs.outcomes.items())

    def may_time_out(self, client: str) -> bool:
        """Its blocked command has a timeout (and no script holds it up).

        Args:
            client: the client's name.

        Returns:
            Whether its next move may be its blocked command's timeout.
        """
        pending = self.runner.waiting.get(client)
        if pending is None or self._busy_script(client):
            return False
        own = self.own_waits.get(client)
        if own is not None and own[0] is pending[0] and own[1]:
            return True   # (a client-side timeout of the program's own)
        return may_block(pending[0].argv) and bool(block_timeout(pending[0].argv))

    async def _time_out(self, client: str) -> None:
        """Let the client's blocked command time out (nobody unblocked it in this order):
        the command's timeout, else the program's own (it closes its connection)."""
        job = self.runner.waiting[client][0]
        seconds = block_timeout(job.argv) or 0.0   # (it has one, or its program has: may_time_out)
        program = self.runner.programs.running.get(client)
        limit = program.time_left() if not seconds and program is not None else seconds + 2.0
        waited = min(limit, WAIT_TIMEOUT)
        await asyncio.wait([_task(job)], timeout=waited)
        if not _replied(job):   # (the command's own timeout, else the time its program's was waited for)
            raise ExploreError(tr("{id}: {command} did not time out after {seconds:g} s", id=self.scenario.id,
                                  command=format_argv(list(job.argv)), seconds=seconds or round(waited, 1)))

    def can_move(self, client: str) -> bool:
        """The client has no blocked command, or its reply is back.

        Args:
            client: the client's name.

        Returns:
            Whether it can make its next move now.
        """
        pending = self.runner.waiting.get(client)
        return pending is None or _replied(pending[0])

    async def _settle_pending(self) -> None:
        """Until each blocked client has either its reply or the server's word that it
        still waits: what can move next must not depend on how fast a reply travels."""
        for client, (job, _) in list(self.runner.waiting.items()):
            if not _replied(job):
                await job.settle()   # (a program's command: through the gate, scenario/programs/lesson_steps.py)
            if not _replied(job):
                await self._own_wait(client, job)

    def _busy_script(self, client: str) -> bool:
        """The client runs a script that holds the server (a program's connection: no
        pane shows it, its blocked command is known from the catalogue alone)."""
        return client not in self.scenario.programs and self.pg.sessions[client].state.busy_script

    async def _wait_for_any(self, all_of: bool = False) -> bool:
        """Nobody can move: give the blocked commands with a timeout that long. True if
        a reply came."""
        waiting = [(c, job) for c, (job, _) in self.runner.waiting.items() if not _replied(job)]
        bound = 0.0
        for client, job in waiting:
            limit: float | None
            if self._busy_script(client):
                limit = WAIT_TIMEOUT
            elif may_block(job.argv):
                limit = block_timeout(job.argv) or None   # None: it waits for ever
            else:
                limit = OTHER_WAIT                # held up some other way (CLIENT PAUSE ...)
            bound = max(bound, min(limit + 0.25, WAIT_TIMEOUT) if limit is not None else 0.0)
        if not waiting or bound <= 0:
            return False
        done, _ = await asyncio.wait([_task(job) for _, job in waiting], timeout=bound,
                                     return_when=asyncio.ALL_COMPLETED if all_of else asyncio.FIRST_COMPLETED)
        return bool(done) and (not all_of or len(done) == len(waiting))

    def _who_waits(self) -> str:
        return "; ".join(tr("{client} waits in {command}", client=c, command=format_argv(list(job.argv)))
                         for c, (job, _) in sorted(self.runner.waiting.items(),
                                                   key=lambda item: list(self.programs).index(item[0]))
                         if not _replied(job))

    async def _note(self, seen: dict[str, list[str]], client: str | None, out: StepResult | None) -> None:
        """The pushes each client was sent so far (once the server has sent them all:
        PushLog.settle), then `out`, the reply `client` saw (a subscribing step's own
        frames are among the pushes). With `self.keep`, each push kept for the lanes,
        after the last unit that ran."""
        await self.pushes.settle()
        for name in seen:
            frames = self.pushes.take(name)
            seen[name] += frames
            if name == client and out is not None and out.value is STREAMING:
                out.reply = "\n".join(frames)   # SUBSCRIBE's own replies: the lanes show them on its row
            elif self.keep is not None and frames:
                last = max((u.seq for _, _, o in self.keep for u in o.units if u.seq is not None), default=0)
                last = max([last] + [o.seq for _, _, o in self.keep if o.seq is not None])
                self.kept_pushes += [(last, name, frame) for frame in frames]
        if client is not None and out is not None and out.value is not STREAMING:
            seen[client].append(await self._compared(out))

    async def _compared(self, out: StepResult) -> str:
        """A step's reply as compared between schedules (explore/explorer.py's BY): as its
        client saw it, but the readings of the clock in it (a TTL, an idle time) masked,
        which differ from run to run (the catalogue's `clock_output`: the report names
        such steps)."""
        argv = out.argv
        if out.skipped or not argv or out.value is None or isinstance(out.value, NoReply):
            return _seen(out)   # (NoReply: a subscribing step's, never compared here: its frames are)
        catalogue = self.pg.catalogue
        await catalogue.learn([argv[0]])
        if not catalogue.clock_output(argv):
            return _seen(out)
        return _seen(out, render(clock_free(argv, out.value), list(argv)).decode("utf-8", "replace"))

    async def _collect(self, client: str) -> StepResult:
        """The reply of a command that blocked arrived, and the client's next step is a
        command: take the reply first (its `save` included)."""
        _, origin = self.runner.waiting[client]
        wait = replace(origin.step, wait=True, argv=None, blocking=False)
        return await self.runner.run_step(self.scenario, self.part.name, wait)


def _seen(out: StepResult, reply: str | None = None) -> str:
    """A step's reply as its client saw it, on one line (redis-cli's rendering: escaped)."""
    if out.skipped:
        return "-"
    return " ".join((reply if reply is not None else out.reply or "").split("\n")).strip()
