"""Messages between the TUI's widgets: small dataclasses, as in toolong's messages.py."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class CommandDone(Message):
    """A client ran a command: the inspector and the other panes refresh once."""

    client: str
    argv: list[bytes]
    reply: object = None        # the typed reply (None if there was none)
    was_in_multi: bool = False  # the client was inside MULTI when it sent the command
    line: str | None = None     # the line as typed (None: nothing was sent), for the transcript
    printed: str = ""           # what the pane printed for it


class ServerRestarted(Message):
    """A fresh private server runs (F5, a lesson's reset, a restart after SHUTDOWN)."""


@dataclass
class ServerStopped(Message):
    """The private server is gone (a crash, or SHUTDOWN typed in a pane)."""

    reason: str
