"""Topologies beyond one server: `replica` (a primary and N replicas) and `cluster`
(three primaries, optionally a replica each), all private to the app. What each topology
is (its name, primaries, replicas by default, the replica bound) is playground/
topology_kinds.py's; how its nodes are made and formed is here.

Replication and the cluster bus need TCP, so every node binds 127.0.0.1 only, on free
ports, with the sandbox's two ACL users (server/sandbox.py): learners as `default` and the
app (and replication: masteruser) as `playground`, each with a random password the app
keeps to itself: written only to each node's config file (mode 0600, in the app's 0700
temp dir) and never shown. No persistence. Every node is tied to the app like the single private
server (PR_SET_PDEATHSIG, its own process group, stopped with the app; a killed app's
temp dir is swept on the next start).

`Topology` offers what the playground uses of `PrivateServer` (label, alive, start,
stop, restart, process, generation, info, version_tuple) plus `address` (where the
clients connect: the primary, or the first cluster node) and the nodes themselves.
The `single` topology is `PrivateServer` itself: a unix socket, no TCP listener.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Set as AbstractSet

from playground.i18n import tr, trn
from playground.resp.connection import Address
from playground.server import readiness
from playground.resp.info_text import parse_info
from playground.server.node import LOOPBACK, Node, NodeError
from playground.server.sandbox import ADMIN_USER, Credentials
from playground.server.private import TEMP_PREFIX, ServerBinary, ServerError, ServerIdentity, sweep_stale_dirs
from playground.topology_kinds import KINDS, MAX_REPLICAS, NAMES, REPLICA, TopologyKind

READY_TIMEOUT = 15.0  # seconds for the whole topology to be ready


def node_address(node: Node, credentials: Credentials, admin: bool = False) -> Address:
    """Where to reach `node`: as the learner (`default`), or as the app's own user."""
    if admin:
        return Address(host=LOOPBACK, port=node.port, username=ADMIN_USER, password=credentials.admin_password)
    return Address(host=LOOPBACK, port=node.port, password=credentials.learner_password)


class Topology(ServerIdentity):
    """A topology of nodes on 127.0.0.1 (`kind`: a primary with replicas, or a cluster):
    every one of topology_kinds.KINDS but the single server (server/private.py)."""

    def __init__(self, binary: ServerBinary, kind: str = REPLICA.name, replicas: int | None = None,
                 ready_timeout: float = READY_TIMEOUT) -> None:
        """A topology not started yet.

        Args:
            binary: the server binary every node runs.
            kind: the topology's name (topology_kinds.NAMES; not the single server).
            replicas: of the primary, or of each primary of a cluster; None: the kind's default.
            ready_timeout: seconds the whole topology has to be ready.
        """
        shape = KINDS.get(kind)
        if shape is None or not shape.takes_replicas:
            raise ServerError(tr("unknown topology {kind!r} (use {names})", kind=kind, names=tr(", ").join(NAMES)))
        self.binary = binary
        self.kind: TopologyKind = shape
        self.replicas = shape.replicas(replicas)  # of the primary; of each primary in a cluster
        if not shape.replicas_allowed(self.replicas):
            raise ServerError(tr("--replicas: {fewest} to {most} for the {name} topology",
                                 fewest=shape.fewest_replicas, most=MAX_REPLICAS, name=shape.name))
        self.ready_timeout = ready_timeout
        self.credentials = Credentials.for_tcp()
        self.dir: str | None = None
        self.nodes: list[Node] = []
        self.generation = 0
        self.info: dict[str, str] = {}
        self.ready = False
        self.socket_path = None  # no unix socket: clients use `address`
        self.pristine = False

    # -- what the playground reads ------------------------------------------------

    @property
    def label(self) -> str:
        if self.kind.sharded:
            shape = trn("cluster of {n} primary", "cluster of {n} primaries", len(self.primaries()))
            if self.replicas:
                shape += trn(", {n} replica each", ", {n} replicas each", self.replicas)
        else:
            shape = trn("primary + {n} replica", "primary + {n} replicas", self.replicas)
        return f"{self.flavour} {self.version} ({self.where}), {shape}"

    @property
    def address(self) -> Address:
        """Where clients connect by default: the primary, or the first cluster node."""
        return node_address(self.nodes[0], self.credentials)

    @property
    def admin_address(self) -> Address:
        """The same node, as the app's own user (observer, inspector, server actions)."""
        return node_address(self.nodes[0], self.credentials, admin=True)

    def address_of(self, node: Node) -> Address:
        return node_address(node, self.credentials)

    @property
    def process(self):
        """The default node's process (a crash of it is the server stopping)."""
        return self.nodes[0].process if self.nodes else None

    def node(self, name: str) -> Node:
        """A node by name ("primary", "replica-1", "node-2") or by port."""
        for node in self.nodes:
            if node.name == name or str(node.port) == name:
                return node
        names = ", ".join(n.name for n in self.nodes)
        raise ServerError(tr("no node {name!r} (the nodes are {names})", name=name, names=names))

    def node_at(self, host: str, port: int) -> Node | None:
        for node in self.nodes:
            if node.port == port and host in (LOOPBACK, "localhost", ""):
                return node
        return None

    def primaries(self) -> list[Node]:
        return [n for n in self.nodes if n.replica_of is None]

    def alive(self) -> bool:
        """Every node that no server action stopped is running."""
        return bool(self.nodes) and all(n.alive() or n.stopped_on_purpose for n in self.nodes)

    def crashed(self) -> list[Node]:
        """Nodes that stopped without a server action stopping them."""
        return [n for n in self.nodes if not n.alive() and not n.stopped_on_purpose]

    # -- lifecycle ----------------------------------------------------------------

    def spawn(self) -> "Topology":
        """Start every node (the playground waits in `wait_ready`)."""
        return self.start()

    def wait_ready(self) -> "Topology":
        return self

    def start(self) -> "Topology":
        """Every node up, the topology formed and settled; ServerError if not in time."""
        sweep_stale_dirs()
        self.ready = False
        self.dir = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
        os.chmod(self.dir, 0o700)
        try:
            self._make_nodes()
            for node in self.nodes:  # a replica's config names its primary's port
                node.spawn()
            self.info = self.nodes[0].info("server")
            if self.kind.sharded:
                from playground.server.cluster import form_cluster
                form_cluster(self, time.monotonic() + self.ready_timeout)
            else:
                self.wait_settled(time.monotonic() + self.ready_timeout)
        except BaseException:
            self.stop()
            raise
        self.ready = True
        self.pristine = True  # False once a server action changed a node (scenario resets restart)
        self.generation += 1
        return self

    def _make_nodes(self) -> None:
        root = self.dir
        assert root is not None  # (start() made it)
        make = lambda name, of=None: Node(name, self.binary, root, self.credentials,  # noqa: E731
                                          cluster=self.kind.sharded, replica_of=of)
        if not self.kind.sharded:  # primary, replica-1, replica-2 ...
            primary = make("primary")
            self.nodes = [primary] + [make(f"replica-{i + 1}", primary) for i in range(self.replicas)]
            return
        count = self.kind.primaries  # node-1 ... node-N the primaries, then each one's replicas
        primaries = [make(f"node-{i + 1}") for i in range(count)]
        replicas = [make(f"node-{count + 1 + i * self.replicas + j}", p)
                    for i, p in enumerate(primaries) for j in range(self.replicas)]
        self.nodes = primaries + replicas

    def wait_settled(self, deadline: float | None = None) -> None:
        """Until every running replica's link to its primary is up and caught up."""
        if self.kind.sharded:
            from playground.server.cluster import wait_cluster_ok
            wait_cluster_ok(self, deadline or time.monotonic() + self.ready_timeout)
            return
        deadline = deadline or time.monotonic() + self.ready_timeout
        delay = 0.005
        confirmed: set[str] = set()  # primaries whose replicas WAIT saw acknowledge everything
        while True:
            problem = self.replication_problem(confirmed)
            if problem is None:
                return
            if time.monotonic() > deadline:
                raise ServerError(tr("the topology did not settle: {problem}", problem=problem))
            if problem.ack_pending:
                if self.ask_for_acks(self.node(problem.node)):
                    confirmed.add(problem.node)
                    continue
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def ask_for_acks(self, primary: Node) -> bool:
        """Replicas acknowledge once a second on their own; a WAIT after a write (a
        PUBLISH nobody hears) makes the primary ask them now (REPLCONF GETACK). True when
        every connected replica acknowledged everything up to that write: the primary's
        own view of their offsets lags by the request itself, which each ask adds to the
        stream (comparing offsets alone could chase it for seconds)."""
        try:
            with primary.link() as link:
                wanted = int(parse_info(link.call("INFO", "replication")).get("connected_slaves", "0"))
                _, acked = link.pipeline([("PUBLISH", "__playground__:settle", ""), ("WAIT", wanted, 100)])
        except (OSError, NodeError, ValueError):
            return False
        return wanted > 0 and isinstance(acked, int) and acked >= wanted

    def replication_problem(self, confirmed: AbstractSet[str] = frozenset()) -> readiness.Problem | None:
        running = [n for n in self.nodes if n.alive() and not n.paused]
        roles = {}
        for node in running:
            try:
                roles[node.name] = node.info("replication")
            except (OSError, NodeError) as exc:
                return readiness.unreachable(node.name, exc)
        primaries = [n for n in running if roles[n.name].get("role") == "master"]
        offsets = {n.port: int(roles[n.name].get("master_repl_offset", 0)) for n in primaries}
        for node in primaries:  # and the primary knows it (what WAIT counts): acks arrive each second
            if node.name in confirmed:
                continue
            info = roles[node.name]
            for key, value in info.items():
                if re.fullmatch(r"slave\d+", key):
                    fields = dict(f.split("=", 1) for f in value.split(",") if "=" in f)
                    if int(fields.get("offset", -1)) < offsets[node.port]:
                        return readiness.ack_pending(node.name)
        for node in running:
            info = roles[node.name]
            if info.get("role") != "slave":
                continue
            if info.get("master_link_status") != "up":
                return readiness.link_down(node.name, info.get("master_link_status"))
            want = offsets.get(int(info.get("master_port", 0)))
            if want is not None and int(info.get("slave_repl_offset", 0)) < want:
                return readiness.behind(node.name)
        return None

    def stop(self) -> None:
        """Stop every node and remove the temp dir; safe to call twice."""
        self.ready = False
        for node in self.nodes:  # SIGTERM every group first, then wait: stops overlap
            if node.process is not None and node.paused:
                node.stop(grace=0)
        procs = [(n, n.process) for n in self.nodes if n.process is not None]
        for _, proc in procs:
            try:
                os.killpg(proc.pid, 15)
            except OSError:
                pass
        for node, _ in procs:
            node.stop()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def restart(self) -> "Topology":
        self.stop()
        self.nodes = []
        return self.start()

    def __enter__(self) -> "Topology":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

