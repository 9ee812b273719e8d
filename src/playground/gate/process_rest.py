"""Whether a program's process is at rest, asked of the kernel rather than judged by the
clock: every thread of it and of its descendants asleep (state S in /proc/PID/task/TID/stat)
in a system call that waits for something from outside (a socket read, poll, a lock, a
sleep), none running or in an uninterruptible wait. Such a program does nothing more until
it is sent something or a timeout of its own fires; and /proc/PID/task/TID/syscall tells
which wait and with what timeout (poll's milliseconds, epoll_wait's, a timespec's address
for ppoll, select, futex and nanosleep, read from /proc/PID/mem).

`rest(pid)` says so without waiting: None while it is busy, else a `Rest` with the
soonest of its own timeouts: NEVER (it waits only for what it is sent: `p.listen()`,
`BLPOP q 0` with no socket timeout), a number of seconds, or UNKNOWN (a wait whose timeout
cannot be read). `readable()` is False on a machine without /proc (or where the program's
/proc entries cannot be read): the caller then judges as before, by time.
"""

from __future__ import annotations

import os
import platform
import struct
import time
from dataclasses import dataclass

NEVER = float("inf")
UNKNOWN = -1.0

# system call number -> (kind, argument index of its timeout, argument index of its flags or -1):
# "ms": an int of milliseconds (negative: none); "timespec"/"timeval": a pointer (0: none);
# "sleep": a timespec pointer, relative or, with TIMER_ABSTIME in the flags, absolute; "futex":
# a timespec pointer, absolute for FUTEX_WAIT_BITSET; "none": a wait with no timeout of its own.
_X86_64 = {
    0: ("none", -1, -1), 45: ("none", -1, -1), 47: ("none", -1, -1), 43: ("none", -1, -1),
    288: ("none", -1, -1), 61: ("none", -1, -1), 247: ("none", -1, -1), 34: ("none", -1, -1),
    130: ("none", -1, -1), 7: ("ms", 2, -1), 232: ("ms", 3, -1), 281: ("ms", 3, -1),
    23: ("timeval", 4, -1), 270: ("timespec", 4, -1), 271: ("timespec", 2, -1), 441: ("timespec", 3, -1),
    35: ("sleep", 0, -1), 230: ("sleep", 2, 1), 202: ("futex", 3, 1), 128: ("timespec", 2, -1),
}
_AARCH64 = {
    63: ("none", -1, -1), 207: ("none", -1, -1), 212: ("none", -1, -1), 202: ("none", -1, -1),
    242: ("none", -1, -1), 260: ("none", -1, -1), 95: ("none", -1, -1), 133: ("none", -1, -1),
    22: ("ms", 3, -1), 72: ("timespec", 4, -1), 73: ("timespec", 2, -1), 441: ("timespec", 3, -1),
    101: ("sleep", 0, -1), 115: ("sleep", 2, 1), 98: ("futex", 3, 1), 137: ("timespec", 2, -1),
}
_WAITS = {"x86_64": _X86_64, "aarch64": _AARCH64}.get(platform.machine(), {})
_FUTEX_CMD, _FUTEX_WAIT_BITSET, _FUTEX_CLOCK_REALTIME, _TIMER_ABSTIME = 0x7F, 9, 256, 1


@dataclass(frozen=True)
class Rest:
    """A process at rest, and the soonest of its own timeouts (seconds from now; NEVER,
    UNKNOWN)."""

    timeout: float

    @property
    def own_timeout(self) -> bool:
        """A timeout of its own may end its wait (UNKNOWN: it may)."""
        return self.timeout != NEVER


def readable(pid: int) -> bool:
    """Whether the rest of process `pid` can be told here: a known machine, and its /proc
    wait entries readable by this process."""
    if not _WAITS:
        return False
    try:
        with open(f"/proc/{pid}/syscall", "rb") as f:
            f.read()
    except OSError:
        return False
    return True


def rest(pid: int) -> Rest | None:
    """Process `pid` and its descendants at rest (see the module), or None while any of
    their threads runs, or waits in a way that is not waiting for something from outside.
    A process gone meanwhile counts as at rest (its parent is told)."""
    soonest = NEVER
    for task in _tasks(pid):
        state = _state(task)
        if state in (None, b"Z", b"X"):
            continue
        if state != b"S":
            return None
        timeout = _wait_timeout(task)
        if timeout is None:
            return None
        if timeout == UNKNOWN or soonest == UNKNOWN:
            soonest = UNKNOWN
        else:
            soonest = min(soonest, timeout)
    return Rest(soonest)


def _tasks(pid: int) -> list[str]:
    """/proc/PID/task/TID for each thread of `pid` and of each of its descendants."""
    out, todo, seen = [], [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            path = f"/proc/{p}/task/{tid}"
            out.append(path)
            try:
                with open(f"{path}/children", "rb") as f:
                    todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return out


def _state(task: str) -> bytes | None:
    try:
        with open(f"{task}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return None


def _wait_timeout(task: str) -> float | None:
    """Seconds until the wait task `task` is in ends by its own timeout (NEVER: it has
    none; UNKNOWN: it has one that cannot be read), or None: not a known wait."""
    try:
        with open(f"{task}/syscall", "rb") as f:
            fields = f.read().split()
    except OSError:
        return UNKNOWN   # (gone meanwhile, or not ours to read: as it may)
    if not fields or not fields[0].lstrip(b"-").isdigit() or int(fields[0]) not in _WAITS or len(fields) < 7:
        return None
    kind, at, flags_at = _WAITS[int(fields[0])]
    args = [int(x, 16) for x in fields[1:7]]
    if kind == "none":
        return NEVER
    if kind == "ms":
        ms = struct.unpack("i", struct.pack("I", args[at] & 0xFFFFFFFF))[0]
        return NEVER if ms < 0 else ms / 1000
    if not args[at]:
        return NEVER
    absolute = (kind == "sleep" and flags_at >= 0 and args[flags_at] & _TIMER_ABSTIME) or (
        kind == "futex" and args[flags_at] & _FUTEX_CMD == _FUTEX_WAIT_BITSET)
    realtime = (kind == "sleep" and args[0] == 0) or (kind == "futex" and args[flags_at] & _FUTEX_CLOCK_REALTIME)
    seconds = _read_time(task, args[at], micro=kind == "timeval")
    if seconds is None:
        return UNKNOWN
    if absolute:
        seconds -= time.time() if realtime else time.monotonic()
    return max(0.0, seconds)


def _read_time(task: str, address: int, micro: bool) -> float | None:
    """The timespec (or timeval) at `address` in the task's memory, in seconds."""
    pid = task.split("/")[2]
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as f:
            f.seek(address)
            raw = f.read(16)
    except (OSError, OverflowError, ValueError):
        return None
    if len(raw) != 16:
        return None
    whole, part = struct.unpack("qq", raw)
    return whole + part / (1e6 if micro else 1e9)
