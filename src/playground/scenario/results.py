"""What a scenario's run gives back: a StepResult per step (its reply as redis-cli prints
it, its checks, what it touched), and the ScenarioResult of the whole run
(scenario/runner.py fills them in)."""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.engine.session import NoReply
from playground.engine.units import Unit
from playground.resp.replies import Reply
from playground.scenario.checks import CheckResult
from playground.scenario.model import Scenario, Step


@dataclass
class StepResult:
    """What one step did: its reply as redis-cli prints it, its checks, and why it was skipped if it was."""
    part: str
    step: Step
    reply: str | None = None            # rendered exactly as redis-cli prints it
    checks: list[CheckResult] = field(default_factory=list)
    skipped: str | None = None          # why the step did not run
    note: str | None = None             # e.g. 'blocked: the reply comes later'
    touched: dict[str, dict] = field(default_factory=dict)  # key -> {type, ttl, value}
    command: str | None = None          # the command as run, when {name} templates filled it in
    value: Reply | NoReply | None = None  # the typed reply (for the UI; STREAMING: on the subscription stream),
    # None if there was none
    units: list[Unit] = field(default_factory=list)  # what the server ran, as the engine saw it
    seq: int | None = None              # server-order number of the reply
    argv: tuple[bytes, ...] | None = None  # what was sent (for a wait step: the blocking command)
    whys: list = field(default_factory=list)  # engine Why events for its reply (executor explain=...)
    redirects: list = field(default_factory=list)  # a cluster's redirects before the reply (scenario/redirects.py)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


@dataclass
class PartEnd:
    """A part's end: what its `expect` checked (scenario/expectations.py), and how each of
    its programs ended (client -> gate.programs.ProgramOutcome: exit status, return value)."""

    part: str
    checks: list[CheckResult] = field(default_factory=list)
    outcomes: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


@dataclass
class ScenarioResult:
    """What a run of a scenario did on one server: each step's result and each part's end."""
    scenario: Scenario
    server: str
    steps: list[StepResult] = field(default_factory=list)
    skipped: str | None = None          # the whole scenario did not run
    error: str | None = None            # it could not run to the end (setup failed, ...)
    ends: list[PartEnd] = field(default_factory=list)   # each part's end that had an `expect`

    @property
    def failed_checks(self) -> list[tuple[StepResult, CheckResult]]:
        return [(s, c) for s in self.steps for c in s.checks if not c.ok]

    @property
    def failed_end_checks(self) -> list[tuple[PartEnd, CheckResult]]:
        return [(e, c) for e in self.ends for c in e.checks if not c.ok]

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failed_checks and not self.failed_end_checks

    @property
    def check_count(self) -> int:
        return sum(len(s.checks) for s in self.steps) + sum(len(e.checks) for e in self.ends)
