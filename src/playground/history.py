"""Per-client command history, kept across runs in the user's state dir.

Commands that carry passwords are never written (redis-cli's isSensitiveCommand rules).
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_LINES = 1000


def state_dir() -> Path:
    """$REDIS_PLAYGROUND_STATE_DIR, else $XDG_STATE_HOME/redis-playground, else ~/.local/state/..."""
    if os.environ.get("REDIS_PLAYGROUND_STATE_DIR"):
        return Path(os.environ["REDIS_PLAYGROUND_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "redis-playground"


def is_sensitive(argv: list[bytes]) -> bool:
    """True for AUTH, ACL SETUSER, CONFIG SET *pass*, HELLO ... AUTH, MIGRATE ... AUTH."""
    if not argv:
        return False
    a = [x.lower() for x in argv]
    argc = len(a)
    if a[0] == b"auth":
        return True
    if argc > 1 and a[0] == b"acl" and a[1] == b"setuser":
        return True
    if argc > 2 and a[0] == b"config" and a[1] == b"set" and a[2] in (b"masterauth", b"masteruser", b"requirepass"):
        return True
    if argc > 4 and a[0] == b"hello":
        j = 2
        while j < argc:
            more = argc - 1 - j
            if a[j] == b"auth" and more >= 2:
                return True
            if a[j] == b"setname" and more:
                j += 2
                continue
            return False
    if argc > 7 and a[0] == b"migrate":
        for j in range(6, argc):
            more = argc - 1 - j
            if (a[j] == b"auth" and more) or (a[j] == b"auth2" and more >= 2):
                return True
            if a[j] == b"keys" and more:
                return False
    return False


class History:
    """Lines typed into one pane, oldest first; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []
        if path is not None:
            try:
                self.lines = path.read_text(encoding="utf-8").splitlines()[-MAX_LINES:]
            except (OSError, UnicodeDecodeError):
                self.lines = []

    @classmethod
    def for_client(cls, name: str) -> "History":
        return cls(state_dir() / f"history-{name}")

    def add(self, line: str, argv: list[bytes] | None) -> None:
        if not line.strip() or (argv is not None and is_sensitive(argv)):
            return
        if self.lines and self.lines[-1] == line:
            return
        self.lines.append(line)
        del self.lines[:-MAX_LINES]
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(line.replace("\n", " ") + "\n")
            except OSError:
                self.path = None  # read-only home: keep history for this run only

    def search(self, text: str, before: int | None = None) -> int | None:
        """Index of the newest line containing `text`, older than `before`."""
        end = len(self.lines) if before is None else before
        for i in range(end - 1, -1, -1):
            if text in self.lines[i]:
                return i
        return None
