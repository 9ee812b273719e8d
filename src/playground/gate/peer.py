"""Who is at the other end of a gate connection: on a unix socket the kernel tells the
peer's pid (SO_PEERCRED), and /proc tells that process's name, command line, working
directory and environment. A program the learner started by hand is named after itself
in the programs panel, and free play's "Could it have gone differently?" runs it again
as it was started (explore/free_play.py). Read as the connection is accepted: the
program still runs then (its first command waits for the gate). Anything the kernel
does not tell (a TCP peer, a process already gone, another user's) is None.
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass


RERUN = "REDIS_PLAYGROUND_RERUN"
"""In the environment of a program started by hand that an exploration runs again
(gate/programs.py): the exploration's own gate, the one it must use. A connection to any
other gate that carries it is refused (Origin.rerun): a program that ignores REDIS_URL
and names the playground's gate itself would run its commands on the learner's server
once per schedule."""


@dataclass(frozen=True)
class Origin:
    """How a local process was started: enough to start it again the same way."""

    pid: int
    argv: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...]

    @property
    def rerun(self) -> str | None:
        """The exploration's gate, when an exploration started this process again (RERUN)."""
        return dict(self.env).get(RERUN)


def peer_pid(writer) -> int | None:
    """The pid of the process at the other end of a unix-socket connection, or None."""
    sock = writer.get_extra_info("socket")
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return None
    pid = struct.unpack("3i", creds)[0]
    return pid if pid > 0 else None


def process_name(pid: int | None) -> str | None:
    """Its name (/proc/PID/comm), or None."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() or None
    except OSError:
        return None


def origin(pid: int | None) -> Origin | None:
    """Its command line, working directory and environment, or None when /proc does not
    tell them all (gone, a zombie, another user's)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
        cwd = os.readlink(f"/proc/{pid}/cwd")
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return None
    argv = tuple(os.fsdecode(a) for a in (words[:-1] if words and words[-1] == b"" else words))
    if not argv or not argv[0] or cwd.endswith(" (deleted)"):
        return None
    pairs = (os.fsdecode(e).partition("=") for e in env if b"=" in e)
    return Origin(pid, argv, cwd, tuple((k, v) for k, _, v in pairs))
