"""What a client pane shows about its client (engine/session.py keeps it up to date):
the client-side half from its own replies, the server's flags (x, d, b) from
engine/observer.py."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class ClientState:
    """What a client pane shows about its client. Server flags win over client guesses."""

    name: str
    client_id: int | None = None
    in_multi: bool = False
    queued: int = 0                 # QUEUED replies since MULTI (counted client-side)
    exec_will_abort: bool = False   # a queue-time error: EXEC will answer EXECABORT
    watched: tuple[bytes, ...] = ()
    dirty: bool = False             # server flag d: a WATCHed key changed, EXEC will abort
    dirty_keys: tuple[bytes, ...] = ()  # which WATCHed keys changed, by the engine's write records
    blocked: bool = False           # server flag b: waiting in BLPOP, XREAD BLOCK, ...
    busy_script: bool = False       # the server is running this client's slow script
    subscriptions: int = 0
    resp: int = 2
    db: int = 0
    pending: tuple[bytes, ...] | None = None  # the command still waiting for its reply
    monitoring: bool = False        # after MONITOR: every command the server runs streams in
    disconnected: bool = False      # after QUIT (the next command reconnects)
    server_stopped: bool = False    # its connection closed with the server (SHUTDOWN): nothing runs, nothing blocks

    @property
    def subscribed(self) -> bool:
        return self.subscriptions > 0

    def dirty_key(self, key: bytes) -> bool:
        """Did WATCHed `key` change? (flag d is per client; `dirty_keys` say which: none
        recorded, e.g. an outside writer, and every WATCHed key may have)"""
        return self.dirty and (key in self.dirty_keys or not self.dirty_keys)


_STATE_FIELDS = frozenset(f.name for f in fields(ClientState))


def replace(state: ClientState, **changes: object) -> ClientState:
    """`dataclasses.replace` for ClientState without its per-call introspection: every
    command makes two of these, and the scenario runner's replay time is mostly such work."""
    assert _STATE_FIELDS.issuperset(changes), changes
    new = object.__new__(ClientState)
    new.__dict__.update(state.__dict__, **changes)
    return new
