"""The topologies the playground can start, and what each one is: the one place they are
named. `--topology`, a scenario's `topology` and `replicas`, server steps, and the servers
that start them (server/__init__.py `make_server`, server/topology.py) all ask here.

    single   one private server on a unix socket (server/private.py): the default
    replica  a primary and its replicas (1 by default, at most MAX_REPLICAS)
    cluster  three primaries sharing the hash slots, each with 0 to MAX_REPLICAS replicas

Adding a topology: a `TopologyKind` in KINDS here, then how its nodes are made and
formed in server/topology.py (`Topology._make_nodes`, `start`). tests/project/
test_one_place.py fails when a topology's name or the replica bound is written anywhere
else in the source.

A leaf module (no server code): the command line checks `--topology` before it knows
whether a private server will start at all (`repl --url` imports nothing of server/).
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.i18n import N_

MAX_REPLICAS = 5
"""The most replicas a topology starts: of its primary, or of each primary of a cluster."""


@dataclass(frozen=True)
class TopologyKind:
    """One topology: its name, as `--topology` and a scenario's `topology` spell it, and
    what the app starts for it."""

    name: str
    summary: str                       # what it starts, for --help (an N_ text; {primaries} filled in)
    primaries: int = 1                 # how many primaries
    default_replicas: int | None = None   # replicas when none are asked (per primary); None: takes none
    fewest_replicas: int = 0
    replicas_summary: str = ""         # what --replicas means for it (an N_ text; {default} filled in)
    sharded: bool = False              # the keys spread over the primaries' hash slots: clients follow MOVED/ASK

    @property
    def takes_replicas(self) -> bool:
        """Whether `--replicas` (a scenario's `replicas`) goes with it: nodes on 127.0.0.1,
        not the single server on its unix socket."""
        return self.default_replicas is not None

    def replicas_allowed(self, count: int) -> bool:
        """Whether it starts with `count` replicas (of each primary).

        Args:
            count: the replicas asked for.
        """
        return self.takes_replicas and self.fewest_replicas <= count <= MAX_REPLICAS

    def replicas(self, asked: int | None) -> int:
        """How many replicas (of each primary) it starts when `asked` for (None: its default).

        Args:
            asked: `--replicas` or a scenario's `replicas`; None when not given.
        """
        return (self.default_replicas or 0) if asked is None else asked


SINGLE = TopologyKind("single", N_("one server on a unix socket, the default"))
REPLICA = TopologyKind("replica", N_("a primary and its replicas"), default_replicas=1, fewest_replicas=1,
                       replicas_summary=N_("how many replicas (default {default})"))
CLUSTER = TopologyKind("cluster", N_("{primaries} primaries sharing the hash slots"), primaries=3,
                       default_replicas=0, replicas_summary=N_("replicas per primary (default {default})"),
                       sharded=True)

KINDS = {kind.name: kind for kind in (SINGLE, REPLICA, CLUSTER)}
"""Every topology by name, the default first."""
NAMES = tuple(KINDS)
"""Their names: the choices of `--topology` and of a scenario's `topology`."""
WITH_NODES = tuple(kind.name for kind in KINDS.values() if kind.takes_replicas)
"""The names of those that start nodes on 127.0.0.1 (replicas, server actions)."""
REPLICA_COUNTS = range(MAX_REPLICAS + 1)
"""Every count `--replicas` may give (which a topology takes: `TopologyKind.replicas_allowed`)."""

