"""How long a CLIENT PAUSE typed into `repl` may still hold the clients' lines.

The server says nothing of a pause (Redis 7.0's INFO has no field for it) and shows a
line it holds exactly as one blocked on a key (CLIENT LIST flag b). So the repl keeps
its own clock: a pause typed here lasts from its OK for its milliseconds, and ends
earlier when CLIENT UNPAUSE is answered or a line it held has been let through. The
server lifts a pause in its cron (10 times a second), so until MARGIN after the pause's
time is up a blocked line may still be one it holds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from playground.engine.catalogue import SCRIPT_COMMANDS, may_block
from playground.resp.replies import Status

MARGIN = 0.2
"""Seconds after a pause's time is up during which it may still hold a line (two of the
server's cron ticks)."""


def pause_typed(argv) -> float | None:
    """Seconds of the CLIENT PAUSE on this line (0.0 for CLIENT UNPAUSE), None for any other line."""
    if len(argv) < 2 or bytes(argv[0]).lower() != b"client":
        return None
    sub = bytes(argv[1]).lower()
    if sub == b"unpause":
        return 0.0
    if sub != b"pause" or len(argv) < 3:
        return None
    try:
        return min(max(int(argv[2]), 0), 86_400_000) / 1000
    except ValueError:
        return None


class PauseClock:
    """The end of the last CLIENT PAUSE typed here, as far as the repl can know it."""

    def __init__(self) -> None:
        self.ends: float | None = None  # time.monotonic() when its time is up; None: no pause of ours

    def answered(self, argv, replies: Sequence[object], held: bool) -> None:
        """A line was answered: a CLIENT PAUSE starts the clock, CLIENT UNPAUSE stops it,
        and a plain line held on the server that is answered now shows the pause lifted.

        Args:
            argv: the line's arguments.
            replies: its replies (none if it was lost).
            held: the server had shown its client blocked while it waited.
        """
        if not replies:
            return
        seconds = pause_typed(argv)
        if seconds is not None:
            if isinstance(replies[-1], Status):
                self.ends = time.monotonic() + seconds if seconds else None
        elif held and bytes(argv[0]).lower() not in SCRIPT_COMMANDS and not may_block(argv):
            self.let_through()

    def let_through(self) -> None:
        """A line the pause held has been answered: the server has lifted it."""
        self.ends = None

    def holding(self, margin: float = MARGIN) -> bool:
        """May the pause still hold a line (its time, then `margin`)?"""
        return self.ends is not None and time.monotonic() < self.ends + margin

    def left(self, margin: float = MARGIN) -> float:
        """Seconds until `holding(margin)` is False (0.0 when it is)."""
        if self.ends is None:
            return 0.0
        return max(self.ends + margin - time.monotonic(), 0.0)
