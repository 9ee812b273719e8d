"""The race explorer: every interleaving of the clients' programs, run on the real server.

Each client's steps of a part are its program (client-side `save`, `when` and `${n+1}`
included, reply checks off, as in a challenge). Every schedule starts from a fresh
server (`Playground.reset`: no keys, no cached scripts, every client reset) and the
part's setup, then runs its steps through the scenario runner and the one executor,
in the schedule's order. Its outcome: the final values of the keys (everything the
part left on the server), and whether the challenge's goal state was reached.

A blocked client cannot move until something unblocks it: its next step waits, and the
schedule's other moves go first. A schedule in which nobody can move any more is a
deadlock, its own outcome (never a hang: a blocking command with a timeout is given
that long, one without is known to wait for ever).

With `reduce` (the default) only one schedule per equivalence class is run (see
`schedules`): figures report both the schedules covered and the schedules run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.explore import schedules as sch
from playground.explore.footprint import Footprint, block_timeout, footprints, may_block
from playground.explore.snapshot import Snapshot, Snapshotter, judge
from playground.i18n import tr
from playground.scenario.model import Part, Scenario, Step
from playground.scenario.runner import WAIT_TIMEOUT, Runner, requirement_unmet

DEFAULT_LIMIT = 10_000
OTHER_WAIT = 2.0  # seconds a client held up by something other than a blocking command is given


class ExploreError(Exception):
    """The explorer cannot run this (str() is one line)."""


@dataclass
class Run:
    schedule: tuple[str, ...]        # the moves as executed
    snapshot: Snapshot
    deadlock: str | None = None      # who waits for ever, when nobody can move
    covers: int = 1                  # schedules this run stands for
    moves: list[tuple[str, int | None, bool]] = field(default_factory=list)
    # what ran, in order: (client, index of its step or None for taking a blocked reply, blocked?)


@dataclass
class OutcomeClass:
    snapshot: Snapshot
    deadlock: str | None
    first: tuple[str, ...]           # its first schedule (lexicographic order)
    count: int = 0                   # schedules covered
    runs: int = 0                    # schedules run
    goal_reached: bool | None = None  # the challenge's goal state (None: no challenge)
    own: bool = False                # the scenario's own order is in this class
    first_run: Run | None = None

    @property
    def label(self) -> str:
        return sch.label(self.first)


@dataclass
class Exploration:
    scenario: Scenario
    part: Part
    part_number: int                 # 1-based
    server: str
    programs: dict[str, list[str]]   # client -> each step as shown
    total: int                       # interleavings of the programs
    covered: int = 0                 # schedules the runs stand for
    runs: int = 0
    sampled: bool = False
    limit: int = DEFAULT_LIMIT
    seed: int = 0
    reduced: bool = True
    own_order: tuple[str, ...] | None = None
    classes: list[OutcomeClass] = field(default_factory=list)
    goal: str | None = None

    @property
    def keys(self) -> list[str]:
        """Every key some outcome has, in name order."""
        return sorted({k for c in self.classes for k in c.snapshot.keys})


def programs_of(scenario: Scenario, part: Part) -> dict[str, list[Step]]:
    """Each client's steps, in order; reply checks off, and every command allowed to
    block (in some orders a command blocks that did not in the scenario's own)."""
    out = {}
    for client in scenario.clients:
        steps = [replace(s, reply=None, error=None, match=None, state=(), predict=None, pause=None,
                         blocking=not s.wait) for s in part.steps if s.client == client]
        if steps:
            out[client] = steps
    return out


class Explorer:
    def __init__(self, pg: Playground, scenario: Scenario, part: int = 1, limit: int = DEFAULT_LIMIT,
                 seed: int = 0, reduce: bool = True, executor: Executor | None = None, sink=None) -> None:
        if not 1 <= part <= len(scenario.parts):
            raise ExploreError(tr("{id}: --part {part}: the number of a part, 1 to {count}", id=scenario.id, part=part,
                                    count=len(scenario.parts)))
        if limit < 1:
            raise ExploreError(tr("--limit: at least 1"))
        self.pg = pg
        self.scenario = scenario
        self.part_number = part
        self.part = scenario.parts[part - 1]
        self.limit = limit
        self.seed = seed
        self.reduce = reduce
        self.runner = Runner(pg, executor=executor or Executor(pg), sink=sink)
        self.runner.programs.lenient = True  # a lesson's program may send fewer commands in some orders
        self.programs = programs_of(scenario, self.part)
        self.footprints: dict[str, list[Footprint]] = {}
        self.snapshots = Snapshotter(pg)
        for step in self.part.steps:
            if step.server_stops:
                raise ExploreError(tr("{id}: part {part}: step {n} stops the server; the explorer cannot run it",
                                      id=scenario.id, part=part, n=step.number))
        if not self.programs:
            raise ExploreError(tr("{id}: part {part} has no steps to interleave", id=scenario.id, part=part))

    def independent(self, x: sch.Move, y: sch.Move) -> bool:
        return not self.footprints[x[0]][x[1]].conflicts(self.footprints[y[0]][y[1]])

    async def explore(self) -> Exploration:
        why = await requirement_unmet(self.pg, self.scenario.requires)
        if why:
            raise ExploreError(f"{self.scenario.id}: {why}")
        missing = [c for c in self.programs if c not in self.pg.sessions]
        if missing:
            raise ExploreError(tr("{id}: needs client {missing}; the playground has {clients}", id=self.scenario.id,
                                  missing=", ".join(missing), clients=", ".join(self.pg.sessions)))
        lengths = {c: len(p) for c, p in self.programs.items()}
        result = Exploration(self.scenario, self.part, self.part_number, self.pg.label,
                             {c: [s.display for s in p] for c, p in self.programs.items()},
                             sch.count_schedules(lengths), limit=self.limit, seed=self.seed,
                             goal=self.scenario.challenge.goal if self._has_goal() else None)
        self.footprints = await footprints(self.pg.reader, self.programs)
        planned = self._plan(lengths, result)
        own = tuple(s.client for s in self.part.steps)
        clients = list(self.programs)
        if result.reduced:
            own_key = sch.canonical_form(own, self.independent, clients)
        else:
            own_key = own
            if own not in planned:
                planned.append(own)
        runs: dict[tuple[str, ...], Run] = {}
        own_run = None
        for schedule in planned:
            try:
                run = await self.run_schedule(schedule)
            except BaseException:
                await self.runner.programs.stop()  # a lesson's programs never outlive the search
                raise
            # a blocked client can make two plans run the same (or an equivalent) order
            key = sch.canonical_form(run.schedule, self.independent, clients) if result.reduced else run.schedule
            if key not in runs:
                run.covers = sch.class_size(run.schedule, self.independent) if result.reduced else 1
                runs[key] = run
            if schedule == own_key:
                own_run = runs[key]
        await self.runner._discard_pending()
        result.own_order = own
        result.runs = len(runs)
        self._group(result, runs.values(), own_run)
        result.covered = sum(c.count for c in result.classes)
        return result

    def _has_goal(self) -> bool:
        c = self.scenario.challenge
        return c is not None and self.scenario.parts[c.part] is self.part

    def _plan(self, lengths: dict[str, int], result: Exploration) -> list[tuple[str, ...]]:
        if self.reduce:
            planned = []
            try:
                for schedule in sch.canonical_schedules(lengths, self.independent):
                    planned.append(schedule)
                    if len(planned) > self.limit:
                        break
                else:
                    return planned
            except OverflowError:
                pass
        result.reduced = False
        if result.total <= self.limit:
            return list(sch.all_schedules(lengths))
        result.sampled = True
        return sch.sample_schedules(lengths, self.limit, self.seed)

    def _group(self, result: Exploration, runs, own_run: Run | None) -> None:
        classes: dict[tuple, OutcomeClass] = {}
        spec = self.scenario.challenge if result.goal is not None else None
        for run in sorted(runs, key=lambda r: r.schedule):
            key = (run.deadlock, run.snapshot.signature)
            cls = classes.get(key)
            if cls is None:
                goal = judge(run.snapshot, spec.state) if spec else None
                cls = classes[key] = OutcomeClass(run.snapshot, run.deadlock, run.schedule, goal_reached=goal,
                                                  first_run=run)
            cls.count += run.covers
            cls.runs += 1
            if run is own_run:
                cls.own = True
        result.classes = sorted(classes.values(), key=lambda c: (-c.count, c.first))

    # -- one schedule -------------------------------------------------------------------

    async def run_schedule(self, planned: tuple[str, ...]) -> Run:
        """Fresh server, setup, then the moves in `planned` order (a blocked client's
        moves wait until it can move); the run as it happened."""
        runner = self.runner
        error = await runner.begin_part(self.scenario, self.part)
        if error:
            raise ExploreError(f"{self.scenario.id}: {error}")
        position = dict.fromkeys(self.programs, 0)
        remaining = list(planned)
        executed: list[str] = []
        done: list[tuple[str, int | None, bool]] = []
        deadlock = None
        while True:
            await self._settle_pending()
            if not remaining:
                if any(not job.task.done() for job, _ in runner._pending.values()) \
                        and not await self._wait_for_any(all_of=True):
                    deadlock = self._who_waits()
                break
            pick = next((i for i, c in enumerate(remaining) if self._can_move(c)), None)
            if pick is None:
                if await self._wait_for_any():
                    continue
                deadlock = self._who_waits()
                break
            client = remaining.pop(pick)
            step = self.programs[client][position[client]]
            if client in runner._pending and not step.wait:
                await self._collect(client)
                done.append((client, None, False))
            out = await runner.run_step(self.scenario, self.part.name, step)
            done.append((client, position[client], client in runner._pending and runner._pending[client][1] is out))
            position[client] += 1
            executed.append(client)
        problem = runner.programs.not_repeatable or await runner.programs.finish()  # (gate/lesson.py)
        if problem:  # a lesson's program: its outcomes cannot be trusted, or it ended badly
            raise ExploreError(f"{self.scenario.id}: {problem}")
        shot = await self.snapshots.read()
        if deadlock:
            await runner._discard_pending()
        return Run(tuple(executed), shot, deadlock, moves=done)

    def _can_move(self, client: str) -> bool:
        pending = self.runner._pending.get(client)
        return pending is None or pending[0].task.done()

    async def _settle_pending(self) -> None:
        """Until each blocked client has either its reply or the server's word that it
        still waits: what can move next must not depend on how fast a reply travels."""
        for client, (job, _) in list(self.runner._pending.items()):
            if not job.task.done():
                await self.pg.settle(client, job.task)

    async def _wait_for_any(self, all_of: bool = False) -> bool:
        """Nobody can move: give the blocked commands with a timeout that long. True if
        a reply came."""
        waiting = [(c, job) for c, (job, _) in self.runner._pending.items() if not job.task.done()]
        bound = 0.0
        for client, job in waiting:
            state = self.pg.sessions[client].state
            if state.busy_script:
                limit = WAIT_TIMEOUT
            elif may_block(job.argv):
                limit = block_timeout(job.argv)   # None: it waits for ever
            else:
                limit = OTHER_WAIT                # held up some other way (CLIENT PAUSE ...)
            bound = max(bound, min(limit + 0.25, WAIT_TIMEOUT) if limit is not None else 0.0)
        if not waiting or bound <= 0:
            return False
        done, _ = await asyncio.wait([job.task for _, job in waiting], timeout=bound,
                                     return_when=asyncio.ALL_COMPLETED if all_of else asyncio.FIRST_COMPLETED)
        return bool(done) and (not all_of or len(done) == len(waiting))

    def _who_waits(self) -> str:
        from playground.resp.cli_lines import format_argv

        return "; ".join(f"{c} waits in {format_argv(list(job.argv))}"
                         for c, (job, _) in sorted(self.runner._pending.items(),
                                                   key=lambda item: list(self.programs).index(item[0]))
                         if not job.task.done())

    async def _collect(self, client: str) -> None:
        """The reply of a command that blocked arrived, and the client's next step is a
        command: take the reply first (its `save` included)."""
        _, origin = self.runner._pending[client]
        wait = replace(origin.step, wait=True, argv=None, blocking=False)
        await self.runner.run_step(self.scenario, self.part.name, wait)


def schedule_scenario(result: Exploration, cls: OutcomeClass) -> Scenario:
    """The class's first schedule as a scenario of its own, to step through like any
    other: the part's setup, then the steps in that order (reply checks off; a command
    that blocked in that order is marked blocking, and the reply of one whose client
    moved on without a wait step arrives as a wait step)."""
    run = cls.first_run
    programs = programs_of(result.scenario, result.part)
    steps: list[Step] = []
    moves = sch.moves(run.schedule)
    label = sch.label(run.schedule)
    n = 0
    blocked_step: dict[str, Step | None] = {}   # each client's command still waiting, if any
    for client, index, blocked in run.moves:
        if index is None:
            origin = blocked_step.pop(client, None)
            steps.append(Step(len(steps) + 1, client, None, "(reply arrives)", wait=True,
                              save=origin.save if origin else None,
                              narration=f"{client}'s blocked command gets its reply."))
            continue
        step = programs[client][index]
        n += 1
        note = f"Move {n} of {len(moves)} in {label}: {client}{index + 1}."
        if cls.deadlock and n == len(moves):
            note += f" Nobody can move after this: {cls.deadlock}."
        if step.wait and blocked_step.pop(client, None) is None:
            continue  # in this order the command answered at once: no reply to wait for
        if blocked:
            blocked_step[client] = step
        steps.append(replace(step, number=len(steps) + 1, blocking=blocked, narration=note))
    part = Part(result.part.name, result.part.setup, result.part.setup_display, tuple(steps))
    return replace(result.scenario, id=f"{result.scenario.id} {label}",
                   title=f"{result.scenario.title} · schedule {label}", parts=(part,), challenge=None)


async def explore(pg: Playground, scenario: Scenario, part: int = 1, **kwargs) -> Exploration:
    return await Explorer(pg, scenario, part, **kwargs).explore()
