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
    node: str  # the node's name ("replica-1"), or "" when it is about the whole topology
    text: str  # already translated, or the server's own words
    ack_pending: bool = False  # a replica has not acknowledged yet: asking it now may help

    def __str__(self) -> str:
        return f"{self.node}: {self.text}" if self.node else self.text


def unreachable(node: str, error: Exception) -> Problem:
    return Problem(node, str(error))


def ack_pending(node: str) -> Problem:
    return Problem(node, tr("a replica has not acknowledged everything yet"), ack_pending=True)


def link_down(node: str, status: str | None) -> Problem:
    return Problem(node, tr("link to its primary is {status}", status=status))


def behind(node: str) -> Problem:
    return Problem(node, tr("behind its primary"))


def cluster_state(node: str, state: str | None) -> Problem:
    return Problem(node, f"cluster_state:{state}")  # the server's own field


def knows_too_few(node: str, known: str | None, total: int) -> Problem:
    return Problem(node, tr("knows {known} of {total} nodes", known=known, total=total))


def slots_disagree() -> Problem:
    return Problem("", tr("the nodes do not agree yet on who serves which slots"))
