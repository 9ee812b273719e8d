"""One connection of a program at the gate (`GateClient`) and each command it sent (`Held`):
held, then released, then answered, always in the program's own order. gate/endpoint.py
accepts the connections and reads the server's replies."""

from __future__ import annotations

import asyncio
import functools
import select
import socket
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playground.gate.listener import Received
from playground.gate.peer import Origin
from playground.resp.cli_lines import format_argv

RECV = 1 << 16   # bytes read at once from a socket of the gate's (a program's, the server's)
_SHOWN_KEPT = 512   # bytes of a command's arguments up to which its line is kept for the next one like it


@functools.lru_cache(maxsize=1024)
def _shown(argv: tuple[bytes, ...]) -> str:
    """A command's line (format_argv), kept: a replay sends the same commands schedule
    after schedule."""
    return format_argv(list(argv))

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
    goes_with: "Held | None" = None  # handshake handed with this stepped command (Gate.hand): sent with it
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    @property
    def display(self) -> str:
        if sum(map(len, self.argv)) > _SHOWN_KEPT:
            return format_argv(self.argv)
        return _shown(tuple(self.argv))


class Upstream:
    """A gate client's own connection to the server: a plain non-blocking socket. What the
    gate sends is written at once; what the server sends is read as it comes, by the event
    loop (add_reader), or at once after a request that cannot block (`read_now`, in the
    caller's turn of the loop: no task, and no turn of the loop, per reply). `on_data(b"")`:
    the server closed it."""

    WRITE_TIMEOUT = 5.0   # seconds a write may wait for room in the socket's buffer

    def __init__(self, sock: socket.socket, on_data: Callable[[bytes], None]) -> None:
        self.sock = sock
        self.buf = bytearray()        # what the server sent that is no whole reply yet
        self.reading = False          # read_now is under way
        self.closed = False
        self.library: dict[bytes, bytes] = {}   # CLIENT SETINFO attribute -> the request that set it here
        # (answered OK; RESET keeps it: Gate.unsettled)
        self._on_data = on_data
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(sock.fileno(), self.readable)

    def readable(self) -> None:
        """Take what the server sent (nothing: it was taken already)."""
        if self.closed:
            return
        try:
            data = self.sock.recv(RECV)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        self._on_data(data)

    def rebind(self, on_data: Callable[[bytes], None]) -> None:
        """What the server sends goes to `on_data` from now on (another gate client's, or
        gate/upstream_pool.py's while it is kept)."""
        self._on_data = on_data

    def read_now(self, waiting: Callable[[], bool], within: float) -> None:
        """Read here while `waiting()`, as long as each reply's bytes come within `within`
        seconds (a late one is left to the event loop)."""
        if self.reading:
            return   # (a reply read here led to this request: that read goes on)
        self.reading = True
        try:
            while waiting() and not self.closed:
                if not select.select([self.sock], [], [], within)[0]:
                    return
                self.readable()
        finally:
            self.reading = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view and not self.closed:
                try:
                    view = view[self.sock.send(view):]
                except BlockingIOError:
                    if not select.select([], [self.sock], [], self.WRITE_TIMEOUT)[1]:
                        raise OSError("the server takes no more") from None
        except OSError:
            self._on_data(b"")

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._loop.remove_reader(self.sock.fileno())
            self.sock.close()

    def get_extra_info(self, name: str, default=None):
        return self.sock if name == "socket" and not self.closed else default


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
        self.to_server: Upstream | None = None  # to the server
        self.received: Received | None = None   # what the program sent, read from its socket (gate/listener.py)
        self.taken = 0                          # bytes of it the gate took (Gate.quiet: none on its way)
        self.last_answered: Held | None = None  # its last stepped command answered (Gate._numbered)

    @property
    def next(self) -> Held | None:
        """The command held at the gate, shown as "next: …" (not a handshake that goes with it)."""
        for held in self.queue:
            if held.goes_with is None:
                return held
        return None

    def pump(self) -> None:
        """Send to the server what may go: released commands, the handshake, everything
        while free-running; always in the program's own order."""
        out: list[bytes] = []
        while self.queue and not self.closed:
            head = self.queue[0]
            if not (head.released or head.unstepped or self.gate.free_running):
                break
            if head.goes_with is not None and not (head.goes_with.released or self.gate.free_running):
                break   # (a replay's handshake: in one write with its stepped command, once that is released)
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
            self.gate.answer_now(self)
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
        """The connection ended: what it still held or had in flight fails, its sockets
        close, and (the first time) the gate's `ended` listeners are told."""
        ended, self.closed = not self.closed, True
        upstream, self.to_server = self.to_server, None
        if upstream is not None:   # (kept for the next schedule's client of this name, or closed)
            self.gate.let_go(self, upstream, reusable=not self.inflight and not self.pushed and not upstream.buf)
        self.gate.dropped += [h for h in self.queue if not h.released and not h.unstepped and h.argv]
        for held in [*self.inflight, *self.queue]:
            if not held.done.done():
                held.done.set_exception(ConnectionError(f"{self.name}: connection closed"))
                held.done.exception()  # (retrieved: a waiter may never come)
        self.inflight.clear()
        self.queue.clear()
        if self.to_program is not None:
            self.to_program.close()
        if ended:
            for listener in list(self.gate.ended):
                listener(self)
        self.gate.changed()
