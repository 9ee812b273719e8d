"""What the server ran, in the order it ran it: the units of every client with their
server-order numbers, and the moments the playground itself changed the server (a
fresh start for a scenario part, a flush, a restart).

The executor appends every unit that ends (`ran`); the playground marks its own
resets, flushes and restarts (`mark`). The lanes view draws these rows, and the "why"
explanations (engine/why.py) look back through them: who wrote a WATCHed key, who
flushed the script cache. Bounded: only the last `size` rows are kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from playground.engine.events import Why
from playground.engine.units import Unit


@dataclass(eq=False)
class Row:
    """One unit that ended (`unit` set), or a mark of the playground's own (`mark` set)."""

    seq: int                      # a unit: its number; a mark: the last number before it
    client: str = ""
    unit: Unit | None = None
    mark: str = ""                # "reset" | "part" | "flush" | "restart" | "promote" | "connect"
    text: str = ""                # a mark's label (a part's name; the node promoted or connected to)
    setup: tuple[Sequence[bytes], ...] = ()  # a reset's setup commands (argv lists)
    whys: list[Why] = field(default_factory=list)  # the Why events that explain this unit's reply

    def after(self, seq: int) -> bool:
        """Did this happen after the reply numbered `seq`?"""
        return self.seq > seq if self.unit is not None else self.seq >= seq


class ServerOrder:
    """The rows, oldest first; `version` changes whenever a row is added or explained."""

    def __init__(self, size: int = 2000) -> None:
        self.rows: deque[Row] = deque(maxlen=size)
        self.version = 0
        self.last_seq = 0
        self.fresh_starts = 0   # resets and restarts so far: every client's WATCH and MULTI are gone

    def ran(self, seq: int, client: str, unit: Unit) -> Row:
        self.last_seq = seq
        row = Row(seq, client, unit)
        self.rows.append(row)
        self.version += 1
        return row

    def mark(self, mark: str, text: str = "", setup: Iterable[Sequence[bytes]] = (), client: str = "") -> None:
        self.rows.append(Row(self.last_seq, client, mark=mark, text=text, setup=tuple(setup)))
        self.version += 1
        if mark in ("reset", "restart"):
            self.fresh_starts += 1

    def explained(self, seq: int, why: Why) -> None:
        """Attach a Why to the unit whose reply it explains (the newest row with `seq`)."""
        for row in reversed(self.rows):
            if row.unit is not None and row.seq == seq:
                row.whys.append(why)
                self.version += 1
                return
            if row.seq < seq:
                return

    def between(self, start: int, end: int) -> list[Row]:
        """Rows after reply `start` and before reply `end`, oldest first."""
        out = []
        for row in reversed(self.rows):
            if row.unit is not None and row.seq >= end:
                continue
            if not row.after(start):
                break
            out.append(row)
        return out[::-1]

    def since(self, seq: int = 0) -> list[Row]:
        return [row for row in self.rows if row.after(seq)]
