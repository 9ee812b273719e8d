"""Server actions on a private topology: what a scenario step (`server = "kill primary"`)
and the TUI's palette can do to a node, each checked: `apply` returns one line saying
what happened, or raises ActionError saying what did not.

    kill NODE               SIGKILL: the node dies at once, nothing is handed over
    stop NODE               SIGTERM: the node shuts down (no persistence: its data is gone)
    pause NODE              SIGSTOP: the process is frozen (clients and replication wait)
    resume NODE             SIGCONT
    pause-replication NODE  on a replica: CLIENT PAUSE WRITE; it answers reads but applies
                            nothing its primary sends (the stream waits)
    resume-replication NODE CLIENT UNPAUSE
    promote NODE            a replica becomes a primary: REPLICAOF NO ONE (replica
                            topology), CLUSTER FAILOVER TAKEOVER (cluster)
    settle                  wait until every running replica is linked and caught up, or
                            every running cluster node says cluster_state:ok
    connect CLIENT NODE     client CLIENT reconnects to NODE (redis-cli's `connect host port`)
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import TYPE_CHECKING, Any

from playground.engine.playground import Playground
from playground.i18n import tr
from playground.server.node import Node, NodeError
from playground.server.private import ServerError
from playground.server.topology import Topology
from playground.topology_kinds import WITH_NODES

if TYPE_CHECKING:  # (the executor imports this module when a line says `connect`)
    from playground.engine.executor import Executor

ACTIONS = ("kill", "stop", "pause", "resume", "pause-replication", "resume-replication",
           "promote", "settle", "connect")
PAUSE_MS = 3_600_000  # CLIENT PAUSE for "until resumed"
SETTLE_TIMEOUT = 10.0


class ActionError(Exception):
    """A server action that could not be done or did not have its effect (one line)."""


def parse_action(text: str) -> tuple[str, tuple[str, ...]]:
    """"kill primary" -> ("kill", ("primary",)); ValueError with a line if malformed."""
    words = text.split()
    if not words or words[0].lower() not in ACTIONS:
        raise ValueError(tr("an action: {actions} (then a node name)", actions=", ".join(ACTIONS)))
    action, args = words[0].lower(), tuple(words[1:])
    want = {"settle": 0, "connect": 2}.get(action, 1)
    if len(args) != want:
        usage = {0: action, 1: f"{action} NODE", 2: f"{action} CLIENT NODE"}[want]
        raise ValueError(tr("write it as: {usage}", usage=usage))
    return action, args


async def apply(pg: Playground, text: str) -> str:
    """Do the action on `pg`'s topology; one line saying what happened."""
    topology = pg.topology
    if topology is None:
        raise ActionError(tr("server actions need a topology of nodes (--topology {names})",
                             names=tr(", ").join(WITH_NODES)))
    try:
        action, args = parse_action(text)
    except ValueError as exc:
        raise ActionError(str(exc)) from None
    if action == "settle":
        await asyncio.to_thread(_settle, topology)
        return tr("the topology settled")
    if action == "connect":
        return await connect(pg, args[0], args[1])
    try:
        node = topology.node(args[0])
    except ServerError as exc:
        raise ActionError(str(exc)) from None
    topology.pristine = False
    said = await asyncio.to_thread(_NODE_ACTIONS[action], topology, node)
    if action == "promote":  # the playground's own reads follow the primary
        pg.order.mark("promote", node.name)  # (a new primary: its own, empty, script cache)
        for side in (pg.observer, pg.reader, pg.admin):
            if side is not None and side.address != topology.admin_address:
                await side.close()
                side.address = topology.admin_address
    return said


def _settle(topology: Topology) -> None:
    try:
        topology.wait_settled(time.monotonic() + SETTLE_TIMEOUT)
    except ServerError as exc:
        raise ActionError(str(exc)) from None


def _signal(node: Node, sig: int) -> None:
    if not node.alive() or node.process is None:
        raise ActionError(tr("{node} is not running", node=node.name))
    os.killpg(node.process.pid, sig)


def _kill(topology: Topology, node: Node) -> str:
    _signal(node, signal.SIGKILL)
    node.stopped_on_purpose = True
    node.stop(grace=0)
    return tr("{node} killed (SIGKILL): gone at once, with whatever it had not sent on", node=node.name)


def _stop(topology: Topology, node: Node) -> str:
    if not node.alive():
        raise ActionError(tr("{node} is not running", node=node.name))
    node.stopped_on_purpose = True
    node.stop()
    return tr("{node} stopped (SIGTERM); without persistence its data is gone", node=node.name)


def _process_state(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return b"?"


def _until_state(node: Node, stopped: bool) -> None:
    """Until the kernel shows the node stopped (T) or running again: signals act later."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while ((_process_state(node.pid) if node.pid is not None else b"?") == b"T") != stopped:
        if time.monotonic() > deadline or not node.alive():
            raise ActionError(tr("{node} did not stop", node=node.name) if stopped
                              else tr("{node} did not continue", node=node.name))
        time.sleep(0.002)


def _pause(topology: Topology, node: Node) -> str:
    _signal(node, signal.SIGSTOP)
    node.paused = True
    _until_state(node, stopped=True)
    return tr("{node} paused (SIGSTOP): it answers nobody until resumed", node=node.name)


def _resume(topology: Topology, node: Node) -> str:
    _signal(node, signal.SIGCONT)
    node.paused = False
    _until_state(node, stopped=False)
    return tr("{node} resumed (SIGCONT)", node=node.name)


def _call(node: Node, *args: bytes | str | int) -> Any:
    try:
        with node.link() as link:
            return link.call(*args)
    except (OSError, NodeError) as exc:
        raise ActionError(f"{node.name}: {' '.join(map(str, args[:2]))}: {exc}") from None


def _role(node: Node) -> bytes:
    role: bytes = _call(node, "ROLE")[0]
    return role


def _pause_replication(topology: Topology, node: Node) -> str:
    if _role(node) != b"slave":
        raise ActionError(tr("{node} is not a replica", node=node.name))
    _call(node, "CLIENT", "PAUSE", PAUSE_MS, "WRITE")
    return tr("{node}: replication paused (CLIENT PAUSE WRITE): it still answers reads, but applies "
              "nothing from its primary", node=node.name)


def _resume_replication(topology: Topology, node: Node) -> str:
    _call(node, "CLIENT", "UNPAUSE")
    return tr("{node}: replication resumed (CLIENT UNPAUSE)", node=node.name)


def _promote(topology: Topology, node: Node) -> str:
    if _role(node) != b"slave":
        raise ActionError(tr("{node} is not a replica", node=node.name))
    _call(node, "CLIENT", "UNPAUSE")  # a paused replication link would pause its writes too
    if topology.kind.sharded:
        _call(node, "CLUSTER", "FAILOVER", "TAKEOVER")
        how = "CLUSTER FAILOVER TAKEOVER"
    else:
        _call(node, "REPLICAOF", "NO", "ONE")
        how = "REPLICAOF NO ONE"
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while _role(node) != b"master":
        if time.monotonic() > deadline:
            raise ActionError(tr("{node} is still a replica after {how}", node=node.name, how=how))
        time.sleep(0.01)
    node.replica_of = None
    if topology.nodes[0] is not node and not topology.kind.sharded:
        topology.nodes.remove(node)   # clients connect to the primary by default:
        topology.nodes.insert(0, node)  # now this one
    return tr("{node} is a primary now ({how})", node=node.name, how=how)


_NODE_ACTIONS = {"kill": _kill, "stop": _stop, "pause": _pause, "resume": _resume,
                 "pause-replication": _pause_replication, "resume-replication": _resume_replication,
                 "promote": _promote}


async def connect(pg: Playground, client: str, node_name: str) -> str:
    """Client `client` reconnects to a node (by name or port): a new client there."""
    if client not in pg.sessions:
        raise ActionError(tr("no client {client} (the clients are {clients})", client=client,
                                  clients=", ".join(pg.sessions)))
    topology = pg.topology
    if topology is None:
        raise ActionError(tr("server actions need a topology of nodes (--topology {names})",
                             names=tr(", ").join(WITH_NODES)))
    try:
        node = topology.node(node_name)
    except ServerError as exc:
        raise ActionError(str(exc)) from None
    session = pg.sessions[client]
    from playground.engine.session import ConnectionLost
    try:
        await session.connect(topology.address_of(node))
    except ConnectionLost as exc:
        raise ActionError(str(exc)) from None
    pg.order.mark("connect", node.name, client=client)
    return tr("client {client} is connected to {node} now", client=client, node=node.name)


async def connect_line(executor: Executor, client: str, host: bytes, port: bytes) -> None:
    """redis-cli's `connect HOST PORT` typed in a pane, to a node of the topology (and
    nowhere else): silent on success, as redis-cli is; the prompt shows the node."""
    from playground.engine import events as ev

    pg = executor.pg
    text_host = host.decode(errors="replace")
    node = pg.topology.node_at(text_host, int(port)) if port.isdigit() and pg.topology is not None else None
    if node is None:
        executor.emit(ev.Notice(client, f"connect: {text_host}:{port.decode(errors='replace')} is not a node "
                                        "of the playground's topology (the server bar lists them)", "warning"))
        return
    try:
        await connect(pg, client, node.name)
    except ActionError as exc:
        executor.emit(ev.Output(client, b"Could not connect to Redis at %s:%d: Connection refused\n"
                                % (host, node.port), kind="error"))
        executor.emit(ev.Notice(client, str(exc), "warning"))
        return
    executor.emit(ev.Reconnected(client, f"client {client}: connected to {node.name} ({node.describe()}), "
                                         "a new client there"))
