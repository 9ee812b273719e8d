"""Replica and cluster topologies on real servers: lifecycle, privacy, redirects like
redis-cli -c (against goldens from the real redis-cli), server actions, scenarios.

A cluster start costs seconds on a busy machine: the fixtures start one cluster and one
primary+replica per server for the whole module; the tests that change a topology
(kill, promote) start their own or run last on the module's.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BINARIES
from servers import golden_dir_name

from playground.cli.repl import run_repl
from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.engine.redirect import redirect_line
from playground.engine.server_actions import ActionError, apply
from playground.resp.replies import Err
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.i18n import set_language
from playground.server.private import ServerError
from playground.server.topology import Topology
from paths import GOLDEN as GOLDEN_DIR, SCENARIOS as SCENARIOS_DIR

GOLDEN = GOLDEN_DIR / "cluster"
SCENARIOS = SCENARIOS_DIR
IDS = [golden_dir_name(b) for b in BINARIES]


@pytest.fixture(scope="module", params=BINARIES, ids=IDS)
def cluster(request):
    topology = Topology(request.param, "cluster", 0).start()
    yield topology
    topology.stop()


@pytest.fixture(scope="module", params=BINARIES, ids=IDS)
def replicated(request):
    topology = Topology(request.param, "replica", 1).start()
    yield topology
    topology.stop()


async def _playground(topology) -> Playground:
    pg = Playground(server=topology)
    await pg.start()
    return pg


async def _close_keeping_server(pg: Playground) -> None:
    server, pg.server = pg.server, None  # the module's topology outlives the test
    await pg.close()
    pg.server = server


def _node_pids(topology) -> list[int]:
    return [n.pid for n in topology.nodes if n.alive()]


def _listening(pids: list[int]) -> list[tuple[str, str, int]]:
    """(table, local address hex, port) of every LISTEN socket the processes hold."""
    inodes = set()
    for pid in pids:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                found.append((table, address, int(port, 16)))
    return found


# -- lifecycle and privacy ------------------------------------------------------------

def test_nodes_bound_their_memory(replicated):
    """Every node as the single server: maxmemory, noeviction, the bulk limit, and an address-space limit."""
    for node in replicated.nodes:
        with node.link() as link:
            assert link.call("CONFIG", "GET", "maxmemory") == [b"maxmemory", b"67108864"]
            assert link.call("CONFIG", "GET", "maxmemory-policy") == [b"maxmemory-policy", b"noeviction"]
            assert link.call("CONFIG", "GET", "proto-max-bulk-len") == [b"proto-max-bulk-len", b"%d" % (16 << 20)]
        limits = Path(f"/proc/{node.server_pid or node.pid}/limits").read_text()
        assert f"{512 << 20}" in next(line for line in limits.splitlines() if line.startswith("Max address space"))


def test_cluster_listens_on_loopback_only(cluster):
    listeners = _listening(_node_pids(cluster))
    # each node: its client port and its cluster bus port, both 127.0.0.1, no IPv6
    assert len(listeners) == 2 * len(cluster.nodes)
    assert {(table, address) for table, address, _ in listeners} == {("tcp", "0100007F")}
    assert {port for *_, port in listeners} == {p for n in cluster.nodes for p in (n.port, n.bus_port)}


def test_password_stays_in_private_files(replicated):
    root = Path(replicated.dir)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    for node in replicated.nodes:
        conf = Path(node.dir) / "node.conf"
        assert stat.S_IMODE(conf.stat().st_mode) == 0o600
        secrets = (replicated.credentials.admin_password, replicated.credentials.learner_password)
        assert all(secret in conf.read_text() for secret in secrets)
        cmdline = Path(f"/proc/{node.pid}/cmdline").read_bytes()
        assert not any(secret.encode() in cmdline for secret in secrets)
    assert not any(secret in replicated.label for secret in secrets)


@pytest.mark.slow
def test_unauthenticated_connection_is_refused(replicated, cluster):
    for node in replicated.nodes + cluster.nodes:
        with socket.create_connection(("127.0.0.1", node.port), timeout=5) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nx\r\n")
            data = b""
            while data.count(b"\r\n") < 2:
                data += sock.recv(1024)
        assert data.startswith(b"-NOAUTH"), data
        assert data.split(b"\r\n")[1].startswith(b"-NOAUTH")


def test_no_node_outlives_a_killed_app(server_binary, tmp_path):
    code = (
        "import sys\n"
        "from playground.server.topology import Topology\n"
        "from playground.server.private import ServerBinary\n"
        f"b = ServerBinary({server_binary.path!r}, 'system', {server_binary.flavour!r}, {server_binary.version!r})\n"
        "t = Topology(b, 'replica', 2).start()\n"
        "print(t.dir, *[n.pid for n in t.nodes], flush=True)\n"
        "sys.stdin.read()\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    line = child.stdout.readline().split()
    root, pids = line[0].decode(), [int(p) for p in line[1:]]
    assert len(pids) == 3 and all(Path(f"/proc/{p}").exists() for p in pids)
    child.kill()
    child.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_running(p) for p in pids):
        time.sleep(0.02)
    assert not any(_running(p) for p in pids)
    Topology(server_binary, "replica").start().stop()  # the next start sweeps the dead app's dir
    assert not Path(root).exists()


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def test_stop_ends_every_node_and_removes_the_dir(server_binary):
    topology = Topology(server_binary, "replica", 1).start()
    pids, root = _node_pids(topology), topology.dir
    topology.stop()
    assert not any(_running(p) for p in pids)
    assert not Path(root).exists()
    topology.stop()  # twice is fine


# -- clients on a cluster: like redis-cli -c ---------------------------------------------

def _normalise(output: bytes, topology) -> bytes:
    for node in topology.nodes:
        output = output.replace(b"127.0.0.1:%d" % node.port, b"127.0.0.1:{%s}" % node.name.encode())
    return output


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(GOLDEN.glob("*.txt")), ids=lambda p: p.stem)
async def test_repl_on_a_cluster_matches_redis_cli(case, server_binary):
    expected = GOLDEN / golden_dir_name(server_binary) / (case.stem + ".out")
    assert expected.exists(), "run tests/golden/generate_cluster.py with redis-cli"
    topology = Topology(server_binary, "cluster", 0)
    out, err = io.BytesIO(), io.StringIO()
    code = await run_repl(Playground(server=topology), stdin=io.BytesIO(case.read_bytes()),
                          stdout=out, stderr=err)
    assert code == 0
    assert _normalise(out.getvalue(), topology).decode() == expected.read_bytes().decode()


@pytest.mark.slow
async def test_redirect_moves_the_client_and_says_so(cluster):
    pg = await _playground(cluster)
    try:
        events = []
        executor = Executor(pg, sink=events.append)
        first = pg.sessions["A"].address
        result = await executor.run_line("A", "SET foo 1")
        assert result.output == b"OK\n"
        node3 = cluster.node("node-3")
        said = [e.output for e in events if isinstance(e, ev.Output)]
        assert said == [redirect_line(12182, "127.0.0.1", node3.port)]
        assert said[0] == b"-> Redirected to slot [12182] located at 127.0.0.1:%d\n" % node3.port
        assert pg.sessions["A"].address.port == node3.port != first.port
        assert pg.sessions["A"].address.password == cluster.credentials.learner_password
        events.clear()
        assert (await executor.run_line("A", "GET foo")).output == b'"1"\n'
        assert not [e for e in events if isinstance(e, ev.Output)]  # it stays on that node
        assert (await executor.run_line("B", "MSET foo 1 bar 2")).output == (
            b"(error) CROSSSLOT Keys in request don't hash to the same slot\n")
    finally:
        await _close_keeping_server(pg)


async def test_connect_to_a_replica_and_back(replicated):
    pg = await _playground(replicated)
    try:
        executor = Executor(pg)
        said = await apply(pg, "connect B replica-1")
        assert "replica-1" in said
        assert (await executor.run_line("B", "SET x 1")).output.startswith(b"(error) READONLY")
        assert (await executor.run_line("A", "SET x 1")).output == b"OK\n"
        await apply(pg, "connect B primary")
        assert (await executor.run_line("B", "GET x")).output == b'"1"\n'
        with pytest.raises(ActionError, match="no node 'replica-9'"):
            await apply(pg, "connect B replica-9")
    finally:
        await _close_keeping_server(pg)


async def test_paused_replication_gives_a_stale_read(replicated):
    pg = await _playground(replicated)
    try:
        executor = Executor(pg)
        await pg.reset([[b"SET", b"k", b"old"]])
        await apply(pg, "connect B replica-1")
        await apply(pg, "pause-replication replica-1")
        assert (await executor.run_line("A", "SET k new")).output == b"OK\n"
        assert (await executor.run_line("B", "GET k")).output == b'"old"\n'
        set_language("zh")  # why it did not settle is said in the learner's language
        try:
            with pytest.raises(ServerError) as refused:
                await asyncio.to_thread(replicated.wait_settled, time.monotonic() + 0.3)
        finally:
            set_language("en")
        assert re.fullmatch(r"拓扑没有稳定下来：(primary: 还有副本没有确认收到全部写入|replica-1: 落后于主节点)",
                            str(refused.value)), str(refused.value)
        await apply(pg, "resume-replication replica-1")
        await apply(pg, "settle")
        assert (await executor.run_line("B", "GET k")).output == b'"new"\n'
        with pytest.raises(ActionError, match="not a replica"):
            await apply(pg, "pause-replication primary")
    finally:
        await _close_keeping_server(pg)


@pytest.mark.slow
async def test_pause_resume_kill_promote(server_binary):
    pg = Playground(server=Topology(server_binary, "replica", 1))
    await pg.start()
    try:
        executor = Executor(pg)
        topology = pg.topology
        primary, replica = topology.node("primary"), topology.node("replica-1")
        ports = [str(n.port) for n in topology.nodes]
        said_lines = []

        async def act(text):
            said_lines.append(await apply(pg, text))
            return said_lines[-1]

        await act("pause primary")
        assert Path(f"/proc/{primary.pid}/stat").read_bytes().rpartition(b")")[2].split()[0] == b"T"  # noqa: ASYNC240 (procfs or a local path: no wait)
        await act("resume primary")
        assert (await executor.run_line("A", "SET k 1")).output == b"OK\n"
        await act("settle")
        pid = primary.pid
        await act("kill primary")
        assert not _running(pid) and topology.alive()  # stopped on purpose: no crash
        with pytest.raises(ActionError, match="not running"):
            await act("kill primary")
        said = await act("promote replica-1")
        assert "REPLICAOF NO ONE" in said
        assert topology.address.port == replica.port
        await act("connect A replica-1")
        assert (await executor.run_line("A", "GET k")).output == b'"1"\n'
        assert (await executor.run_line("A", "SET k 2")).output == b"OK\n"
        # what a step says names nodes, never their random ports, nor how long it took:
        # a transcript is the same from run to run (lesson notes, CI diffs)
        assert said_lines[2] == "the topology settled"
        assert not [line for line in said_lines if any(port in line for port in ports)], said_lines
        await pg.reset()  # a changed topology starts afresh
        assert topology.pristine and len(topology.nodes) == 2
        assert (await executor.run_line("A", "GET k")).output == b"(nil)\n"
    finally:
        await pg.close()


async def test_a_crashed_node_is_reported(replicated):
    pg = await _playground(replicated)
    try:
        executor = Executor(pg)
        replicated.node("primary").process.kill()  # not a server action: a crash
        replicated.node("primary").process.wait()
        result = await executor.run_line("A", "GET k")
        assert result.server_gone and "primary" in result.server_gone and "stopped" in result.server_gone
        assert replicated.crashed() == [replicated.node("primary")]
    finally:
        await _close_keeping_server(pg)
        replicated.restart()


@pytest.mark.slow
async def test_cluster_down_is_shown_verbatim(cluster):
    """Kills a primary of the module's cluster (nothing takes over), then restarts it."""
    pg = await _playground(cluster)
    try:
        executor = Executor(pg)
        await apply(pg, "kill node-3")
        deadline = time.monotonic() + 20
        while True:
            with cluster.node("node-1").link() as link:
                if b"cluster_state:fail" in link.call("CLUSTER", "INFO"):
                    break
            assert time.monotonic() < deadline, "node-1 never noticed node-3 was gone"
            await asyncio.sleep(0.1)
        result = await executor.run_line("A", "GET bar")
        assert result.output == b"(error) CLUSTERDOWN The cluster is down\n"
        from playground.server.cluster import cluster_problem
        assert "cluster_state:fail" in str(cluster_problem(cluster))  # what `settle` would report
    finally:
        await _close_keeping_server(pg)
        cluster.restart()  # whatever order the module's tests run in


async def test_inspector_reads_every_node_of_a_cluster(cluster):
    from playground.engine.cluster_reader import key_slot
    from playground.scenario.model import StateCheck
    from playground.scenario.runner import check_state

    pg = await _playground(cluster)
    try:
        executor = Executor(pg)
        await pg.reset()
        for line in ("SET foo 1", "SET bar 2", "RPUSH {t}l a b", "SET {}x 3", "SET a{}{b} 4"):
            assert (await executor.run_line("A", line)).output in (b"OK\n", b"(integer) 2\n")
        snap = await pg.reader.snapshot()
        assert [k.name for k in snap.keys] == sorted([b"foo", b"bar", b"{t}l", b"{}x", b"a{}{b}"])
        assert snap.total == 5 and snap.complete
        with cluster.node("node-1").link() as link:  # the local slot function agrees with the server
            for key in (b"foo", b"bar", b"{t}l", b"{}x", b"a{}{b}", b"{user:1}:name", "ключ".encode()):
                assert key_slot(key) == link.call("CLUSTER", "KEYSLOT", key)
        assert pg.reader.node_of(b"foo") == "node-3" and pg.reader.node_of(b"bar") == "node-1"
        assert pg.reader.where(b"foo") == f"slot 12182 on node-3 ({cluster.node('node-3').describe()})"
        detail = await pg.reader.detail(b"{t}l")
        assert detail["type"] == "list" and detail["node"].startswith(f"slot {key_slot(b'{t}l')} on node-")
        checks = await check_state(pg, (StateCheck(b"foo", value="1"), StateCheck(b"bar", value="2"),
                                        StateCheck(b"{t}l", list=("a", "b"))))
        assert all(c.ok for c in checks), checks
    finally:
        await _close_keeping_server(pg)


async def test_every_read_of_a_key_goes_to_the_node_that_holds_it(cluster):
    """The inspector's reads (previews, the detail's OBJECT ENCODING and MEMORY USAGE:
    a subcommand's key), the state checks' and the why-notes' go to the node serving the
    key's slot, placed by the catalogue's key positions: none is answered MOVED."""
    from playground.engine.cluster_reader import key_slot
    from playground.engine.value_reads import SIZE, read_value
    from playground.scenario.checks import _CHECK_READS

    pg = await _playground(cluster)
    try:
        executor = Executor(pg)
        await pg.reset()
        await pg.reader.snapshot()
        tags = {}   # a hash tag on each primary
        for n in range(200):
            tags.setdefault(pg.reader.node_of(f"{{t{n}}}".encode()), f"{{t{n}}}")
        assert sorted(tags) == ["node-1", "node-2", "node-3"]
        for node, tag in tags.items():
            for line in (f"SET {tag}s v", f"RPUSH {tag}l a b", f"SADD {tag}m a", f"ZADD {tag}z 1 a",
                         f"HSET {tag}h f v", f"XADD {tag}x 1-1 f v"):
                assert not (await executor.run_line("A", line)).output.startswith(b"(error)"), line
            keys = {t: f"{tag}{c}".encode() for t, c in zip(SIZE, "slmzhx", strict=True)}
            reads = [[b"TYPE", k] for k in keys.values()] + [[SIZE[t], k] for t, k in keys.items()]
            reads += [read_value(t, k) for t, k in keys.items()]
            reads += [[b"OBJECT", b"ENCODING", k] for k in keys.values()]
            reads += [[b"MEMORY", b"USAGE", k] for k in keys.values()]
            reads += [[b"XINFO", b"STREAM", keys["stream"]], [b"DUMP", keys["string"]], [b"EXISTS", keys["list"]]]
            reads += [make(keys["string"]) for make in _CHECK_READS.values()]
            replies = await pg.reader.run(reads)
            moved = [(r, got) for r, got in zip(reads, replies, strict=True)
                     if isinstance(got, Err) and b"MOVED" in got.message]
            assert not moved, (node, moved)
            detail = await pg.reader.detail(keys["hash"])
            assert "?" not in (detail["encoding"], detail["memory"]), detail
            assert detail["node"].startswith(f"slot {key_slot(keys['hash'])} on {node} "), detail
    finally:
        await _close_keeping_server(pg)


async def test_connect_line_goes_only_to_nodes_of_the_topology(replicated):
    pg = await _playground(replicated)
    try:
        events = []
        executor = Executor(pg, sink=events.append)
        replica = replicated.node("replica-1")
        assert await executor.run_line("B", f"connect 127.0.0.1 {replica.port}") is None
        assert pg.sessions["B"].address.port == replica.port
        assert (await executor.run_line("B", "SET k 1")).output.startswith(b"(error) READONLY")
        events.clear()
        await executor.run_line("B", "connect 192.0.2.1 6379")
        assert pg.sessions["B"].address.port == replica.port  # not moved
        assert any(isinstance(e, ev.Notice) and "not a node" in e.text for e in events)
    finally:
        await _close_keeping_server(pg)


@pytest.mark.parametrize("body, complaint", [
    ('topology = "ring"\n[[steps]]\nclient = "A"\ncommand = "PING"\n', "topology: one of single, replica, cluster"),
    ('[[steps]]\nserver = "kill primary"\n', "needs topology"),
    ('topology = "replica"\n[[steps]]\nserver = "explode primary"\n', "an action: kill"),
    ('topology = "replica"\n[[steps]]\nserver = "kill"\n', "write it as: kill NODE"),
    ('topology = "replica"\n[[steps]]\nserver = "connect C primary"\n', "unknown client 'C'"),
    ('topology = "replica"\n[[steps]]\nserver = "kill primary"\ncommand = "PING"\n', "command: not a field"),
    ('topology = "single"\nreplicas = 2\n[[steps]]\nclient = "A"\ncommand = "PING"\n', "replicas:"),
])
def test_bad_topology_fields_are_one_line(tmp_path, body, complaint):
    from playground.errors import ScenarioError

    path = tmp_path / "s.toml"
    path.write_text('title = "t"\nlesson = "l"\n' + body)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert complaint in message and "\n" not in message and message.startswith(str(path))


async def test_a_topology_scenario_is_skipped_on_one_server(pg):
    result = await Runner(pg).run(load_scenario(SCENARIOS / "cluster-watch.toml"))
    assert result.skipped == "needs --topology cluster (run and check start it themselves)"
    assert not result.steps


# -- scenarios ----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("names", [("cluster-crossslot", "cluster-watch"),
                                   ("stale-read-from-replica", "lock-lost-on-failover")],
                         ids=["cluster", "replica"])
async def test_topology_scenarios_pass(names, server_binary):
    scenarios = [load_scenario(SCENARIOS / f"{name}.toml") for name in names]
    assert len({s.topology for s in scenarios}) == 1 and scenarios[0].topology != "single"
    pg = Playground(server=Topology(server_binary, scenarios[0].topology, scenarios[0].replicas),
                    clients=("A", "B"))
    async with pg:
        for scenario in scenarios:
            result = await Runner(pg).run(scenario)
            assert result.ok, [(s.step.number, c.what, c.detail) for s, c in result.failed_checks] or result.error
            assert result.check_count >= 10
            assert not scenario.missing_translations("zh")
            zh = load_scenario(SCENARIOS / f"{scenario.id}.toml", "zh")
            assert not zh.missing_translations()


@pytest.mark.parametrize("line", [
    "CLUSTER MEET 127.0.0.1 {port}",
    "EVAL \"return redis.call('CLUSTER','MEET','127.0.0.1',ARGV[1])\" 0 {port}",
    "EVAL \"return redis.call('MIGRATE','127.0.0.1',ARGV[1],'k',0,100)\" 0 {port}",
    "CONFIG GET masterauth", "CONFIG SET requirepass x", "ACL SETUSER intruder on nopass ~* +@all", "ACL LIST",
    "REPLICAOF NO ONE", "CLUSTER RESET",
])
async def test_a_learner_on_a_cluster_node_cannot_join_open_or_read_its_secrets(cluster, line):
    """The issue's data loss: a script's CLUSTER MEET made another cluster node on this
    machine join ours. The nodes' ACL refuses it typed and inside scripts, and the node's
    password (masterauth) never reaches a learner."""
    pg = await _playground(cluster)
    try:
        with socket.socket() as spare:  # a port nobody listens on: nothing to join even if it went through
            spare.bind(("127.0.0.1", 0))
            port = spare.getsockname()[1]
        result = await Executor(pg).run_line("A", line.format(port=port))
        text = result.output.decode(errors="replace")
        assert "NOPERM" in text or "ACL failure" in text or "can't run this command" in text, text
        assert cluster.credentials.admin_password not in text and cluster.credentials.learner_password not in text
        with cluster.node("node-1").link() as link:
            info = link.call("CLUSTER", "INFO")
            assert b"cluster_known_nodes:3" in info and b"cluster_state:ok" in info
            assert sorted(link.call("ACL", "USERS")) == [b"default", b"playground"]
    finally:
        await _close_keeping_server(pg)


async def test_url_to_a_cluster_follows_redirects_on_loopback(cluster):
    from playground.resp.connection import Address

    node1, node3 = cluster.node("node-1"), cluster.node("node-3")
    pg = Playground(url=Address(host="127.0.0.1", port=node1.port, password=cluster.credentials.learner_password))
    await pg.start()
    try:
        assert pg.follows_redirects
        events = []
        result = await Executor(pg, sink=events.append).run_line("A", "GET foo")
        assert result.output in (b"(nil)\n", b'"1"\n')
        assert [e.output for e in events if isinstance(e, ev.Output)] == [
            b"-> Redirected to slot [12182] located at 127.0.0.1:%d\n" % node3.port]
    finally:
        await pg.close()


async def test_ask_is_followed_with_asking(cluster):
    """Slot 12182 (foo) migrating from node-3 to node-1: node-3 answers ASK for a key it
    no longer has, and only an ASKING client may use the slot on node-1."""
    node1, node3 = cluster.node("node-1"), cluster.node("node-3")
    pg = await _playground(cluster)
    try:
        await pg.reset()
        with node1.link() as one, node3.link() as three:
            one.call("CLUSTER", "SETSLOT", 12182, "IMPORTING", three.call("CLUSTER", "MYID"))
            three.call("CLUSTER", "SETSLOT", 12182, "MIGRATING", one.call("CLUSTER", "MYID"))
        events = []
        executor = Executor(pg, sink=events.append)
        result = await executor.run_line("A", "SET foo 1")
        assert result.output == b"OK\n"
        assert [e.output for e in events if isinstance(e, ev.Output)] == [
            b"-> Redirected to slot [12182] located at 127.0.0.1:%d\n" % node3.port,
            b"-> Redirected to slot [12182] located at 127.0.0.1:%d\n" % node1.port]
        assert pg.sessions["A"].address.port == node1.port
        with node1.link() as one:
            assert one.call("CLUSTER", "COUNTKEYSINSLOT", 12182) == 1  # written on the importing node
    finally:
        with node1.link() as one, node3.link() as three:
            one.pipeline([("ASKING",), ("DEL", "foo")])  # before the slot is stable again
            for link in (one, three):
                link.call("CLUSTER", "SETSLOT", 12182, "STABLE")
        await _close_keeping_server(pg)


async def test_noscript_after_failover_says_the_new_primary_never_had_it(server_binary):
    """Scripts are not replicated: after a promote (or a client moving to another node),
    EVALSHA's NOSCRIPT is explained by the node change, not by a flush from outside."""
    pg = Playground(server=Topology(server_binary, "replica", 1))
    await pg.start()
    try:
        seen = []
        executor = Executor(pg, seen.append, explain="en")
        sha = (await executor.run_line("A", 'SCRIPT LOAD "return 1"')).output.decode().strip().strip('"')
        assert (await executor.run_line("A", "SET k 1")).output == b"OK\n"
        await apply(pg, "settle")
        await apply(pg, "connect B replica-1")
        moved = await executor.run_line("B", f"EVALSHA {sha} 0")
        assert moved.output.startswith(b"(error) NOSCRIPT")
        await apply(pg, "kill primary")
        await apply(pg, "promote replica-1")
        await apply(pg, "connect A replica-1")
        promoted = await executor.run_line("A", f"EVALSHA {sha} 0")
        assert promoted.output.startswith(b"(error) NOSCRIPT")
        whys = [e for e in seen if isinstance(e, ev.Why)]
        assert [w.kind for w in whys] == ["noscript-node", "noscript-node"], whys
        assert whys[0].text.startswith("B moved to replica-1 after the script was loaded (#1)")
        assert whys[1].text.startswith("replica-1 became the primary after the script was loaded (#1)")
        from playground.scenario.lanes import layout, rows_from_order
        drawn = "\n".join(line for line, _ in layout(rows_from_order(pg.order.rows), ("A", "B"), 80))
        assert " B connected to replica-1 " in drawn and " replica-1 promoted to primary " in drawn
    finally:
        await pg.close()
