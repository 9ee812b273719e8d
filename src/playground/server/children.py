"""The app's child processes and their groups: started tied to the app, stopped as a group.

A server (or a learner's program) is a direct child in its own process group, killed by
the kernel if the app dies (PR_SET_PDEATHSIG: `die_with_parent`) and by a watchdog shell
that outlives nothing (`start_watchdog`); `stop_group` ends the whole group, SIGTERM then
SIGKILL, and returns only when every process of it is gone. What is running is read from
/proc (`proc_stat`): exited children wait as zombies for init, and signals still reach them.

A learner's program carries a mark in its environment (`PROGRAM_MARK`, one value per
program), and so does everything it starts: a child it forks, one it runs in a session of
its own (`setsid`, a double fork), one it leaves running when it exits. `end_marked` finds
them all in /proc by that mark, wherever they were re-parented, and ends them.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import time


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None when
    there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()
    except OSError:
        return None


KILL_WAIT = 2.0  # seconds a SIGKILLed process group may take to be gone


def stop_group(proc: subprocess.Popen, grace: float) -> None:
    """SIGTERM the process group `proc` leads (started with start_new_session), wait up to
    `grace` seconds for all of it to exit, then SIGKILL what is left. Reaps `proc`."""
    pgid = proc.pid
    signal_group(pgid, signal.SIGTERM if grace > 0 else signal.SIGKILL)
    deadline = time.monotonic() + grace
    delay = 0.002
    while True:
        if proc.returncode is None:
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                pass
        else:
            time.sleep(delay)  # the leader is gone, a child of a wrapper script is still stopping
        if proc.returncode is not None and not group_alive(pgid):
            return
        if time.monotonic() >= deadline:
            break
        delay = min(delay * 2, 0.05)
    signal_group(pgid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + KILL_WAIT  # SIGKILL is not instant on a busy machine:
    while group_alive(pgid) and time.monotonic() < deadline:  # the whole group, not just
        time.sleep(0.005)                                     # the leader, is gone on return


def kill_escaped(pid_text: str | None, workdir: str | None) -> None:
    """SIGKILL the server process the server itself reported (INFO's process_id) if it is
    still running in `workdir` after its group was stopped: a `--server` wrapper that ran it
    under `setsid` put it in a group of its own, beyond stop_group. Its working directory
    (our private temp dir) proves the pid was not reused by someone else's process."""
    try:
        pid = int(pid_text or 0)
        if pid <= 1 or not workdir or os.readlink(f"/proc/{pid}/cwd") != os.path.realpath(workdir):
            return
        os.kill(pid, signal.SIGKILL)
    except (ValueError, OSError):
        return
    deadline = time.monotonic() + KILL_WAIT
    while time.monotonic() < deadline:  # gone (or a zombie for init to reap)
        fields = proc_stat(pid)
        if fields is None or fields[0] in (b"Z", b"X"):
            return
        time.sleep(0.005)


def group_alive(pgid: int) -> bool:
    """Is any process of group `pgid` still running? (From /proc: exited children of a
    wrapper wait as zombies for init to reap them, and signals still reach those.)"""
    if not signal_group(pgid, 0):  # no process at all, not even a zombie: no need to read /proc
        return False               # (every stop, and `--version` at every start, ends here)
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return signal_group(pgid, 0)
    for pid in pids:
        fields = proc_stat(int(pid))
        if fields is not None and len(fields) > 2 and fields[2] == b"%d" % pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # the id was reused by someone else's group: ours is gone
        return False
    return True


PROGRAM_MARK = "PLAYGROUND_PROGRAM"  # in a program's environment: whose process it is


def marked(mark: str, session: int | None = None) -> list[int]:
    """The processes (not zombies) whose environment, as they were started, says
    PROGRAM_MARK=`mark`: a program's and whatever it started (forked, detached, exec'd).
    With `session` (the program's: it leads one), also a process of that session whose
    environment cannot be read now: one between fork and exec (its new environment not
    there yet)."""
    needle = b"\0" + f"{PROGRAM_MARK}={mark}".encode() + b"\0"
    me, found = os.getpid(), []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone, or not ours
            environ = b""
        if environ and needle not in b"\0" + environ:
            continue
        fields = proc_stat(pid)
        if fields is None or fields[0] in (b"Z", b"X"):
            continue
        if environ or (session is not None and len(fields) > 3 and fields[3] == b"%d" % session):
            found.append(pid)
    return found


def end_marked(mark: str, session: int | None = None) -> None:
    """SIGKILL every process marked `mark` (`marked`), again until none is left (one may
    fork while the others go), and return when they are gone (or zombies for their new
    parent to reap), within KILL_WAIT seconds."""
    deadline = time.monotonic() + KILL_WAIT
    killed: set[int] = set()
    while pids := set(marked(mark, session)) | {pid for pid in killed if _dying(pid)}:
        for pid in pids - killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        killed |= pids
        if time.monotonic() >= deadline:
            return
        time.sleep(0.002)


def _dying(pid: int) -> bool:
    """A process killed here is not gone yet (nor a zombie): between letting go of its
    memory and its end, its environment reads empty, so `marked` no longer finds it."""
    fields = proc_stat(pid)
    return fields is not None and fields[0] not in (b"Z", b"X")


def die_with_parent(parent_pid: int, address_space: int | None = None):
    """preexec_fn: SIGKILL the server when the process that started it dies (Linux).
    (Only the direct child: a wrapper script's own children do not inherit it.)
    `address_space`: bytes of memory the child may map at most (RLIMIT_AS; inherited)."""
    def setup() -> None:
        if address_space is not None:
            try:
                resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
            except (OSError, ValueError):
                pass
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent_pid:
            os._exit(1)
    return setup


# The watchdog: a shell in a session of its own that reads a pipe only this process
# holds open. When this process ends in any way (even SIGKILL) the pipe closes, `read`
# returns, and the server's whole process group goes, with whatever a `--server` wrapper
# started (PR_SET_PDEATHSIG reaches only the direct child). A normal stop kills the
# watchdog first, then the group. (It can't join the server's group: that group is in
# another session.)
_WATCHDOG = 'read _ignored; kill -9 -"$1" 2>/dev/null'  # dash's kill has no --


def start_watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    """The watchdog (above) of process group `pgid`; None when it cannot start.

    Args:
        pgid: the server's process group.
    """
    try:
        return subprocess.Popen(["/bin/sh", "-c", _WATCHDOG, "playground-watchdog", str(pgid)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True)
    except OSError:
        return None


def stop_watchdog(watchdog: subprocess.Popen[bytes] | None) -> None:
    """Stop the watchdog first (a normal stop), so that it kills nothing.

    Args:
        watchdog: what start_watchdog gave.
    """
    if watchdog is not None:
        watchdog.kill()
        watchdog.wait()
        if watchdog.stdin is not None:
            watchdog.stdin.close()


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (someone else's too).

    Args:
        pid: the process id.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
