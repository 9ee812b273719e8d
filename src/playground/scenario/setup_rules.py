"""What a scenario's `setup` may not hold: commands that stop the server, never
return, turn the connection into a stream, or leave it in a state the steps would
inherit. The loader refuses them, so a bad file fails at load time with one line."""

from __future__ import annotations

# command -> why it has no place in a setup (a setup only prepares data)
_NEVER = {
    b"shutdown": "stops the server",
    b"monitor": "turns the connection into a stream that never ends",
    b"subscribe": "turns the connection into a stream of messages",
    b"psubscribe": "turns the connection into a stream of messages",
    b"ssubscribe": "turns the connection into a stream of messages",
    b"sync": "turns the connection into a replication stream",
    b"psync": "turns the connection into a replication stream",
    b"quit": "closes the connection",
    b"reset": "resets the connection the steps go on with",
    b"hello": "changes the protocol of the connection",
    b"replicaof": "makes the server a replica of another server",
    b"slaveof": "makes the server a replica of another server",
    b"failover": "hands the server's role to another server",
    b"migrate": "connects to another server",
    b"wait": "waits for replicas (with 0: for ever)",
    b"waitaof": "waits for the AOF (with 0: for ever)",
    b"exec": "has no MULTI to run",
    b"discard": "has no MULTI to discard",
}
_BLOCKING = {b"blpop", b"brpop", b"brpoplpush", b"blmove", b"blmpop", b"bzpopmin", b"bzpopmax",
             b"bzmpop"}
_CLIENT = {b"pause": "pauses every client", b"kill": "closes connections the scenario uses",
           b"reply": "stops the replies the setup reads", b"unblock": "has no blocked client to free"}
_DEBUG = {b"sleep": "blocks the server", b"restart": "restarts the server",
          b"crash-and-recover": "restarts the server", b"segfault": "crashes the server",
          b"panic": "crashes the server", b"oom": "crashes the server", b"assert": "crashes the server",
          b"reload": "reloads the dataset", b"loadaof": "reloads the dataset"}


def setup_problem(setup: list[tuple[bytes, ...]]) -> tuple[int, str] | None:
    """(1-based index, why) of the first setup command that may not be there, or None."""
    in_multi = 0
    for i, argv in enumerate(setup, 1):
        name = argv[0].lower()
        sub = argv[1].lower() if len(argv) > 1 else b""
        shown = name.decode("utf-8", "replace").upper()
        why = None
        if name == b"multi":
            if in_multi:
                return i, "MULTI inside MULTI"
            in_multi = i
            continue
        if name in (b"exec", b"discard") and in_multi:
            in_multi = 0
            continue
        if name in _NEVER:
            why = _NEVER[name]
        elif name in _BLOCKING or (name in (b"xread", b"xreadgroup") and b"block" in (a.lower() for a in argv)):
            why = "blocks until another client moves"
        elif name == b"client" and sub in _CLIENT:
            shown += " " + sub.decode().upper()
            why = _CLIENT[sub]
        elif name == b"debug" and sub in _DEBUG:
            shown += " " + sub.decode().upper()
            why = _DEBUG[sub]
        if why:
            return i, f"{shown} {why}; a setup only prepares data"
    if in_multi:
        return in_multi, "MULTI without EXEC: the steps would run queued"
    return None
