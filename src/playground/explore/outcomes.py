"""What an exploration finds: each schedule run (`Run`), the outcomes they fall into
(`OutcomeClass`), and the whole (`Exploration`), as explore/report.py shows them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playground.explore import schedules as sch
from playground.explore.snapshot import Snapshot
from playground.scenario.model import Part, Scenario

if TYPE_CHECKING:
    from playground.explore.witnesses import Witness


@dataclass
class Run:
    """One schedule as it ran: the moves, the state it ended in, the replies each client saw."""
    schedule: tuple[str, ...]        # the moves as executed
    snapshot: Snapshot
    deadlock: str | None = None      # who waits for ever, when nobody can move
    covers: int = 1                  # schedules this run stands for
    moves: list[tuple[str, int | None, bool]] = field(default_factory=list)
    # what ran, in order: (client, index of its step or None for taking a blocked reply, blocked?)
    replies: tuple[tuple[str, tuple[str, ...]], ...] = ()   # per client, the replies it saw, in order
    commands: tuple = ()             # a program lesson's: per move, the command it sent (None: none)
    footprints: dict | None = None   # a program lesson's: each client's moves' footprints (program_moves.py)
    ended: tuple = ()                # a program lesson's: (client, exit status, return value, its moves
    # when the status is not 0: after which it ended) each


@dataclass
class OutcomeClass:
    """The schedules that end the same way (an outcome): how many, its first and simplest schedule."""
    snapshot: Snapshot
    deadlock: str | None
    first: tuple[str, ...]           # its first schedule (lexicographic order)
    count: int = 0                   # schedules covered
    runs: int = 0                    # schedules run
    goal_reached: bool | None = None  # the challenge's goal state (None: no challenge)
    reached: int = 0                 # schedules covered that reach it
    own: bool = False                # the scenario's own order is in this class
    serial: list[tuple[str, ...]] = field(default_factory=list)  # the serial orders in it ("A", "B": A then B)
    first_run: Run | None = None
    witness: Witness | None = None   # its simplest schedule

    @property
    def label(self) -> str:
        return sch.label(self.first)


@dataclass
class Exploration:
    """An exploration of one part: its schedules, how many ran, and its outcomes."""
    scenario: Scenario
    part: Part
    part_number: int                 # 1-based
    server: str
    programs: dict[str, list[str]]   # client -> each step as shown (secrets left out)
    total: int                       # interleavings of the programs
    covered: int = 0                 # schedules the runs stand for
    runs: int = 0
    sampled: bool = False
    limit: int = 0                   # the explorer's --limit
    seed: int = 0
    reduced: bool = True
    own_order: tuple[str, ...] | None = None
    classes: list[OutcomeClass] = field(default_factory=list)
    goal: str | None = None
    by: str = "state"                # what makes two outcomes the same (BY)
    serial_known: bool = False       # every serial order was run: a class without one has none
    random: list[str] = field(default_factory=list)  # steps the server says may end otherwise (explore/chance.py)
    clock: list[str] = field(default_factory=list)   # steps whose replies hold the clock: compared without it
    listened: list[str] = field(default_factory=list)   # programs seen waiting for pushed data (a subscriber)
    forever: list[str] = field(default_factory=list)   # of those, the ones whose waits had no timeout of their own
    untimed: dict[str, str] = field(default_factory=dict)   # program -> its command that blocked with no timeout

    @property
    def keys(self) -> list[str]:
        """Every key some outcome has, in name order."""
        return sorted({k for c in self.classes for k in c.snapshot.keys})
