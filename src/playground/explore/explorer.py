"""The race explorer: every interleaving of the clients' programs, run on the real server.

Each client's steps of a part are its program (client-side `save`, `when` and `${n+1}`
included, reply checks off, as in a challenge). Every schedule starts from a state equal
to a fresh server (`Playground.reset`: no keys in any database, no cached scripts or
loaded functions, every client reset; and when a step or the setup may change the
configuration, every CONFIG value back to what it was when the exploration began) and
the part's setup, then runs its steps through the scenario runner and the one executor,
in the schedule's order. Its outcome: the final keys of every database, exactly
(explore/snapshot.py), and whether the challenge's goal state was reached. A server
that stops mid-exploration stops it (`ExploreError`): its outcomes would be false.

A blocked client cannot move until something unblocks it: its next step waits, and the
schedule's other moves go first. A schedule in which nobody can move any more is a
deadlock, its own outcome (never a hang: a blocking command with a timeout is given
that long, one without is known to wait for ever). A timeout is a move too: the next
move of a client whose command blocks with a timeout may come before whoever would
unblock it, and then waits for the timeout to fire (BLPOP q 1 returns nil: the producer
was late). The catalogue makes such a move conflict with every other.

With `reduce` (the default) only one schedule per equivalence class is run (see
`schedules`): figures report both the schedules covered and the schedules run. Runs are
grouped by outcome as they end (explore/grouping.py); then each outcome's simplest
schedule (fewest switches) is run once more with the server's key events on, for its
lanes and, when no serial order gives the outcome, the anomaly it shows
(explore/witnesses.py, explore/anomaly.py).

A lesson with programs is explored by the commands they send instead (no plan from
steps: a search with dynamic partial-order reduction, explore/program_moves.py), its
programs replayed from what they saw (explore/program_tree.py).
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from dataclasses import replace
from typing import Any

from playground.errors import ExploreError  # noqa: F401 (re-exported: where the explorer's callers look)
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.engine.session import ConnectionLost
from playground.explore import program_moves, schedules as sch
from playground.explore.chance import clock_steps, random_steps
from playground.explore.footprint import Footprint, footprints
from playground.explore.step_moves import no_reply, no_reply_message, own_order, with_timeout_move
from playground.explore.outcomes import Exploration, Run
from playground.explore.fresh_state import FreshState, ServerStopped
from playground.explore.snapshot import Snapshotter
from playground.explore.grouping import Grouping
from playground.explore.lanes import lanes_for, run_lanes
from playground.explore.one_schedule import OneSchedule
from playground.explore.program_tree import Diverged, ProgramTrees, Unshared
from playground.explore.pushes import PushLog
from playground.explore.witnesses import find_witnesses
from playground.i18n import tr
from playground.resp.cli_secrets import redact_line
from playground.scenario.model import Part, Scenario, Step
from playground.scenario.runner import Runner, requirement_unmet
from playground.scenario.server_steps import topology_unmet

DEFAULT_LIMIT = 10_000
BY = ("state", "replies", "both")
"""What an outcome is: the final state (every key, exactly), what each client saw (its
replies in order) with the first run's final state, or both (scenario field `explore_by`)."""


def programs_of(scenario: Scenario, part: Part) -> dict[str, list[Step]]:
    """Each client's steps, in order; reply checks off, and every command allowed to
    block (in some orders a command blocks that did not in the scenario's own)."""
    out = {}
    for client in scenario.clients:
        steps = [replace(s, reply=None, error=None, match=None, state=(), predict=None, pause=None,
                         blocking=not s.wait) for s in part.steps if s.client == client]
        if steps or client in scenario.programs:   # (a program moves by what it sends: program_moves.py)
            out[client] = with_timeout_move(steps)
    return out


class Explorer(OneSchedule):
    """Explores one part of a scenario: plans (or searches) its schedules, runs each on
    the server from a fresh state, and groups the runs by outcome (`explore`)."""

    def __init__(self, pg: Playground, scenario: Scenario, part: int = 1, limit: int = DEFAULT_LIMIT,
                 seed: int = 0, reduce: bool = True, executor: Executor | None = None, sink=None,
                 by: str | None = None, witnesses: bool = True, jobs: int | None = None) -> None:
        if not 1 <= part <= len(scenario.parts):
            raise ExploreError(tr("{id}: --part {part}: the number of a part, 1 to {count}", id=scenario.id, part=part,
                                    count=len(scenario.parts)))
        if limit < 1:
            raise ExploreError(tr("--limit: at least 1"))
        if jobs is not None and jobs < 1:
            raise ExploreError(tr("--jobs: at least 1"))
        by = by or scenario.explore_by or "state"
        if by not in BY:
            raise ExploreError(tr("--by: one of {choices}", choices=", ".join(BY)))
        self.by = by
        self.witnesses = witnesses   # each outcome's simplest schedule, run again (explore/witnesses.py)
        self.jobs = jobs             # lanes at once (explore/lanes.py; None: its default)
        self.lanes: list[int] = []   # the schedules each lane ran (the explorer's own first)
        self.pg = pg
        self.scenario = scenario
        self.part_number = part
        self.part = scenario.parts[part - 1]
        self.limit = limit
        self.seed = seed
        self.reduce = reduce
        self.memory_bound = False  # a write was refused for memory: every step depends on every other
        self.runner = Runner(pg, executor=executor or Executor(pg), sink=sink)
        self.runner.programs.lenient = True  # a lesson's program may send fewer commands in some orders
        self.runner.programs.warm = True     # each schedule forks its Python programs, redis imported
        self.runner.programs.keep_connections = True   # and its gate takes the last one's server connections
        self.trees = ProgramTrees()          # each program run once per reply history (explore/program_tree.py)
        self._independence: tuple[dict, sch.Independent] | None = None   # the last run's footprints, and
        # which of its moves commute (`independence`)
        self.footprint_memo: dict[tuple, Any] = {}   # a run's footprints, and each client's for its commands
        # (explore/program_moves.py's _footprints: a schedule's prefix is asked of again and again)
        if scenario.programs:
            self.runner.programs.replay = self.trees
        self.programs = programs_of(scenario, self.part)
        self.footprints: dict[str, list[Footprint]] = {}
        self.snapshots = Snapshotter(pg)
        self.pushes = PushLog(pg)            # a subscriber's messages, as its replies (explore/pushes.py)
        self.kept_pushes: list[tuple[int, str, str]] = []   # with `keep`: (after which seq, client, frame)
        self.fresh = FreshState(pg)
        _refuse_unexplorable_steps(scenario, part)
        if not self.programs:
            raise ExploreError(tr("{id}: part {part} has no steps to interleave", id=scenario.id, part=part))
        self.bound_pairs = sch.bound_pairs(self.part)
        self.keep: list | None = None
        self.choices: list[list[str]] = []   # a program lesson's run: who could move, at each move
        self.sleeping: tuple[int, program_moves.Sleep] | None = None   # a program lesson's run: who sleeps past
        # its prefix (program_moves.py)
        self.moved_now = ([], [])             # the run's moves so far, and the commands they sent
        self.runs = self.pending = 0
        self.failing, self.listened, self.untimed = None, set(), {}   # (one_schedule.py: programs that waited)
        self.timed: set[str] = set()   # of the programs that waited for pushed data, those with a timeout of their own
        self.evicting = False
        self.progress = None
        """Told `(run, planned, total, exact)` before the first schedule (run 0) and after
        each one: the schedules run so far, how many it plans to run, how many orders
        they stand for, and whether `planned` is exact (a program lesson's is the orders
        of its programs' commands as they ran the first time: other orders may make them
        send more or fewer). Free play's progress (tui/dialogs/exploring_screen.py)."""

    def commands_sent(self) -> list:
        """Every command the setup and the steps may send."""
        return [*self.part.setup, *(s.argv for p in self.programs.values() for s in p)]

    def keeps_bound(self, schedule: tuple[str, ...]) -> bool:
        return sch.keeps_bound(schedule, self.bound_pairs)

    def independent(self, x: sch.Move, y: sch.Move) -> bool:
        """A bound step and the one it is bound to commute with nothing, so a class of
        equivalent schedules either keeps every bound pair together or splits it in all
        its members (and filtering the classes' least members is exact)."""
        if any(x in pair or y in pair for pair in self.bound_pairs):
            return False
        return not self.footprints[x[0]][x[1]].conflicts(self.footprints[y[0]][y[1]])

    def independence(self, run: Run) -> sch.Independent:
        """Which moves of `run` commute: its own footprints' for a program lesson's run
        (the commands its programs sent: explore/program_moves.py), else the steps'."""
        if run.footprints is None:
            return self.independent
        last = self._independence
        if last is None or last[0] is not run.footprints:   # (asked of one run again and again: its
            last = self._independence = (run.footprints, program_moves.independence(self, run.footprints))
        return last[1]   # fold, its races, its grouping)

    async def explore(self) -> Exploration:
        """Every schedule of the part (or one per class, or a sample), run and grouped by
        outcome; each outcome's simplest schedule run again for its lanes (`witnesses`).

        Returns:
            The exploration: its outcome classes and figures.

        Raises:
            ExploreError: the scenario cannot run on this playground, or the server stopped.
        """
        try:
            return await self._explore()
        except Unshared:   # two programs of one identity did otherwise after the same replies: a tree
            await self.runner.programs.close()   # each, from the start (explore/program_tree.py)
            await self.runner.discard_pending()
            await self.fresh.restore()
            self.trees = ProgramTrees(share=False)
            self.runner.programs.replay = self.trees
            self.footprint_memo.clear()
            return await self._explore()

    async def _explore(self) -> Exploration:
        await self._refuse_unmet()
        lengths = {c: len(p) for c, p in self.programs.items()}
        result = Exploration(self.scenario, self.part, self.part_number, self.pg.label,
                             {c: [redact_line(s.display, list(s.argv) if s.argv else None) for s in p]
                              for c, p in self.programs.items()},
                             sch.count_schedules(lengths), limit=self.limit, seed=self.seed,
                             goal=self._goal(), by=self.by)
        self.evicting = evicting = self.memory_bound or await self.fresh.may_evict(self.commands_sent())
        self.footprints = await footprints(self.pg.catalogue, self.programs, evicting=evicting, setup=self.part.setup)
        result.random = random_steps(self.pg.catalogue, self.programs, self.by)
        result.clock = clock_steps(self.pg.catalogue, self.programs, self.by)
        await self.fresh.begin(self.commands_sent())
        own = own_order(self.part, self.programs)
        self.refused, self.failing = False, None   # a write refused for memory in a reduced exploration
        # (its fold says); the programs that ended badly in every schedule so far
        clients = list(self.programs)
        if self.scenario.programs:   # its moves are the commands its programs send
            grouping, fold = program_moves.grouping(self, result, clients)
            planned = None
        else:
            grouping, fold, planned = self._planned_grouping(lengths, result, own, clients, evicting)
        fold = self._told(fold, result, planned)
        try:
            if planned is None:
                await program_moves.search(self, own, fold, result)
            elif (lanes := lanes_for(self, len(planned), self.jobs)) > 1:
                self.lanes = await run_lanes(self, planned, lanes, fold)
            else:
                for schedule in planned:
                    fold(schedule, await self.run_checked(schedule))
                self.lanes = [len(planned)]
        except BaseException:
            await self.runner.programs.close()  # a lesson's programs never outlive the search
            raise
        await self.runner.discard_pending()
        if planned is not None and result.reduced and not evicting \
                and (self.refused or await self.fresh.memory_tight()):
            self.memory_bound = True   # memory ran short after all: which write is refused depends on the order
            return await self._explore()
        result.own_order = grouping.own_key if planned is None else own
        candidates = grouping.finish()
        await self._program_figures(result, planned)
        try:
            if self.witnesses:
                await self.runner.programs.stop()
                await find_witnesses(self, result, candidates)
        finally:
            await self.runner.programs.close()  # (the warm interpreter too: the search is over)
            self.pushes.detach()
        await self.fresh.restore()
        return result

    async def _refuse_unmet(self) -> None:
        """ExploreError when the playground cannot run the scenario: a requirement or its
        topology unmet, or a client it names missing."""
        why = await requirement_unmet(self.pg, self.scenario.requires)
        if why:
            raise ExploreError(f"{self.scenario.id}: {why}")
        why = topology_unmet(self.pg, self.scenario)
        if why:
            raise ExploreError(f"{self.scenario.id}: {why}")
        missing = [c for c in self.programs if c not in self.pg.sessions]
        if missing:
            raise ExploreError(tr("{id}: needs client {missing}; the playground has {clients}", id=self.scenario.id,
                                  missing=", ".join(missing), clients=", ".join(self.pg.sessions)))

    async def _program_figures(self, result: Exploration, planned) -> None:
        """A program lesson's (nothing `planned`): what ran, and what is known of the
        whole; a program that ended badly in every schedule stops it (a crash in some is
        their outcome)."""
        if planned is not None:
            return
        if self.failing:
            await self.runner.programs.close()
            raise ExploreError(f"{self.scenario.id}: " + "; ".join(self.failing.values()))
        result.runs = self.runs
        result.listened, result.untimed = sorted(self.listened), dict(sorted(self.untimed.items()))
        result.forever = sorted(self.listened - self.timed)
        result.total = result.covered + (self.pending if result.sampled else 0)

    def _told(self, fold, result: Exploration, planned):
        """`fold`, telling `progress` of each schedule run (and, now, of the plan)."""
        tell, runs = self.progress, 0
        if tell is None:
            return fold
        count, exact = (len(planned), True) if planned is not None else (min(result.total, self.limit), False)
        total = result.total
        tell(0, count, total, exact)

        def told(schedule: tuple[str, ...], run: Run) -> None:
            nonlocal runs, count, total
            fold(schedule, run)
            runs += 1
            if not exact and runs == 1:   # a program's commands are known as it sends them: after the first
                total = max(total, sch.count_schedules(dict(Counter(run.schedule))))   # run, every order of
                count = max(count, min(total, self.limit))   # those (at most the limit): about what runs
            tell(runs, max(count, runs), max(total, runs), exact)
        return told

    def _planned_grouping(self, lengths, result: Exploration, own, clients, evicting: bool):
        """The schedules to run, planned from the steps, their grouping and its fold."""
        planned = self._plan(lengths, result)
        if result.reduced:
            own_key = sch.canonical_form(own, self.independent, clients)
        else:
            own_key = own
            if own not in planned:
                planned.append(own)
        serial = self._serial_plans(lengths, result, clients)
        if result.sampled:   # the serial orders and the own order run in a sample too: they label the outcomes
            planned += [p for p in dict.fromkeys([*serial.values(), own]) if p not in planned and self.keeps_bound(p)]
        result.serial_known = bool(serial) and all(p in planned for p in serial.values())
        grouping = Grouping(self, result, serial, own_key)

        def fold(schedule: tuple[str, ...], run: Run) -> None:
            if result.reduced and not evicting and any("(error) OOM" in r for _, seen in run.replies for r in seen):
                self.refused = True   # the reduction does not hold: explore() runs every order
            # a blocked client can make two plans run the same (or an equivalent) order
            key = sch.canonical_form(run.schedule, self.independent, clients) if result.reduced else run.schedule
            grouping.add(schedule, run, key, lambda: sch.class_size(run.schedule, self.independent)
                         if result.reduced else 1)
        return grouping, fold, planned

    async def run_checked(self, schedule: tuple[str, ...], keep: list | None = None, live=()) -> Run:
        """One schedule, on a server still running at its end (else ExploreError: a
        restarted or dead server would give outcomes that are not the program's). A
        lesson's programs are replayed from their trees but those in `live`; a replay that
        runs out of its tree has the schedule run again with that program's process."""
        live = set(live)
        while True:
            self.trees.begin(live)
            try:
                return await self._run_checked(schedule, keep)
            except Diverged:
                live |= self.trees.diverged
                await self.runner.discard_pending()
                await self.runner.programs.stop()
                self.choices = []
                if keep is not None:
                    keep.clear()

    async def _run_checked(self, schedule: tuple[str, ...], keep: list | None) -> Run:
        label = sch.label(schedule)
        try:
            self.fresh.check_alive(label)
            self.keep = keep
            try:
                run = await self.run_schedule(schedule)
                self.trees.check()   # (a replay's real program that sent what the replay had not: run again)
            finally:
                self.keep = None
            await self.fresh.restore()
            self.fresh.check_alive(label)
        except ServerStopped as exc:
            raise ExploreError(f"{self.scenario.id}: {exc}") from exc
        except (ConnectionError, OSError, ConnectionLost, EOFError) as exc:   # (EOF: a reply cut short)
            try:
                self.fresh.check_alive(label, after_error=True)
            except ServerStopped as stopped:
                raise ExploreError(f"{self.scenario.id}: {stopped}") from exc
            raise ExploreError(f"{self.scenario.id}: {exc}") from exc
        return run

    def _goal(self) -> str | None:
        """The challenge's goal state, when this part is the challenge's."""
        c = self.scenario.challenge
        return c.goal if c is not None and self.scenario.parts[c.part] is self.part else None

    def _plan(self, lengths: dict[str, int], result: Exploration) -> list[tuple[str, ...]]:
        """The schedules to run: every one (or one per class), or a sample; never one that
        splits a bound pair (then `result.total` counts only those that keep them)."""
        if self.bound_pairs and result.total <= 200_000:
            result.total = sum(1 for s in sch.all_schedules(lengths) if self.keeps_bound(s))
        return [s for s in self._planned(lengths, result) if self.keeps_bound(s)]

    def _planned(self, lengths: dict[str, int], result: Exploration) -> list[tuple[str, ...]]:
        if self.reduce:
            planned = []
            try:
                for schedule in sch.canonical_schedules(lengths, self.independent):
                    if not self.keeps_bound(schedule):
                        continue
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

    def _serial_plans(self, lengths, result: Exploration, clients) -> dict[tuple[str, ...], tuple[str, ...]]:
        """Each serial order of the clients (all of one, then all of the next: at most 3
        clients), as the schedule planned for it."""
        if len(clients) > 3:
            return {}
        out = {}
        for order in permutations(clients):
            schedule = tuple(c for c in order for _ in range(lengths[c]))
            out[order] = sch.canonical_form(schedule, self.independent, clients) if result.reduced else schedule
        return out


def _refuse_unexplorable_steps(scenario: Scenario, part: int) -> None:
    """ExploreError for a step of part `part` the explorer cannot interleave: one that
    stops the server, one that gets no reply, one that acts on the servers."""
    for step in scenario.parts[part - 1].steps:
        if step.server_stops:
            raise ExploreError(tr("{id}: part {part}: step {n} stops the server; the explorer cannot run it",
                                  id=scenario.id, part=part, n=step.number))
        if no_reply(step.argv):
            raise ExploreError(no_reply_message(scenario.id, part, step))
        if step.server is not None:   # each schedule would start the topology afresh: minutes
            raise ExploreError(tr("{id}: part {part}: step {n} acts on the servers ({action}); the explorer "
                                  "does not interleave server actions yet", id=scenario.id, part=part,
                                  n=step.number, action=step.server))


async def explore(pg: Playground, scenario: Scenario, part: int = 1, **kwargs) -> Exploration:
    """Explore part `part` of `scenario` on `pg` (see Explorer).

    Args:
        pg: the playground whose server runs the schedules.
        scenario: the scenario whose clients' steps are interleaved.
        part: the part's number, from 1.
        **kwargs: Explorer's other arguments (limit, seed, reduce, by ...).

    Returns:
        The exploration.
    """
    return await Explorer(pg, scenario, part, **kwargs).explore()
