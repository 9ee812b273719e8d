"""What the playground does differently on a private topology (a primary with replicas,
or a cluster): a fresh start for a scenario part, flushing every primary, the crash
message, and whether a --url server is a cluster node."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from playground.engine.redirect import follow
from playground.engine.session import NoReply
from playground.resp.info_text import parse_info
from playground.resp.replies import Reply

if TYPE_CHECKING:  # (types only: with --url, nothing of the private servers is imported)
    from playground.engine.playground import Playground
    from playground.server.topology import Topology

FLUSH = (("FLUSHALL",), ("SCRIPT", "FLUSH"))


def _flush_sync(topology: Topology) -> None:
    for node in topology.nodes:
        if not node.alive() or node.paused:
            continue
        with node.link() as link:
            if link.call("ROLE")[0] == b"master":
                link.pipeline(FLUSH)
                continue
            link.call("SCRIPT", "FLUSH")  # a replica refuses FLUSHALL; its primary's reaches it


async def flush_primaries(topology: Topology) -> None:
    """FLUSHALL and SCRIPT FLUSH on every primary (SCRIPT FLUSH on replicas too)."""
    await asyncio.to_thread(_flush_sync, topology)


def _flush_and_settle(topology: Topology) -> None:
    _flush_sync(topology)
    topology.wait_settled()


async def config_set_everywhere(topology: Topology, name: bytes, value: bytes) -> None:
    """CONFIG SET on every running node, as the app's own user (learners cannot)."""
    def set_all() -> None:
        for node in topology.nodes:
            if node.alive() and not node.paused:
                with node.link() as link:
                    link.call("CONFIG", "SET", name, value)
    await asyncio.to_thread(set_all)


async def reset_topology(pg: Playground, setup: Sequence[Sequence[bytes]],
                         by: str | None) -> list[Reply | NoReply]:
    """Playground.reset on a topology: every client back on the default node with a
    clean state, no keys anywhere, then `setup` by client `by` (redirects followed).
    A topology a server action changed (a node stopped or paused, a replica promoted)
    is started afresh; otherwise it is flushed and settled."""
    topology = pg.topology
    assert topology is not None  # (Playground.reset asks this only of a topology)
    if not topology.pristine or not topology.alive():
        await pg.restart()
    else:
        await asyncio.to_thread(_flush_and_settle, topology)
    address = topology.address
    for argv in setup:
        pg.check_allowed(list(argv))
        pg.note_scripts(list(argv))
    await asyncio.gather(*(s.connect(address) if s.address != address or not s.connected else s.reset()
                           for s in pg.sessions.values()))
    setter = pg.sessions[by] if by else next(iter(pg.sessions.values()))
    replies: list[Reply | NoReply] = []
    for argv in setup:
        reply = await setter.execute(list(argv))
        replies.append(await follow(pg, setter, list(argv), reply))
    if setter.address != address:
        await setter.connect(address)
    if setup and topology.replicas:
        await asyncio.to_thread(topology.wait_settled)
    if pg.writes is not None:
        pg.writes.forget()
    return replies


def crash_message(topology: Topology) -> str:
    """The line saying which nodes stopped with no server action stopping them.

    Args:
        topology: the private Topology (server/topology.py).
    """
    names = ", ".join(f"{n.name} ({n.describe()})" for n in topology.crashed())
    return (f"node {names} stopped without a server action stopping it; restart starts the whole "
            "topology afresh (every key, script and client state is gone)")


async def url_is_cluster(pg: Playground) -> bool:
    """Is the --url server a cluster node (INFO cluster says cluster_enabled:1)?"""
    if pg.reader is None:  # (not started)
        return False
    try:
        reply, = await pg.reader.run([[b"INFO", b"cluster"]])
    except OSError:
        return False
    return parse_info(reply).get("cluster_enabled") == "1"



def _summary_sync(topology: Topology) -> str:
    from playground.server.node import NodeError  # (a topology's: `repl --url` never needs it)

    infos = {}
    for node in topology.nodes:
        if node.alive() and not node.paused:
            try:
                infos[node.name] = node.info("replication")
            except (OSError, NodeError):
                pass
    primary_offset = {n.port: int(infos[n.name].get("master_repl_offset", 0))
                      for n in topology.nodes if n.name in infos and infos[n.name].get("role") == "master"}
    parts = []
    for node in topology.nodes:
        info = infos.get(node.name)
        if info is None:
            state = "down" if not node.alive() else "paused" if node.paused else "?"
            parts.append(f"{node.name} :{node.port} {state}")
        elif info.get("role") == "master":
            parts.append(f"{node.name} :{node.port} primary off {info.get('master_repl_offset', '?')}")
        else:
            offset = int(info.get("slave_repl_offset", 0))
            ahead = primary_offset.get(int(info.get("master_port", 0)))
            lag = f" behind {ahead - offset} B" if ahead is not None and ahead > offset else " in sync"
            link = info.get("master_link_status")
            parts.append(f"{node.name} :{node.port} replica off {offset}"
                         + (lag if link == "up" else f" link {link}"))
    return " · ".join(parts)


async def topology_summary(topology: Topology) -> str:
    """One line: each node, its role, replication offset, and a replica's lag."""
    return await asyncio.to_thread(_summary_sync, topology)
