"""Typed events: everything the executor reports about a line it ran.

Front ends (a pane, `repl`, the runner, the stepper) only render these. Each event
names its client; `seq` is the server-order number of a command (one counter for all
clients of a playground), so a reader can tell in which order the server ran them.
Anything that is not redis-cli's own output is a `Notice`: panes style it so nobody
mistakes it for a reply, and `repl` prints it on stderr.

Events are plain dataclasses told apart by identity (eq=False, not frozen), and a
subclass that adds no field is a plain subclass: each generated dataclass costs about a
millisecond of the app's start-up.
"""

from __future__ import annotations

from collections.abc import Iterator

from dataclasses import dataclass, field

from playground.engine.units import Unit
from playground.resp.replies import Reply as TypedReply


@dataclass(eq=False)
class Event:
    """What the executor tells of a line, as it happens: each kind a subclass, all about
    one client (its name)."""

    client: str


@dataclass(eq=False)
class Sent(Event):
    """A command went to the server (once per repeat)."""

    argv: tuple[bytes, ...]


@dataclass(eq=False)
class Reply(Event):
    """The server answered: the typed reply and exactly what redis-cli prints for it."""

    argv: tuple[bytes, ...]
    reply: object
    output: bytes | Iterator[bytes]
    """What redis-cli prints; as pieces (an iterator, read once) only from an executor that keeps
    no output (`repl`) for a reply that may be big: a pane's executor always gives bytes."""
    seq: int
    left_out: int = 0     # bytes of redis-cli's output not rendered (a pane's `limit`)


@dataclass(eq=False)
class Output(Event):
    """Other text redis-cli itself prints: help, "Reading messages...", "(1.52s)",
    "Invalid argument(s)"."""

    output: bytes
    kind: str = "local"   # "local" | "timing" | "error"
    buffered: bool = False  # redis-cli prints it without flushing: a later `clear` overtakes it


@dataclass(eq=False)
class Message(Event):
    """A frame on a subscribed or monitoring connection, or a RESP3 push."""

    frame: object
    output: bytes


@dataclass(eq=False)
class Blocked(Event):
    """The server says the client waits (BLPOP, XREAD BLOCK, WAIT) or runs a slow script."""

    argv: tuple[bytes, ...]
    busy_script: bool = False


@dataclass(eq=False)
class UnitEnded(Event):
    """A unit closed: a command, a MULTI…EXEC (committed, aborted, EXECABORT,
    discarded) or a script."""

    unit: Unit


@dataclass(eq=False)
class Wrote(Event):
    """The keys a unit wrote (write attribution, when the executor does it)."""

    keys: frozenset[bytes]
    unit: Unit


@dataclass(eq=False)
class Notice(Event):
    """For a human, never redis-cli output: refusals, reconnects, what a wait means."""

    text: str
    level: str = "info"   # "info" | "warning" | "error"


@dataclass(eq=False)
class Why(Event):
    """Why a reply surprised: from the engine's own records (engine/why.py), right after
    the reply it explains (`seq`). Not redis-cli output and not a Notice: panes draw it
    as a note, `run` keeps it in its own field, `repl` never prints it."""

    seq: int
    text: str
    kind: str   # "changed" | "same-value" | "expired" | "flushed" | "unknown" | "execabort" | "busy"
                # | "unkillable" | "noscript-flushed" | "noscript-never" | "noscript-node" | "unwatched"
                # | "sandbox"
    message: str = ""   # the text's entry in why_text.MESSAGES and its fields: the same note in
    values: dict[str, object] = field(default_factory=dict)  # another language (a pane redrawn after F12)

    def text_in(self, lang: str) -> str:
        """The note in `lang` (its own text when it came without a message entry)."""
        if not self.message:
            return self.text
        from playground.engine.why_text import render
        return render(lang, self.message, self.values)


class Refused(Notice):
    """The playground would not send the command (e.g. FLUSHALL on a --url server)."""


class ConnectionClosed(Notice):
    """The client's connection is gone (QUIT, CLIENT KILL, a cancel)."""


class Reconnected(Notice):
    """The client has a new connection: a new client on the server, with what it lost."""


@dataclass(eq=False)
class ServerGone(Notice):
    """The server stopped (a crash, or SHUTDOWN typed by a user)."""

    expected: bool = False


class Cleared(Event):
    """`clear` was typed: a pane empties its log."""


@dataclass
class LineResult:
    """How one line ended, for callers that want a summary rather than events."""

    client: str
    argv: tuple[bytes, ...] = ()
    replies: list[TypedReply] = field(default_factory=list)  # typed replies, one per repeat
    output: bytes = b""                               # what redis-cli would have printed
    units: list[Unit] = field(default_factory=list)   # units closed by this line
    seqs: list[int] = field(default_factory=list)
    streaming: bool = False                           # replies arrive on the stream
    refused: str | None = None                        # not sent (refused, or the client is busy)
    lost: str | None = None                           # the connection dropped under it
    may_have_run: bool = False                        # ... after it was sent: its reply never came
    server_gone: str | None = None                    # the server stopped under it
    expected_stop: bool = False                       # ... and the command was SHUTDOWN
    elapsed: float = 0.0
    whys: list[Why] = field(default_factory=list)     # Why events for its replies (when explained)

    @property
    def reply(self) -> TypedReply | None:
        """The last repeat's reply (None: no reply)."""
        return self.replies[-1] if self.replies else None
