"""The unit model: what the server ran as one indivisible piece, and how it ended.

A unit is a single command, a MULTI…EXEC transaction, or a script (EVAL, EVALSHA,
FCALL). Sessions build units from the typed replies (never from rendered text), and
everyone who needs to know what ran consumes them: write attribution, the timeline,
the inspector's "changed by", the lanes.

`UnitTracker` is the client-side half of a client's state: the open transaction (its
queued commands, a queue-time error), the WATCHed keys and which of them changed since,
db and protocol; the server's flags (x, d, b) are merged in by `engine.observer`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.resp.replies import Array, Err, Int, Map, Nil, Status


NOT_QUEUED = (b"multi", b"watch")  # answered at once inside MULTI, never queued
_ENDS = (b"exec", b"discard")
_ENDED = ("exec", "discard")

ROLES = ("multi", "nested", "queued", "refused", "exec", "discard", "no-multi", "watch", "unwatch", "command")
"""What a line is to its client's transaction (`transaction_role`): MULTI opening one;
MULTI inside one ("nested") or WATCH inside one ("refused"): refused at once, the
transaction goes on; a command queued (or refused when queued: EXECABORT then); EXEC
(with arguments too: EXECABORT) or DISCARD ending one; EXEC or DISCARD with none open ("no-multi": refused); WATCH or
UNWATCH outside one; any other command outside one."""


def transaction_role(open_: bool, argv: Sequence[bytes]) -> str:
    """The line's role (ROLES) with a transaction of its client open (`open_`) or not.
    The server's own rule: inside MULTI every command but MULTI, WATCH, EXEC or a bare
    DISCARD is queued (RESET and QUIT too run at once: UnitTracker sees RESET's reply,
    `transaction_roles` takes them as queued)."""
    cmd = bytes(argv[0]).lower()
    if open_:
        if cmd in NOT_QUEUED:
            return "nested" if cmd == b"multi" else "refused"
        if cmd == b"exec" or (cmd == b"discard" and len(argv) == 1):
            return cmd.decode()   # (EXEC with arguments: EXECABORT, the server ends the transaction)
        return "queued"
    if cmd == b"multi":
        return "multi"
    if cmd in _ENDS:
        return "no-multi"
    return cmd.decode() if cmd in (b"watch", b"unwatch") else "command"


def transaction_roles(lines: Iterable[Sequence[bytes] | None]) -> list[tuple[str | None, bool]]:
    """Each line's (role, whether a transaction is open after it), as the server takes a
    client's lines when each is accepted: no reply needed (a program's steps, a setup).
    An empty line or None (no command: a wait) has the role None and changes nothing."""
    out: list[tuple[str | None, bool]] = []
    open_ = False
    for argv in lines:
        role = transaction_role(open_, argv) if argv else None
        open_ = role == "multi" or (open_ and role not in _ENDED)
        out.append((role, open_))
    return out


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
            return list(zip(self.commands, self.reply, strict=False))  # (the server's EXEC array: not trusted to match)
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


def script_keys(argv: Sequence[bytes]) -> tuple[bytes, ...]:
    """The keys a script or function call declares (EVAL/FCALL name numkeys key...)."""
    if len(argv) < 3:
        return ()
    try:
        n = int(argv[2])
    except ValueError:
        return ()
    return tuple(argv[3:3 + n]) if n > 0 else ()


class UnitTracker:
    """Follows one client's commands and replies; closes units as they end. `watched`:
    the keys the client WATCHes; `dirty`: those of them written, expired or flushed since
    (engine/changes.py's `record` adds them), emptied with `watched` (EXEC, DISCARD,
    UNWATCH, RESET)."""

    def __init__(self, client: str) -> None:
        self.client = client
        self.open: Unit | None = None              # the transaction being queued
        self.watched: tuple[bytes, ...] = ()
        self.dirty: tuple[bytes, ...] = ()
        self.role: str | None = None               # the last line's transaction_role ("reset": RESET)

    def clear(self) -> None:
        self.open = None
        self.watched = self.dirty = ()

    @property
    def queued(self) -> int:
        return len(self.open.commands) if self.open else 0

    def note(self, argv: Sequence[bytes], reply: object) -> Unit | None:
        """Account for one command and its reply; the unit it closed, if any."""
        argv = tuple(argv)
        cmd = argv[0].lower()
        ok = isinstance(reply, Status)
        if cmd == b"reset" and ok:
            self.clear()
            self.role = "reset"
            return None
        self.role = role = transaction_role(self.open is not None, argv)
        if role in _ENDED:
            unit, self.open = self.open, None
            assert unit is not None  # (EXEC and DISCARD end a transaction only with one open)
            unit.reply = reply
            unit.watched = self.watched
            self.watched = self.dirty = ()
            if role == "discard":
                unit.outcome = "discarded"
            elif reply is Nil:
                unit.outcome = "aborted"
            elif isinstance(reply, Err):
                unit.outcome = "execabort"
            else:
                unit.outcome = "committed"
            return unit
        if role == "queued":
            assert self.open is not None  # (a command is queued only with a transaction open)
            if ok and reply == b"QUEUED":
                self.open.commands.append(argv)
            elif isinstance(reply, Err):
                self.open.rejected.append((argv, reply))
            return None
        if role == "multi" and ok:
            self.open = Unit(self.client, "transaction", [])
            return None
        if role == "watch" and ok:
            self.watched += tuple(k for k in dict.fromkeys(argv[1:]) if k not in self.watched)
        if role == "unwatch" and ok:
            self.watched = self.dirty = ()
        if role == "no-multi" and isinstance(reply, Err):
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


def hello_protocol(reply: object) -> int | None:
    """The protocol a HELLO reply says the connection now speaks."""
    if isinstance(reply, (Map, Array)):
        pairs = reply if isinstance(reply, Map) else zip(reply[::2], reply[1::2], strict=False)  # (an odd one: ignored)
        for key, value in pairs:
            if isinstance(key, bytes) and key == b"proto" and isinstance(value, Int):
                return int(value)
    return None
