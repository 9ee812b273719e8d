"""Server truth about the clients, read from a connection of its own.

`CLIENT LIST ID ...` on a separate connection: a CLIENT INFO sent on the client's own
connection inside MULTI would be queued, and one sent while it is blocked would wait.
From Redis 7.0 (and on Valkey) a client already flagged `d` stops queueing, so the
`multi=`/`watch=` counts lie; only the flags x (in MULTI), d (dirty WATCH) and b
(blocked) are taken from the server.
"""

from __future__ import annotations

from playground.resp.address import Address
from playground.resp.side_connection import SideConnection
from playground.resp.replies import Bulk, Err, Verbatim
from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.engine.client_state import ClientState, replace
from playground.engine.session import Session

OBSERVER_NAME = "playground-observer"
CLOSING_FLAGS = frozenset("cA")
"""CLIENT LIST flags of a connection the server reads no more of and closes: after the
reply being written (c), as soon as it can (A)."""


def parse_client_list(text: bytes) -> dict[int, dict[str, str]]:
    """`CLIENT LIST` output as {id: {field: value}}."""
    clients = {}
    for line in text.decode("utf-8", "replace").splitlines():
        fields = {}
        for part in line.split(" "):
            key, sep, value = part.partition("=")
            if sep:
                fields[key] = value
        if "id" in fields:
            clients[int(fields["id"])] = fields
    return clients


def apply_flags(state: ClientState, fields: dict[str, str] | None) -> ClientState:
    """Merge the server's flags for one client into what the client knows."""
    if fields is None:
        return state
    flags = fields.get("flags", "")
    in_multi = "x" in flags
    return replace(
        state,
        in_multi=in_multi,
        queued=state.queued if in_multi else 0,
        exec_will_abort=state.exec_will_abort if in_multi else False,
        dirty="d" in flags,
        blocked="b" in flags,
        busy_script=False,
    )


class Observer(SideConnection):
    """Reads clients' flags without disturbing them (no writes, no WATCH, own connection)."""

    def __init__(self, address: Address) -> None:
        super().__init__(address, OBSERVER_NAME)
        self.server_busy = False

    async def client_fields(self, ids: list[int]) -> dict[int, dict[str, str]] | None:
        """Fields per client id; None while the server is BUSY running a script (also
        when the observer must reconnect meanwhile: CLIENT SETNAME is refused BUSY too)."""
        try:
            reply, = await self.run([[b"CLIENT", b"LIST", b"ID", *[b"%d" % i for i in ids]]])
        except ConnectionError as exc:
            if ": BUSY " not in str(exc):
                raise
            self.server_busy = True
            return None
        if isinstance(reply, Err):
            self.server_busy = reply.code == "BUSY"
            return None
        self.server_busy = False
        return parse_client_list(bytes(reply) if isinstance(reply, (Bulk, Verbatim)) else b"")

    async def closed(self, client_id: int) -> bool | None:
        """Has the server closed connection `client_id`, or does it read no more of it
        (`CLOSING_FLAGS`)? None when it cannot say (BUSY, no CLIENT LIST ID before 6.2)."""
        fields = await self.client_fields([client_id])
        if fields is None:
            return None
        own = fields.get(client_id)
        return own is None or not CLOSING_FLAGS.isdisjoint(own.get("flags", ""))

    async def refresh(self, sessions: list[Session]) -> None:
        """Update each session's state from the server's flags."""
        ids = [s.state.client_id for s in sessions if s.state.client_id is not None]
        if not ids:
            return
        fields = await self.client_fields(ids)
        for session in sessions:
            if fields is None:
                pending = session.state.pending
                busy = pending is not None and pending[0].lower() in SCRIPT_COMMANDS
                session.state = replace(session.state, busy_script=busy)
            else:
                client_id = session.state.client_id
                session.state = apply_flags(session.state, fields.get(client_id) if client_id is not None else None)
