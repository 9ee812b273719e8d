"""Server connections kept between the explorer's schedules: each schedule's gate gives every
program connection a server connection of its own (gate/endpoint.py), and connecting one
(a socket, AUTH, CLIENT SETNAME, CLIENT ID: a round trip) is a large part of what a replayed
schedule costs. When a connection ends with nothing of it on its way (no reply due, no
message pushed, nothing unread), its server connection is kept for the next gate client of
the same name instead of being closed: RESET (no MULTI, WATCH, subscription, tracking or
CLIENT REPLY mode left; RESP2; database 0; logged out), then AUTH and CLIENT SETNAME again,
sent at once and read as they come. It is taken only once those replies came, each the one
expected; anything else (an error, a frame no command asked for, the server closing it)
and it is closed instead. Its CLIENT ID stays the connection's own.

As the sessions' fresh start (engine/fresh_start.py), so a kept connection is as a new one
is to every command a program may send: what RESET does not set back (the connection's
age, its counters in CLIENT LIST, its CLIENT SETINFO library name, which the program's
handshake sends again) is what the catalogue counts as nondeterministic or no step.
"""

from __future__ import annotations

import socket

from playground.engine.settled_line import QUICK_LATE
from playground.gate.frames import FrameError, reply_end
from playground.gate.program_connection import Upstream
from playground.resp.connection import pack_pipeline

KEPT_PER_NAME = 2   # server connections kept for one gate client's name (A#1): more are closed


class _Kept:
    """One kept server connection, and the replies of its reset read so far."""

    def __init__(self, upstream: Upstream, server_id: int, expected: list[bytes]) -> None:
        self.upstream = upstream
        self.server_id = server_id
        self.expected = expected   # the replies still to come, in order
        self.buf = bytearray()
        self.failed = False

    @property
    def ready(self) -> bool:
        return not self.expected and not self.failed and not self.buf

    def waiting(self) -> bool:
        """Its reset's replies still to come (and none failed so far)."""
        return not self.ready and not self.failed

    def feed(self, data: bytes) -> None:
        """What the server sent it while it is kept: its reset's replies, else it fails."""
        if not data:
            self.failed = True
            return
        self.buf += data
        try:
            while (end := reply_end(self.buf)) is not None:
                frame = bytes(self.buf[:end])
                del self.buf[:end]
                if not self.expected or frame != self.expected[0]:
                    self.failed = True
                    return
                self.expected.pop(0)
        except FrameError:
            self.failed = True


def _open(upstream: Upstream) -> bool:
    """Still open at the server's end, with nothing unread (asked of the socket: the event
    loop may not have read the server's close yet)."""
    if upstream.closed:
        return False
    try:
        upstream.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        return True
    except OSError:
        return False
    return False   # (its end, or a frame nobody asked for)


class UpstreamPool:
    """The kept server connections of one playground, by gate client name."""

    def __init__(self) -> None:
        self._kept: dict[str, list[_Kept]] = {}

    def put(self, name: str, upstream: Upstream, server_id: int, hello: list[list[bytes]]) -> None:
        """Keep `upstream` (gate client `name`'s, whose CLIENT ID is `server_id`) for the next
        client of that name: reset now, `hello` (AUTH, CLIENT SETNAME: each answered +OK)
        sent again after the reset."""
        kept = self._kept.setdefault(name, [])
        kept[:] = [k for k in kept if not k.failed]
        if len(kept) >= KEPT_PER_NAME or upstream.closed:
            upstream.close()
            return
        entry = _Kept(upstream, server_id, [b"+RESET\r\n"] + [b"+OK\r\n"] * len(hello))
        upstream.rebind(entry.feed)
        upstream.write(pack_pipeline([[b"RESET"], *hello]))
        if entry.failed or upstream.closed:
            upstream.close()
            return
        kept.append(entry)

    def take(self, name: str) -> tuple[Upstream, int] | None:
        """A kept server connection for gate client `name`, reset and ready, with its
        CLIENT ID (its reset's replies read here when they come within QUICK_LATE); None:
        connect a new one. A kept one whose reset failed or did not answer is closed."""
        kept = self._kept.get(name)
        while kept:
            entry = kept.pop(0)
            if not entry.ready and not entry.failed:
                entry.upstream.read_now(entry.waiting, QUICK_LATE)
            if entry.ready and _open(entry.upstream):
                return entry.upstream, entry.server_id
            entry.upstream.close()
        return None

    def close(self) -> None:
        for kept in self._kept.values():
            for entry in kept:
                entry.upstream.close()
        self._kept.clear()
