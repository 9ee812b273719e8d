"""Schedules grouped by outcome as they run: each run is folded into its class at once
and only what the report needs is kept (the class's first run, its simplest-witness
candidate), so memory does not grow with the schedules run but with the outcomes."""

from __future__ import annotations

from playground.explore.outcomes import Exploration, OutcomeClass, Run
from playground.explore.snapshot import judge
from playground.explore.witnesses import candidate, outcome_key


class Grouping:
    """Folds each schedule's run into its outcome class as it ends, keeping only what the report needs."""
    def __init__(self, explorer, result: Exploration, serial: dict, own_key: tuple[str, ...] | None) -> None:
        self.explorer = explorer
        self.result = result
        self.serial = serial              # serial order -> the schedule planned for it
        self.own_key = own_key            # the scenario's own order's class (None: not found yet)
        self.clients = list(explorer.programs)
        self.spec = explorer.scenario.challenge if result.goal is not None else None
        self.classes: dict[tuple, OutcomeClass] = {}
        self.seen: dict[str, OutcomeClass] = {}   # a run's key (its clients joined) -> its class
        self.candidates: dict[int, tuple[int, tuple[str, ...], Run]] = {}

    def add(self, planned: tuple[str, ...], run: Run, key: tuple[str, ...], covers) -> None:
        """One run of the `planned` schedule (`key`: its class of equivalent schedules;
        `covers()`: how many schedules it stands for, asked only for a new one)."""
        compact = "\x1f".join(key)        # (a third of a tuple's memory, for 10,000 runs and more)
        cls = self.seen.get(compact)
        if cls is None:
            run.covers = covers()
            cls = self._fold(run)
            self.seen[compact] = cls
        if planned == self.own_key:
            cls.own = True
        for order, plan in self.serial.items():
            if plan == planned and order not in cls.serial:
                cls.serial.append(order)

    def _fold(self, run: Run) -> OutcomeClass:
        explorer = self.explorer
        outcome = outcome_key(explorer, run)
        cls = self.classes.get(outcome)
        if cls is None:
            cls = self.classes[outcome] = OutcomeClass(run.snapshot, run.deadlock, run.schedule, first_run=run)
        elif run.schedule < cls.first:
            cls.first, cls.first_run, cls.snapshot = run.schedule, run, run.snapshot
        if self.spec:
            cls.reached += run.covers if judge(run.snapshot, self.spec.state) else 0
            cls.goal_reached = cls.reached > 0
        n, schedule = candidate(run, explorer.independence(run), self.clients, self.result.reduced)
        best = self.candidates.get(id(cls))
        if best is None or (n, schedule) < best[:2]:
            self.candidates[id(cls)] = (n, schedule, run)
        cls.count += run.covers
        cls.runs += 1
        return cls

    def finish(self) -> dict:
        """The classes into the result (the most schedules first); the witness candidates by id."""
        result = self.result
        result.runs = len(self.seen)
        for cls in self.classes.values():
            cls.serial.sort(key=lambda order: list(self.serial).index(order))
        result.classes = sorted(self.classes.values(), key=lambda c: (-c.count, c.first))
        result.covered = sum(c.count for c in result.classes)
        return self.candidates
