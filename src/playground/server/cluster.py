"""Forming a private cluster with the server's own commands (the bundled Valkey has no
cli): slots with CLUSTER ADDSLOTSRANGE, nodes introduced with CLUSTER MEET, replicas
attached with CLUSTER REPLICATE; ready when every node says cluster_state:ok, knows
every node, and all agree on who serves which slots."""

from __future__ import annotations

import time
from functools import partial

from playground.i18n import tr
from playground.resp.info_text import parse_info
from playground.server import readiness
from playground.server.node import LOOPBACK, NodeError
from playground.server.private import ServerError


SLOTS = 16384


def slot_ranges(count: int) -> list[tuple[int, int]]:
    """The slots split as redis-cli --cluster create splits them."""
    per = SLOTS / count
    ranges, first = [], 0
    for i in range(count):
        last = SLOTS - 1 if i == count - 1 else int(round(per * (i + 1))) - 1
        ranges.append((first, last))
        first = last + 1
    return ranges


def form_cluster(topology, deadline: float) -> None:
    """Make the started nodes one cluster: epochs, slots split among the primaries, MEET,
    replicas attached; until CLUSTER INFO says ok on every node.

    Args:
        topology: the topology, its nodes running.
        deadline: time.monotonic() by which it is formed, else ServerError.
    """
    primaries = topology.primaries()
    replicas = [n for n in topology.nodes if n.replica_of is not None]
    for epoch, node in enumerate(topology.nodes, start=1):
        with node.link() as link:
            node.node_id = link.call("CLUSTER", "MYID").decode()
            link.call("CLUSTER", "SET-CONFIG-EPOCH", epoch)
            if node in primaries:
                first, last = slot_ranges(len(primaries))[primaries.index(node)]
                link.call("CLUSTER", "ADDSLOTSRANGE", first, last)
    with topology.nodes[0].link() as link:
        link.pipeline([("CLUSTER", "MEET", LOOPBACK, n.port, n.bus_port) for n in topology.nodes[1:]])
    for node in replicas:
        _until(deadline, partial(_attach, node), tr("{node} could not become a replica", node=node.name))
    wait_cluster_ok(topology, deadline)


def _attach(node) -> str | None:
    with node.link() as link:
        try:
            link.call("CLUSTER", "REPLICATE", node.replica_of.node_id)
        except NodeError as exc:  # "Unknown node": the MEET has not reached it yet
            return str(exc)
    return None


def cluster_problem(topology) -> readiness.Problem | None:
    """Why the cluster is not ready yet, or None."""
    running = [n for n in topology.nodes if n.alive() and not n.paused]
    views = set()
    for node in running:
        try:
            with node.link() as link:
                info_text, slots = link.pipeline([("CLUSTER", "INFO"), ("CLUSTER", "SLOTS")])
        except OSError as exc:
            return readiness.unreachable(node.name, exc)
        if isinstance(info_text, NodeError):
            return readiness.unreachable(node.name, info_text)
        info = parse_info(info_text)
        if info.get("cluster_state") != "ok":
            return readiness.cluster_state(node.name, info.get("cluster_state"))
        if int(info.get("cluster_known_nodes", 0)) < len(topology.nodes):
            return readiness.knows_too_few(node.name, info.get("cluster_known_nodes"), len(topology.nodes))
        views.add(_slot_view(slots))
    if len(views) > 1:
        return readiness.slots_disagree()
    problem = topology.replication_problem() if topology.replicas else None
    if problem and problem.ack_pending:
        topology.ask_for_acks(topology.node(problem.node))
    return problem


def _slot_view(slots) -> tuple:
    """CLUSTER SLOTS as comparable data: (first, last, primary port, replica ports)."""
    view = []
    for entry in slots or []:
        first, last, primary, *replicas = entry
        view.append((first, last, primary[1], tuple(sorted(r[1] for r in replicas))))
    return tuple(sorted(view))


def wait_cluster_ok(topology, deadline: float) -> None:
    """Wait until every node says cluster_state:ok and agrees on the slots.

    Args:
        topology: the cluster's topology.
        deadline: time.monotonic() by which it is, else ServerError.
    """
    _until(deadline, lambda: cluster_problem(topology), tr("the cluster did not become ready"))


def _until(deadline: float, problem, what: str) -> None:
    delay = 0.01
    while True:
        why = problem()
        if why is None:
            return
        if time.monotonic() > deadline:
            raise ServerError(f"{what}: {why}")
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
