"""Which client last wrote each key: the inspector's "changed by" column.

Diffing snapshots cannot say who changed a key when both clients are busy. On the
private server the server itself says what each unit changed (its key events:
engine/changes.py, `Unit.changes`): a read-only script wrote nothing, a script that
failed half-way wrote what it wrote, a TTL change is a change. Where it cannot say (a
--url server, a topology, pipelined `repl` lines), the writers are worked out from the
commands' names: the server says whether a command writes (COMMAND INFO flags, asked of the catalogue
per name) and which of its arguments are keys (COMMAND GETKEYS); commands queued inside
MULTI count when their EXEC runs, and a script's declared keys count as written by
whoever ran it.
"""

from __future__ import annotations

from collections.abc import Callable

from playground.engine.catalogue import SCRIPT_COMMANDS, Catalogue, wrote_nothing
from playground.engine.units import Unit, script_keys
from playground.resp.replies import Array, Err
from playground.resp.side_connection import SideConnection


class WriteTracker:
    """Remembers the last client that wrote each key, from the units that ran."""

    def __init__(self, reader: SideConnection, catalogue: Callable[[], Catalogue]) -> None:
        self.reader = reader                      # a SideConnection (read-only use)
        self.catalogue = catalogue                # () -> the playground's Catalogue: whether a command writes
        self.last_writer: dict[bytes, str] = {}
        self.noted = 0                            # units noted so far (note_unit)
        self.noted_at: dict[bytes, int] = {}      # key -> `noted` when its last write was noted: a
        # reader that saw the key change after the count it began at knows its writer is not known yet

    async def keys_written(self, unit: Unit) -> frozenset[bytes]:
        """The keys `unit` wrote, worked out once and kept on it (`unit.written`; and
        `unit.flushed` when it emptied whole databases). A unit that did not run wrote
        none; a command that failed wrote nothing (a script may have, before it failed)."""
        if unit.written is not None:
            return unit.written
        keys: set[bytes] = set()
        catalogue = self.catalogue()
        if unit.ran:   # (FLUSHALL, FLUSHDB, SWAPDB: after them nothing known holds)
            await catalogue.learn(argv[0] for argv, _ in unit.command_replies() if argv)
        if unit.ran and unit.changes is not None:   # what the server says it changed
            unit.flushed = any(catalogue.writes_unnamed_keys(argv) for argv, _ in unit.command_replies())
            keys = set(unit.changes)
        elif unit.ran:                              # else: what the commands' names say
            for argv, reply in unit.command_replies():
                if isinstance(reply, Err) and not (unit.kind == "script" and unit.started):
                    continue
                if wrote_nothing(argv, reply):  # e.g. SET NX that lost: the key is someone else's
                    continue
                if catalogue.writes_unnamed_keys(argv):
                    unit.flushed = True
                    continue
                keys |= await self.written_keys(list(argv))
        unit.written = frozenset(keys)
        return unit.written

    async def note_unit(self, unit: Unit) -> frozenset[bytes]:
        """Remember `unit` as the last writer of the keys it wrote (returned)."""
        keys = await self.keys_written(unit)
        if unit.flushed:
            self.forget()
        self.noted += 1
        for key in keys:
            self.last_writer.pop(key, None)  # (the newest write last: the inspector follows it)
            self.last_writer[key] = unit.client
            self.noted_at[key] = self.noted
        return keys

    async def written_keys(self, argv: list[bytes]) -> set[bytes]:
        cmd = argv[0].lower()
        if cmd in SCRIPT_COMMANDS:
            return set() if SCRIPT_COMMANDS[cmd] else set(script_keys(argv))
        if not await self._is_write(cmd):
            return set()
        reply, = await self.reader.run([[b"COMMAND", b"GETKEYS", *argv]])
        return {bytes(k) for k in reply if isinstance(k, bytes)} if isinstance(reply, Array) else set()

    async def _is_write(self, cmd: bytes) -> bool:
        """The server's `write` flag, asked of the one catalogue (engine/catalogue.py)."""
        catalogue = self.catalogue()
        await catalogue.learn([cmd])
        info = catalogue.commands.get(cmd)
        return info is not None and b"write" in info.flags

    def forget(self) -> None:
        """After FLUSHALL or a restart nothing is known any more."""
        self.last_writer.clear()
        self.noted_at.clear()
