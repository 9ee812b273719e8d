"""serve's own directory: every tab's session directory (its panes' history, recordings,
exports) goes in one directory of serve's, TMPDIR/redis-playground-serve-XXXXXXXX (0700),
with a file naming the serve process that made it (its pid and start time).

serve removes it when it ends, however it ends that lets it (Ctrl+C, SIGTERM, its output
gone: cli/web_server.py). One that a serve killed outright (SIGKILL, the machine's OOM
killer) left behind is swept by the next serve that starts, which says so: a directory of
this user's whose serve no longer runs (its pid gone, or taken by a later process)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from playground.server.children import proc_stat

PREFIX = "redis-playground-serve-"
OWNER = "serve"  # the file in it: "<pid> <start time in clock ticks since boot>"


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), None if there is no such process."""
    fields = proc_stat(pid)
    return fields[19].decode() if fields is not None and len(fields) > 19 else None


class ServeHome:
    """This serve's directory for its sessions' own."""

    def __init__(self, parent: Path | None = None) -> None:
        """Args:
            parent: where it is made (default: the temp directory, TMPDIR).
        """
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
        pid = os.getpid()
        (self.path / OWNER).write_text(f"{pid} {_started(pid) or ''}\n")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _left_behind(path: Path) -> bool:
    """A directory of this user's made by a serve that no longer runs."""
    try:
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return False
        pid_text, _, started = (path / OWNER).read_text().strip().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return False  # (no owner file yet: a serve starting now; not ours to judge)
    if pid == os.getpid():
        return False
    running = _started(pid)
    return running is None or (bool(started) and running != started)  # gone, or its pid taken since


def sweep(parent: Path | None = None) -> tuple[int, int]:
    """Remove what serves killed outright left behind; returns how many serves' directories
    were removed, and how many session directories were in them.

    Args:
        parent: where to look (default: the temp directory, TMPDIR).
    """
    where = Path(parent or tempfile.gettempdir())
    serves = sessions = 0
    try:
        found = [entry for entry in where.iterdir() if entry.name.startswith(PREFIX)]
    except OSError:
        return 0, 0
    for path in found:
        if _left_behind(path):
            try:
                sessions += sum(1 for entry in path.iterdir() if entry.is_dir())
            except OSError:
                pass
            shutil.rmtree(path, ignore_errors=True)
            serves += 1
    return serves, sessions
