"""What the playground does differently on a private topology (a primary with replicas,
or a cluster): a fresh start for a scenario part, flushing every primary, the crash
message, and whether a --url server is a cluster node."""

from __future__ import annotations

import asyncio

from playground.engine.redirect import follow
from playground.resp.replies import Bulk, Err, Verbatim
from playground.server.node import NodeError

FLUSH = (("FLUSHALL",), ("SCRIPT", "FLUSH"))


def _flush_sync(topology) -> None:
    for node in topology.nodes:
        if not node.alive() or node.paused:
            continue
        with node.link() as link:
            if link.call("ROLE")[0] == b"master":
                link.pipeline(FLUSH)
                continue
            link.call("SCRIPT", "FLUSH")  # a replica refuses FLUSHALL; its primary's reaches it


async def flush_primaries(topology) -> None:
    """FLUSHALL and SCRIPT FLUSH on every primary (SCRIPT FLUSH on replicas too)."""
    await asyncio.to_thread(_flush_sync, topology)


def _flush_and_settle(topology) -> None:
    _flush_sync(topology)
    topology.wait_settled()


async def reset_topology(pg, setup, by: str | None) -> list:
    """Playground.reset on a topology: every client back on the default node with a
    clean state, no keys anywhere, then `setup` by client `by` (redirects followed).
    A topology a server action changed (a node stopped or paused, a replica promoted)
    is started afresh; otherwise it is flushed and settled."""
    topology = pg.topology
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
    replies = []
    for argv in setup:
        reply = await setter.execute(list(argv))
        replies.append(await follow(pg, setter, list(argv), reply))
    if setter.address != address:
        await setter.connect(address)
    if setup and topology.replicas:
        await asyncio.to_thread(topology.wait_settled)
    pg.writes.forget()
    return replies


def crash_message(topology) -> str:
    names = ", ".join(f"{n.name} ({n.describe()})" for n in topology.crashed())
    return (f"node {names} stopped without a server action stopping it; restart starts the whole "
            "topology afresh (every key, script and client state is gone)")


async def url_is_cluster(pg) -> bool:
    """Is the --url server a cluster node (INFO cluster says cluster_enabled:1)?"""
    try:
        reply, = await pg.reader.run([[b"INFO", b"cluster"]])
    except OSError:
        return False
    if isinstance(reply, Err) or not isinstance(reply, (Bulk, Verbatim)):
        return False
    return b"cluster_enabled:1" in bytes(reply)


__all__ = ["flush_primaries", "reset_topology", "crash_message", "url_is_cluster", "NodeError"]
