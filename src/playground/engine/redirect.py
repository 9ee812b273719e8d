"""Cluster redirects, followed as `redis-cli -c` follows them.

A MOVED or ASK error is not shown: redis-cli prints (interactive only)
`-> Redirected to slot [SLOT] located at HOST:PORT`, connects to that node (the client
stays there: the next command goes to it too), sends ASKING first after an ASK, and sends
the command again. The new connection is a new client: a MULTI or WATCH of the old one is
gone (exactly what happens to redis-cli -c).

Only nodes the playground may reach are followed: with a private topology, its own nodes;
with --url, loopback addresses. Any other redirect is shown as the error it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from playground.engine import events as ev
from playground.engine.session import NoReply, Session
from playground.resp.connection import Address
from playground.resp.replies import Err, Reply

if TYPE_CHECKING:  # (types only: with --url, nothing of the private servers is imported)
    from playground.server.private import PrivateServer
    from playground.server.topology import Topology

_REDIRECT = re.compile(rb"^(MOVED|ASK) (\d+) ([^ ]*):(\d+)$")
MAX_HOPS = 16  # a cluster that keeps redirecting is shown as it is after this many
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def redirection(reply: object) -> tuple[str, int, str, int] | None:
    """(kind, slot, host, port) of a MOVED/ASK error reply, else None."""
    if not isinstance(reply, Err):
        return None
    match = _REDIRECT.match(reply.message)
    if not match:
        return None
    kind, slot, host, port = match.groups()
    return kind.decode(), int(slot), host.decode(errors="replace"), int(port)


def redirect_line(slot: int, host: str, port: int) -> bytes:
    """redis-cli's own line (src/redis-cli.c, cliReadReply)."""
    return b"-> Redirected to slot [%d] located at %s:%d\n" % (slot, host.encode(), port)


class RedirectHost(Protocol):
    """What following a redirect asks of the Playground."""

    follows_redirects: bool

    @property
    def server(self) -> PrivateServer | Topology | None:
        """The private server or topology (None: a server given with --url)."""


def allowed_target(pg: RedirectHost, host: str, port: int) -> bool:
    """Whether a MOVED/ASK redirect to host:port may be followed: a node of the private
    topology, or the loopback when the playground is on a server given with --url.

    Args:
        pg: the Playground.
        host: the redirect's host.
        port: the redirect's port.
    """
    node_at = getattr(pg.server, "node_at", None)  # (a Topology's: not imported, as --url imports no server)
    if node_at is not None:
        return node_at(host, port) is not None
    return pg.server is None and host in LOOPBACK_HOSTS


async def follow(pg: RedirectHost, session: Session, argv: list[bytes], reply: Reply | NoReply,
                 emit: Callable[[ev.Event], None] | None = None) -> Reply | NoReply:
    """The reply after following every MOVED/ASK redirect (the session moves)."""
    if not pg.follows_redirects:
        return reply
    for _ in range(MAX_HOPS):
        where = redirection(reply)
        if where is None:
            return reply
        kind, slot, host, port = where
        old = session.address
        assert old is not None  # (it answered: it is connected somewhere)
        host = host or old.host  # "MOVED 3999 :6381": the host we are on
        if not allowed_target(pg, host, port):
            return reply
        if emit is not None:
            emit(ev.Output(session.name, redirect_line(slot, host, port), kind="redirect"))
        await session.connect(Address(host=host, port=port, username=old.username, password=old.password,
                                      tls=old.tls))
        if kind == "ASK":
            moved = session.connection
            assert moved is not None  # (connected just now)
            await moved.pipeline([[b"ASKING"]])
        reply = await session.execute(list(argv))
    return reply
