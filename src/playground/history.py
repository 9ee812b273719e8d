"""Per-client command history, kept across runs in the user's state dir.

A line is kept only if it parses (redis-cli's splitting) and carries no secret (redis-cli's
isSensitiveCommand, in `playground.resp.cli_secrets`). The files are 0600 in a 0700
directory; lines with a secret found in an older file are dropped when it is read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from playground.i18n import tr
from playground.resp.cli_lines import RepeatError, SplitError, parse_line
from playground.resp.cli_secrets import is_sensitive
from playground.visible import LINES, visible

MAX_LINES = 1000


def state_dir() -> Path:
    """$REDIS_PLAYGROUND_STATE_DIR, else $XDG_STATE_HOME/redis-playground, else ~/.local/state/..."""
    if os.environ.get("REDIS_PLAYGROUND_STATE_DIR"):
        return Path(os.environ["REDIS_PLAYGROUND_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "redis-playground"


def exports_dir() -> Path:
    """Where transcripts, screenshots and timelines go: $REDIS_PLAYGROUND_EXPORT_DIR, else the
    current directory (where a teacher looks for them); always an absolute path, to say on screen."""
    return Path(os.environ.get("REDIS_PLAYGROUND_EXPORT_DIR") or os.getcwd()).absolute()


def private_dir(path: Path) -> Path:
    """`path` as a directory only its owner can enter (created so, or tightened)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def open_private(path: Path, mode: str = "a"):
    """Open `path` for writing as a 0600 file (an existing file is tightened first; a
    device such as /dev/null is written as it is)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: Path, text: str) -> Path:
    """Write `text` to `path` as a 0600 file (its directory made if missing): every
    export goes through here, its control characters written out but newline, tab and a
    CSV's CRLF line ends (playground/visible.py: a transcript quoting a reply's OSC 52 would set the
    clipboard of whoever `cat`s the file). Written to a new file of its own in the same directory
    (O_EXCL: never one planted there), then renamed over `path`: a symlink planted at
    `path` is replaced, never followed. Raises OSError (a full disk, a read-only directory)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")  # 0600, O_EXCL
    except OSError as exc:
        exc.filename = exc.filename or str(path)
        raise
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\r\n".join(visible(part, LINES) for part in text.split("\r\n")))  # (a CSV's CRLF kept)
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):  # (named by the export's own path, not the temp file's)
            exc.filename, exc.filename2 = str(path), None
        raise
    return path


def create_private(directory: Path, stem: str, suffix: str, attempts: int = 1000):
    """A new 0600 file in `directory` (made 0700 if missing) named `stem` + `suffix`, or
    `stem-2` + `suffix`, ... when that name is taken (O_EXCL: an existing file or a
    planted symlink is never opened): (its path, the file open for writing)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    for n in range(1, attempts + 1):
        path = directory / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        return path, os.fdopen(fd, "w", encoding="utf-8")
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(directory / f"{stem}{suffix}"))


def write_failure(path: Path | str, exc: OSError) -> str:
    """One line for a write that failed: the path and the OS's reason.

    Args:
        path: the file written (named when the error names none).
        exc: the error the write raised.
    """
    return tr("Could not write {path}: {reason}", path=exc.filename or path,
              reason=exc.strerror or exc.__class__.__name__)


def keeps(line: str) -> bool:
    """Would a history file keep this line? Not if it does not parse or carries a secret."""
    try:
        cmd = parse_line(line)
    except (SplitError, RepeatError):
        return False
    return cmd is not None and not is_sensitive(cmd.argv)


class History:
    """Lines typed into one pane, oldest first; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []
        self.failure: str | None = None  # why the file could not be written (said once)
        if path is not None:
            try:
                stored = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                stored = []
            self.lines = [line for line in stored if keeps(line)][-MAX_LINES:]
            if stored:
                self._tighten(path, rewrite=len(self.lines) != len(stored))

    @classmethod
    def for_client(cls, name: str) -> "History":
        return cls(state_dir() / f"history-{name}")

    def add(self, line: str, argv: list[bytes] | None) -> None:
        """Keep a submitted line; `argv` None means it did not parse, and is not kept."""
        if not line.strip() or argv is None or is_sensitive(argv):
            return
        if self.lines and self.lines[-1] == line:
            return
        self.lines.append(line)
        del self.lines[:-MAX_LINES]
        if self.path is not None:
            try:
                private_dir(self.path.parent)
                with open_private(self.path) as f:
                    f.write(line.replace("\n", " ") + "\n")
            except OSError as exc:  # read-only home, full disk: keep history for this run only
                self.failure, self.path = write_failure(self.path, exc), None

    def _tighten(self, path: Path, rewrite: bool) -> None:
        """Make the existing file `path` 0600 in a 0700 directory; rewrite it without
        dropped lines."""
        try:
            private_dir(path.parent)
            if rewrite:
                with open_private(path, "w") as f:
                    f.write("".join(line + "\n" for line in self.lines))
            else:
                path.chmod(0o600)
        except OSError as exc:  # said with the first line typed
            self.failure, self.path = write_failure(path, exc), None

    def search(self, text: str, before: int | None = None) -> int | None:
        """Index of the newest line containing `text`, older than `before`."""
        end = len(self.lines) if before is None else before
        for i in range(end - 1, -1, -1):
            if text in self.lines[i]:
                return i
        return None
