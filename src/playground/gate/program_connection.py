"""One connection of a program at the gate (`GateClient`) and each command it sent (`Held`):
held, then released, then answered, always in the program's own order. gate/endpoint.py
accepts the connections and reads the server's replies."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playground.gate.peer import Origin

if TYPE_CHECKING:
    from playground.gate.endpoint import Gate


@dataclass(eq=False)
class Held:
    """One command of a program: held, then released, then answered."""

    client: "GateClient"
    argv: list[bytes]
    raw: bytes                       # exactly what the program sent
    arrived: int                     # the gate's arrival counter (release_next takes the oldest)
    unstepped: bool = False          # handshake: released at once
    released: bool = False
    reply: bytes | None = None       # the reply, exactly as the server sent it
    seq: int | None = None           # its server-order number (when the reply came; the handshake: none)
    frames: int = 0                  # reply frames so far (SUBSCRIBE a b: one a channel)
    local: bytes | None = None       # the gate answers it itself (the TCP endpoint's AUTH)
    since: float = field(default_factory=lambda: asyncio.get_running_loop().time())  # when it arrived
    record: "asyncio.Future | None" = None  # its record as a line (engine/program_lines.py), once answered
    silent: bool = False             # the server sends no reply to it (CLIENT REPLY OFF / SKIP)
    pushes: int = 0                  # messages its program had been sent when it arrived (what it saw)
    before: tuple[bytes, ...] | None = ()  # the handshake's requests sent on its connection since the
    # connection's stepped command before it (explore/program_tree.py); None: too many to keep
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    @property
    def display(self) -> str:
        from playground.resp.cli_lines import format_argv
        return format_argv(self.argv)


class GateClient:
    """One connection of one program, and its own connection to the server."""

    def __init__(self, gate: "Gate", label: str, number: int, password: bytes | None = None) -> None:
        self.gate = gate
        self.label = label                 # the program (a lesson's client name, or the program's name)
        self.name = f"{label}#{number}"    # the client: program and connection
        self.number = number               # its program's connections, in the order they were opened
        self.before: list[bytes] = []      # the handshake's requests since its last stepped command
        self.pushed = False                # the server sent it a frame no command asked for (a message)
        self.pushes = 0                    # how many such frames
        self.queue: deque[Held] = deque()  # received, not yet sent to the server
        self.inflight: deque[Held] = deque()  # sent, reply not yet back
        self.closed = False
        self.stepped = False               # has a command of this connection been a step yet?
        self.password = password           # the TCP endpoint's (gate/auth.py); None on a unix socket
        self.authed = password is None
        self.server_id = 0                 # its server connection's CLIENT ID
        self.reply_mode = b"on"            # CLIENT REPLY: on, off, or skip (the next command's)
        self.origin: Origin | None = None  # a program started by hand: how (gate/peer.py), if known
        self.to_program: asyncio.StreamWriter | None = None   # to the program
        self.to_server: asyncio.StreamWriter | None = None  # to the server

    @property
    def next(self) -> Held | None:
        """The command held at the gate, shown as "next: …"."""
        return self.queue[0] if self.queue else None

    def pump(self) -> None:
        """Send to the server what may go: released commands, the handshake, everything
        while free-running; always in the program's own order."""
        out: list[bytes] = []
        while self.queue and not self.closed:
            head = self.queue[0]
            if not (head.released or head.unstepped or self.gate.free_running):
                break
            if head.local is not None and (self.inflight or out):
                break  # its reply goes after those of the commands before it
            self.queue.popleft()
            head.released = True
            if head.local is not None:
                head.reply = head.local
                if self.to_program is not None:
                    self.to_program.write(head.local)
                head.done.set_result(head.local)
            elif head.argv:
                head.silent = not self.answered(head.argv)
                self.inflight.append(head)
                out.append(head.raw)
            else:  # an empty inline line: the server ignores it, no reply
                head.done.set_result(b"")
        if out and self.to_server is not None:
            self.to_server.write(b"".join(out))
        self.gate.settle_silent(self)
        self.gate.changed()

    def answered(self, argv: list[bytes]) -> bool:
        """Does the server answer this command (sent next, in order)? Not CLIENT REPLY OFF
        or SKIP, nor what they silence; CLIENT REPLY ON always is (redis-cli waits in vain
        for the others' replies, and so must no command here take their place)."""
        mode = argv[2].lower() if (len(argv) == 3 and argv[0].lower() == b"client"
                                   and argv[1].lower() == b"reply") else None
        if mode == b"on":
            self.reply_mode = b"on"
            return True
        if self.reply_mode == b"off":
            return False
        if self.reply_mode == b"skip":
            self.reply_mode = b"on"
            return False
        if mode in (b"off", b"skip"):
            self.reply_mode = mode
            return False
        return True

    def fail_pending(self) -> None:
        self.closed = True
        self.gate.dropped += [h for h in self.queue if not h.released and not h.unstepped and h.argv]
        for held in [*self.inflight, *self.queue]:
            if not held.done.done():
                held.done.set_exception(ConnectionError(f"{self.name}: connection closed"))
                held.done.exception()  # (retrieved: a waiter may never come)
        self.inflight.clear()
        self.queue.clear()
        for w in (self.to_server, self.to_program):
            if w is not None:
                w.close()
        self.gate.changed()
