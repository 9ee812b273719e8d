"""The unit model: what the server ran as one indivisible piece, and how it ended.

A unit is a single command, a MULTI…EXEC transaction, or a script (EVAL, EVALSHA,
FCALL). Sessions build units from the typed replies (never from rendered text), and
everyone who needs to know what ran consumes them: write attribution, the timeline,
the inspector's "changed by", the lanes.

`UnitTracker` is the client-side half of a client's state: the open transaction (its
queued commands, a queue-time error), the WATCHed keys, db and protocol; the server's
flags (x, d, b) are merged in by `engine.observer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.resp.replies import Array, Err, Int, Map, Nil, Status


NOT_QUEUED = (b"multi", b"watch")  # answered at once inside MULTI, never queued

# Errors that mean a script never started (so it wrote nothing), unless the server says a
# running script raised it (raised_inside_script: WRONGTYPE, NOPERM or OOM from a redis.call).
_SCRIPT_NOT_RUN = ("NOSCRIPT", "BUSY", "NOPERM", "WRONGTYPE", "CROSSSLOT", "MOVED", "ASK", "READONLY",
                   "NOREPLICAS", "OOM", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN")


def raised_inside_script(reply: Err) -> bool:
    """Did a running script raise this error (a redis.call that failed midway, a Lua
    error)? The server then names where: "… script: <sha>, on @user_script:1." (Valkey:
    "… script: on @user_script:1."; a function: "@user_function"). A refusal before the
    script began (NOSCRIPT, BUSY, a bad key count) names no line."""
    return b" script: " in reply.message and (b"on @user_script:" in reply.message
                                               or b"on @user_function:" in reply.message)


@dataclass
class Unit:
    """One thing the server ran atomically, as one client saw it."""

    client: str
    kind: str                                  # "command" | "transaction" | "script"
    commands: list[tuple[bytes, ...]]          # the command, or the commands queued in MULTI
    outcome: str = "open"                      # see OUTCOMES
    reply: object = None                       # the typed reply (EXEC's array for a transaction)
    seq: int | None = None                     # server order: when it ran (EXEC time)
    rejected: list[tuple[tuple[bytes, ...], Err]] = field(default_factory=list)  # queue-time errors
    watched: tuple[bytes, ...] = ()            # keys WATCHed when EXEC ran
    written: frozenset[bytes] | None = None    # keys it wrote: WriteTracker.keys_written fills it in
    flushed: bool = False                      # it emptied whole databases (FLUSHALL, FLUSHDB, SWAPDB)
    started: bool = True                       # False: an error before it began (NOSCRIPT, BUSY, ...)
    changes: dict[bytes, tuple[bytes, ...]] | None = None  # what the server says it changed: key -> events
                                               # (engine/changes.py; None: it cannot say)

    OUTCOMES = ("open", "ran", "error", "committed", "aborted", "execabort", "discarded")

    @property
    def atomic(self) -> bool:
        return self.kind != "command"

    @property
    def ran(self) -> bool:
        """Did the server execute (some of) it? False for an aborted or refused unit."""
        return self.outcome in ("ran", "committed") or (
            self.outcome == "error" and self.kind == "script" and self.started)

    def command_replies(self) -> list[tuple[tuple[bytes, ...], object]]:
        """Each command that ran with its own reply (a transaction's EXEC array split up)."""
        if self.kind == "transaction":
            if self.outcome != "committed" or not isinstance(self.reply, Array):
                return []
            return list(zip(self.commands, self.reply))
        return [(self.commands[0], self.reply)]

    def describe(self) -> str:
        """A short line for humans: what ran and how it ended."""
        first = self.commands[0][0].decode("utf-8", "replace").upper() if self.commands else "?"
        if self.kind == "transaction":
            n = len(self.commands)
            return {"committed": f"MULTI … EXEC ({n} commands ran)",
                    "aborted": "MULTI … EXEC aborted: a WATCHed key changed, nothing ran",
                    "execabort": "MULTI … EXEC refused (EXECABORT): a command was rejected when queued, nothing ran",
                    "discarded": "MULTI … DISCARD: nothing ran"}.get(self.outcome, f"MULTI ({n} queued)")
        return first if self.outcome != "error" else f"{first} (error)"


def script_keys(argv) -> tuple[bytes, ...]:
    """The keys a script or function call declares (EVAL/FCALL name numkeys key...)."""
    if len(argv) < 3:
        return ()
    try:
        n = int(argv[2])
    except ValueError:
        return ()
    return tuple(argv[3:3 + n]) if n > 0 else ()


class UnitTracker:
    """Follows one client's commands and replies; closes units as they end."""

    def __init__(self, client: str) -> None:
        self.client = client
        self.open: Unit | None = None              # the transaction being queued
        self.watched: tuple[bytes, ...] = ()

    def clear(self) -> None:
        self.open = None
        self.watched = ()

    @property
    def queued(self) -> int:
        return len(self.open.commands) if self.open else 0

    def note(self, argv, reply) -> Unit | None:
        """Account for one command and its reply; the unit it closed, if any."""
        argv = tuple(argv)
        cmd = argv[0].lower()
        ok = isinstance(reply, Status)
        if cmd == b"reset" and ok:
            self.clear()
            return None
        if self.open is not None and cmd not in NOT_QUEUED:
            if cmd in (b"exec", b"discard") and len(argv) == 1:
                unit, self.open = self.open, None
                unit.reply = reply
                unit.watched = self.watched
                self.watched = ()
                if cmd == b"discard":
                    unit.outcome = "discarded"
                elif reply is Nil:
                    unit.outcome = "aborted"
                elif isinstance(reply, Err):
                    unit.outcome = "execabort"
                else:
                    unit.outcome = "committed"
                return unit
            if ok and reply == b"QUEUED":
                self.open.commands.append(argv)
            elif isinstance(reply, Err):
                self.open.rejected.append((argv, reply))
            return None
        if cmd == b"multi" and ok:
            self.open = Unit(self.client, "transaction", [])
            return None
        if cmd == b"watch" and ok:
            self.watched += tuple(k for k in dict.fromkeys(argv[1:]) if k not in self.watched)
        if cmd == b"unwatch" and ok:
            self.watched = ()
        if cmd in (b"exec", b"discard") and isinstance(reply, Err):
            return None  # "EXEC without MULTI": nothing ran, no unit
        kind = "script" if cmd in SCRIPT_COMMANDS else "command"
        unit = Unit(self.client, kind, [argv], reply=reply)
        if isinstance(reply, Err):
            not_run = not raised_inside_script(reply) and (reply.code in _SCRIPT_NOT_RUN or reply.message.startswith(
                (b"ERR Error compiling", b"ERR Number of keys", b"ERR unknown command", b"ERR wrong number")))
            unit.outcome, unit.started = "error", not not_run
        else:
            unit.outcome = "ran"
        return unit


def hello_protocol(reply) -> int | None:
    """The protocol a HELLO reply says the connection now speaks."""
    if isinstance(reply, (Map, Array)):
        pairs = reply if isinstance(reply, Map) else zip(reply[::2], reply[1::2])
        for key, value in pairs:
            if bytes(key) == b"proto" and isinstance(value, Int):
                return int(value)
    return None
