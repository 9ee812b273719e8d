"""Why a topology is not ready yet: one node's problem, in the learner's language.

`wait_settled` and the cluster's readiness check poll until there is no problem; when time
runs out, the last problem is the one line the user sees ("the topology did not settle:
replica-1: behind its primary"). What a server said itself (an error reply,
`cluster_state:fail`) is quoted as the server wrote it."""

from __future__ import annotations

from dataclasses import dataclass

from playground.i18n import tr


@dataclass(frozen=True)
class Problem:
    """One node's problem (or the whole topology's), said as the user reads it."""

    node: str  # the node's name ("replica-1"), or "" when it is about the whole topology
    text: str  # already translated, or the server's own words
    ack_pending: bool = False  # a replica has not acknowledged yet: asking it now may help

    def __str__(self) -> str:
        return f"{self.node}: {self.text}" if self.node else self.text


def unreachable(node: str, error: Exception) -> Problem:
    """The node cannot be reached: the error's own words.

    Args:
        node: the node's name.
        error: what connecting or asking it raised.
    """
    return Problem(node, str(error))


def ack_pending(node: str) -> Problem:
    """A replica has not acknowledged everything yet (asking it again may help).

    Args:
        node: the replica's name.
    """
    return Problem(node, tr("a replica has not acknowledged everything yet"), ack_pending=True)


def link_down(node: str, status: str | None) -> Problem:
    """A replica's link to its primary is not up.

    Args:
        node: the replica's name.
        status: its master_link_status, as INFO gives it.
    """
    return Problem(node, tr("link to its primary is {status}", status=status))


def behind(node: str) -> Problem:
    """A replica has not caught up with its primary's offset.

    Args:
        node: the replica's name.
    """
    return Problem(node, tr("behind its primary"))


def cluster_state(node: str, state: str | None) -> Problem:
    """A node's cluster_state is not ok (the server's own field, quoted).

    Args:
        node: the node's name.
        state: its cluster_state, as CLUSTER INFO gives it.
    """
    return Problem(node, f"cluster_state:{state}")  # the server's own field


def knows_too_few(node: str, known: str | None, total: int) -> Problem:
    """A node does not know every node of the cluster yet.

    Args:
        node: the node's name.
        known: its cluster_known_nodes, as CLUSTER INFO gives it.
        total: how many nodes the cluster has.
    """
    return Problem(node, tr("knows {known} of {total} nodes", known=known, total=total))


def slots_disagree() -> Problem:
    """The nodes' views of which node serves which slots differ."""
    return Problem("", tr("the nodes do not agree yet on who serves which slots"))
