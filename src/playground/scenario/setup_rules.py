"""What a scenario's `setup` may not hold: commands that stop the server, never
return, turn the connection into a stream, or leave it in a state the steps would
inherit. The loader refuses them, so a bad file fails at load time with one line."""

from __future__ import annotations

from playground.engine.catalogue import SUBSCRIBES, may_block
from playground.engine.units import transaction_roles
from playground.i18n import N_, tr

# command -> why it has no place in a setup (a setup only prepares data)
_NEVER = {
    b"shutdown": N_("stops the server"),
    b"monitor": N_("turns the connection into a stream that never ends"),
    **dict.fromkeys(SUBSCRIBES, N_("turns the connection into a stream of messages")),
    b"sync": N_("turns the connection into a replication stream"),
    b"psync": N_("turns the connection into a replication stream"),
    b"quit": N_("closes the connection"),
    b"reset": N_("resets the connection the steps go on with"),
    b"hello": N_("changes the protocol of the connection"),
    b"replicaof": N_("makes the server a replica of another server"),
    b"slaveof": N_("makes the server a replica of another server"),
    b"failover": N_("hands the server's role to another server"),
    b"migrate": N_("connects to another server"),
    b"wait": N_("waits for replicas (with 0: for ever)"),
    b"waitaof": N_("waits for the AOF (with 0: for ever)"),
    b"exec": N_("has no MULTI to run"),
    b"discard": N_("has no MULTI to discard"),
}
_CLIENT = {b"pause": N_("pauses every client"), b"kill": N_("closes connections the scenario uses"),
           b"reply": N_("stops the replies the setup reads"), b"unblock": N_("has no blocked client to free")}
_DEBUG = {b"sleep": N_("blocks the server"), b"restart": N_("restarts the server"),
          b"crash-and-recover": N_("restarts the server"), b"segfault": N_("crashes the server"),
          b"panic": N_("crashes the server"), b"oom": N_("crashes the server"), b"assert": N_("crashes the server"),
          b"reload": N_("reloads the dataset"), b"loadaof": N_("reloads the dataset")}


def setup_problem(setup: list[tuple[bytes, ...]]) -> tuple[int, str] | None:
    """(1-based index, why) of the first setup command that may not be there, or None."""
    opened = 0                                   # the line of the MULTI still open
    for i, (argv, (role, _)) in enumerate(zip(setup, transaction_roles(setup), strict=True), 1):
        name = argv[0].lower()
        sub = argv[1].lower() if len(argv) > 1 else b""
        shown = name.decode("utf-8", "replace").upper()
        why = None
        if role == "nested":
            return i, tr("MULTI inside MULTI")
        if role == "multi":
            opened = i
            continue
        if role in ("exec", "discard"):
            opened = 0
            continue
        if name in _NEVER:
            why = _NEVER[name]
        elif may_block(argv):
            why = N_("blocks until another client moves")
        elif name == b"client" and sub in _CLIENT:
            shown += " " + sub.decode().upper()
            why = _CLIENT[sub]
        elif name == b"debug" and sub in _DEBUG:
            shown += " " + sub.decode().upper()
            why = _DEBUG[sub]
        if why:
            return i, tr("{command} {why}; a setup only prepares data", command=shown, why=tr(why))
    if opened:
        return opened, tr("MULTI without EXEC: the steps would run queued")
    return None
