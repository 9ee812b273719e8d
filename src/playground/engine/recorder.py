"""The one recorder of a reply: what every line's reply goes through once it is in, a
typed line's (engine/line_run.py), a pipelined one's (engine/pipeline.py) and a program's
command answered at the gate (engine/program_lines.py) alike.

The sequence, in this order:
1. the server order: the unit the reply closed (engine/units.py: a command, a MULTI …
   EXEC, a script) gets the reply's number and its row in `pg.order` (the lanes);
2. what it changed (engine/changes.py: the keyspace feed, the WATCHes it made dirty);
3. why a surprising reply is what it is (engine/why.py: EXEC → nil, EXECABORT, BUSY …);
4. which keys it wrote (engine/attribution.py): the inspector's "changed by".

Each step's events (UnitEnded, Why, Wrote) go to `emit`, when someone listens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from playground.engine import events as ev
from playground.engine.changes import record as record_changes
from playground.engine.session import ConnectionLost
from playground.engine.units import Unit, UnitTracker

if TYPE_CHECKING:  # (repl keeps no why-notes: it must not import engine/why.py)
    from playground.engine.playground import Playground
    from playground.engine.why import WhyTracker


class Recorder:
    """Records replies for the clients of one playground. `why`: a WhyTracker
    (engine/why.py), or None (no why-notes: `repl`); `attribute`: work out which keys
    each unit wrote; `emit`: where the events go. `programs`: the units of each
    connection at the gate (a program's: engine/program_lines.py), by its name, as a session follows
    a typed client's: what it WATCHes and which of those keys changed since (step 2 marks
    them as it does a session's)."""

    def __init__(self, pg: Playground, emit: Callable[[ev.Event], None], why: WhyTracker | None = None,
                 attribute: bool = False) -> None:
        self.pg = pg
        self.emit = emit
        self.why = why
        self.attribute = attribute
        self.records = attribute or why is not None  # what each unit changed, as the server says
        self._attributions: asyncio.Future[None] | None = None  # the last attribution queued
        self.programs: dict[str, UnitTracker] = {}

    def ran(self, client: str, unit: Unit, seq: int, result: ev.LineResult, listening: bool = True) -> None:
        """Step 1: `unit` (closed by the reply numbered `seq`) in the server order."""
        unit.seq = seq
        self.pg.order.ran(seq, client, unit)
        result.units.append(unit)
        if listening:
            self.emit(ev.UnitEnded(client, unit))

    @property
    def waits(self) -> bool:
        """A step of `record` may wait: it reads what a unit changed, explains, attributes
        (else `record_now` does it all: an exploration's recorder)."""
        return self.records or self.why is not None or self.attribute

    def record_now(self, client: str, unit: Unit | None, seq: int, result: ev.LineResult,
                   listening: bool = True) -> None:
        """`record`, at once, for a recorder that never `waits`."""
        if unit is not None:
            self.ran(client, unit, seq, result, listening)

    async def settle(self, client: str, argv: Sequence[bytes], reply: object, seq: int, unit: Unit | None,
                     role: str | None, result: ev.LineResult, listening: bool = True) -> None:
        """Steps 2 and 3: what the unit changed, and the reply's why (into `result.whys`)."""
        if self.records and unit is not None:
            await record_changes(self.pg, unit, self.programs.values())
        if self.why is None:
            return
        try:
            whys = await self.why.explain(client, argv, reply, seq, unit, role)
        except (OSError, ConnectionLost):
            return  # the server is busy or gone: no explanation, the reply stands
        for why in whys:
            result.whys.append(why)
            if listening:
                self.emit(why)

    async def record(self, client: str, argv: Sequence[bytes], reply: object, seq: int, unit: Unit | None,
                     role: str | None, result: ev.LineResult, listening: bool = True) -> None:
        """The whole sequence for one reply whose unit is known (a program's command),
        its writes attributed before it returns."""
        if unit is not None:
            self.ran(client, unit, seq, result, listening)
        await self.settle(client, argv, reply, seq, unit, role, result, listening)
        if self.attribute and unit is not None:
            await self.attribute_unit(unit, listening)

    # -- step 4: "changed by" ---------------------------------------------------------

    def attribute_later(self, result: ev.LineResult) -> None:
        """Attribution costs reader round trips (COMMAND INFO, GETKEYS): it starts when
        the line is done, in command order, so neither the reply nor the line's end
        waits for it."""
        if result.units:
            self._attributions = asyncio.ensure_future(self._attribute_after(self._attributions, result.units))

    async def _attribute_after(self, before: asyncio.Future[None] | None, units: list[Unit]) -> None:
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)
        for unit in units:
            await self.attribute_unit(unit)

    def pending(self) -> asyncio.Future[None] | None:
        """The last attribution queued, if it still runs."""
        return self._attributions if self._attributions is not None and not self._attributions.done() else None

    async def attributed(self) -> None:
        """Wait until every unit that ended so far has been attributed."""
        while self._attributions is not None and not self._attributions.done():
            await asyncio.gather(self._attributions, return_exceptions=True)

    async def attribute_unit(self, unit: Unit, listening: bool = True) -> None:
        """Which keys `unit` wrote: a `Wrote` event (`pg.writes` remembers the writer)."""
        if self.pg.writes is None:  # (a playground that follows no writes: `repl`)
            return
        try:
            keys = await self.pg.writes.note_unit(unit)
        except (OSError, ConnectionLost):
            return  # the server is busy or gone: this write's author stays unknown
        if keys and listening:
            self.emit(ev.Wrote(unit.client, keys, unit))
