"""The playground's own commands, told apart in a client's MONITOR stream.

The inspector, the observer and attribution read the server on connections of their
own; a learner who types MONITOR wants to see what the clients did, not those reads.
While some client monitors, every command a side connection sends is remembered by
its MONITOR spelling, and the matching MONITOR line (with the script lines that follow
one of our read-only scripts) is left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from playground.resp.cli_format import repr_bytes

_LIMIT = 10_000  # remembered commands at most: a monitor line that never came is forgotten


class OwnTraffic:
    """The playground's own commands (its side connections'), counted as they go, so a
    client in MONITOR is not shown them."""

    def __init__(self) -> None:
        self.active = False   # set while some client is in MONITOR
        self._counts: Counter[bytes] = Counter()  # a command as MONITOR shows it -> how many are due
        self._in_own_script = False

    def sent(self, commands: Iterable[Sequence[bytes]]) -> None:
        """Note the commands of ours about to be sent (while someone monitors)."""
        if not self.active:
            return
        if len(self._counts) > _LIMIT:
            self._counts.clear()
        for argv in commands:
            self._counts[b" ".join(repr_bytes(bytes(a)) for a in argv)] += 1

    def seen(self, line: bytes) -> bool:
        """True for a MONITOR line that shows one of our own commands."""
        head, sep, args = line.partition(b"] ")
        if not sep:
            return False
        if args.startswith(b'"PING" "playground-sync-'):  # Session.sync on a streaming connection
            return True
        if head.endswith(b" lua"):
            return self._in_own_script
        if self._counts.get(args, 0) > 0:
            self._counts[args] -= 1
            self._in_own_script = True
            return True
        self._in_own_script = False
        return False
