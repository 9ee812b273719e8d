"""Scenario files: what a loaded scenario holds (the dataclasses the runner, the stepper
and the UI read).

The file format is documented in docs/scenarios.md; the TOML is read and checked by
playground.scenario.loader (`load_scenario`, also importable from here), the state
checks by playground.scenario.checks, saved values and `when` by
playground.scenario.substitution and playground.scenario.when.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from playground.engine.catalogue import script_run
from playground.errors import ScenarioError
from playground.scenario import MAX_CLIENTS  # noqa: F401 (the loader's check; defined apart, see there)

if TYPE_CHECKING:
    from playground.scenario.expectations import PartExpect
from playground.i18n import ENGLISH
from playground.topology_kinds import SINGLE

__all__ = ["Requirement", "StateCheck", "Prediction", "Expect", "Step", "Part", "ChallengeSpec",
           "Scenario", "ScenarioError", "script_sha", "STEP_KINDS", "FLAVOURS"]

CLIENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
SCRIPT_REF = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_-]*)(\.sha)?$")
SHA_IN_TEXT = re.compile(r"\$([A-Za-z_][A-Za-z0-9_-]*)\.sha")
FLAVOURS = ("redis", "valkey")

STEP_KINDS = ("wait", "reconnect", "release")
"""Step kinds other than "command", each marked in the file by `<kind> = true` on a step
with no command, each run by one handler in `Runner.HANDLERS`. A new kind: add its name
here, a boolean field of that name on Step, and its handler."""


@dataclass(frozen=True)
class Requirement:
    """What a server must be or have: flavour, minimum version, commands."""

    flavour: str | None = None
    min_version: tuple[int, ...] | None = None
    commands: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = []
        if self.flavour:
            parts.append(self.flavour.capitalize())
        if self.min_version:
            parts.append(">= " + ".".join(map(str, self.min_version)))
        if self.commands:
            parts.append("command " + ", ".join(self.commands))
        return " ".join(parts)

    def merged(self, other: "Requirement | None") -> "Requirement":
        """Both requirements at once (a part's and its step's)."""
        if other is None:
            return self
        versions = [v for v in (self.min_version, other.min_version) if v]
        commands = self.commands + tuple(c for c in other.commands if c not in self.commands)
        return Requirement(other.flavour or self.flavour, max(versions) if versions else None, commands)


@dataclass(frozen=True)
class StateCheck:
    """One expectation on a key after a step."""

    key: bytes
    value: str | None = None
    absent: bool = False
    exists: bool = False
    type: str | None = None
    ttl: tuple[int, int] | None = None   # inclusive range in seconds; (-1, -1) = no expiry
    pttl: tuple[int, int] | None = None  # the same in milliseconds
    list: tuple[str, ...] | None = None
    set: frozenset[str] | None = None
    hash: dict | None = None             # exactly these fields
    hash_has: dict | None = None         # at least these fields
    zset: tuple[tuple[str, float], ...] | None = None
    scard: int | None = None
    llen: int | None = None
    zcard: int | None = None


@dataclass(frozen=True)
class Prediction:
    question: str
    choices: tuple[str, ...]
    answer: int          # 1-based
    explain: str


@dataclass(frozen=True)
class Expect:
    """What a reply must be: exact text, an error code (and/or a regex on the text)."""

    reply: str | None = None
    error: str | None = None
    match: str | None = None

    def __bool__(self) -> bool:
        return self.reply is not None or self.error is not None or self.match is not None


@dataclass(frozen=True)
class Step:
    """One move of one client, and what must be true after it."""

    number: int                      # 1-based within its part
    client: str
    argv: tuple[bytes, ...] | None   # None for a step with no command (wait, reconnect)
    display: str                     # the command as shown to a learner
    narration: str = ""
    reply: str | None = None         # exact rendered reply
    error: str | None = None         # error code
    match: str | None = None         # regex on the rendered reply (with error: on its message)
    state: tuple[StateCheck, ...] = ()
    predict: Prediction | None = None
    pause: str | None = None
    blocking: bool = False           # the reply comes later; a `wait` step checks it
    wait: bool = False
    sleep: float = 0.0               # seconds to let pass before the step (TTL lessons)
    server_stops: bool = False       # the command stops the server (SHUTDOWN)
    requires: Requirement | None = None
    save: str | None = None          # remember this reply under a name (for ${name} and when)
    when: object = None              # a playground.scenario.when.When: run only if it holds
    template: bool = False           # argv holds ${name} substitutions (and $$ for a $)
    reconnect: bool = False          # the client opens a new connection (after QUIT, CLIENT KILL)
    per_server: dict = field(default_factory=dict)  # flavour -> Expect, instead of reply/error/match
    server: str | None = None        # a server action instead of a command (scenario/server_steps.py)
    release: bool = False            # a program's step: its next command goes through the gate (scenario/programs/lesson.py)
    bound: bool = False              # runs right after the step before it: no pause, typing or prediction between

    @property
    def has_reply_check(self) -> bool:
        return (self.reply is not None or self.error is not None or self.match is not None
                or any(self.per_server.values()))

    def expect(self, flavour: str | None = None) -> Expect:
        """The reply checks on a server of this flavour ("redis", "valkey")."""
        if flavour in self.per_server:
            return self.per_server[flavour]
        return Expect(self.reply, self.error, self.match)

    @property
    def kind(self) -> str:
        """What the step does, one handler each in the runner (`Runner.HANDLERS`):
        "command" sends a command (after `sleep`, if any); "wait" collects the reply
        of the client's earlier blocking command; "reconnect" gives the client a new
        connection; "server" acts on a node of the topology (scenario/server_steps.py).
        See STEP_KINDS."""
        if self.server is not None:
            return "server"
        for kind in STEP_KINDS:
            if getattr(self, kind, False):
                return kind
        return "command"


@dataclass(frozen=True)
class Part:
    name: str
    setup: tuple[tuple[bytes, ...], ...]
    setup_display: tuple[str, ...]
    steps: tuple[Step, ...]
    requires: Requirement | None = None  # the part is skipped (each step, with a note) without it
    programs: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (client, argv): the part's own, instead of [programs]'s
    expect: PartExpect | None = None    # what must hold when it ends (scenario/expectations.py)


@dataclass(frozen=True)
class ChallengeSpec:
    """The learner schedules each client's program; the goal is a state to reach."""

    goal: str
    part: int                         # 0-based index of the part whose programs are used
    state: tuple[StateCheck, ...]


@dataclass(frozen=True)
class Scenario:
    id: str
    path: Path
    title: str
    lesson: str
    tags: tuple[str, ...]
    requires: Requirement | None
    scripts: dict[str, str]
    clients: tuple[str, ...]
    parts: tuple[Part, ...]
    challenge: ChallengeSpec | None = None
    language: str = ENGLISH             # the language its texts were loaded in
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lang -> untranslated fields
    order: int | None = None            # its place in the course (the picker and `list` follow it)
    topology: str = SINGLE.name         # a topology of nodes (topology_kinds.py): run and check start it
    replicas: int | None = None         # replicas (per primary in a cluster); None: the default
    script_time_limit_ms: int | None = None  # BUSY after this long (lua-time-limit); None: the server's default
    programs: dict = field(default_factory=dict)  # client -> argv: the clients that are programs (gate/)
    program_time_limit: float | None = None  # seconds each program may run; None: gate.programs.TIME_LIMIT
    programs_need: tuple = ()            # commands that must succeed, else the scenario is skipped
    time_limit: float | None = None     # seconds a setup or step may take (run/check --time-limit wins)
    explore_by: str | None = None       # what its explored outcomes compare: state, replies, both (--by wins)
    by_hand: dict = field(default_factory=dict)   # client -> gate.programs.ByHand: a program started by hand
    # in free play (explore/free_play.py), run again where and as it was started

    def missing_translations(self, lang: str | None = None) -> tuple[str, ...]:
        """The texts with no translation into `lang` (default: the loaded language), which
        are shown in English: ("step 3 narration", "step 5 predict explain", ...)."""
        return self.missing.get(lang or self.language, ())

    def sha(self, name: str) -> str:
        return script_sha(self.scripts[name])

    @property
    def steps(self) -> list[Step]:
        return [s for p in self.parts for s in p.steps]


def script_sha(source: str) -> str:
    """The SHA1 the server names a scenario's script by (the catalogue's `script_run`)."""
    return script_run([b"EVAL", source.encode()])[0]
