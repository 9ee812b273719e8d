"""A program run again from its start, answered what it was answered in a run before,
without the server: does it send again, byte for byte, what it sent then?

The explorer replays a program from what it saw (explore/program_tree.py): that holds only
if the program is a function of its replies. So the first order's run of each program is
checked so (`RepeatCheck`): while the search goes on, the program is started once more on
a socket of its own, each request it sends compared with that run's, on the same
connection, and answered with that run's reply; the first one that differs (or one more,
or one fewer) makes it not repeatable. Nothing reaches the server, and the search does
not wait for it until its end.

A program that was sent what no command asked for (pushes), that gave up on a command,
or whose replies came from a command the server answers differently each time (TIME,
SPOP, RANDOMKEY ...: the catalogue's `nondeterministic`) is run again live instead, in the
first order (program_moves.py's `_same_again`): with other replies, what it sends may
differ, and that is what the search must find out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from dataclasses import dataclass

from playground.gate.endpoint import HOLD_QUERY, RECV
from playground.gate.frames import FrameError, request
from playground.gate.listener import Listener, listen_unix
from playground.gate.programs import Program, ProgramError


@dataclass(frozen=True)
class Exchange:
    """One request of a program's, on its connection `connection`, and the reply it got."""

    connection: int
    raw: bytes
    argv: tuple[bytes, ...]
    reply: bytes
    stepped: bool


@dataclass(frozen=True)
class Differs:
    """Where the program run again left the run before: its stepped command `n` (1-based,
    in the order it sent them) was `before` then, and `now` (None: it sent no more)."""

    n: int
    before: tuple[bytes, ...] | None
    now: tuple[bytes, ...] | None


class RepeatCheck:
    """Program `name` (`real(url)`: its real process on that URL) run again against
    `exchanges`, its run before, in that run's order (or the run of another program of the
    same identity, `against`, whose tree it shares: explore/program_tree.py); with `end`,
    (exit status, return value), also how that run ended. `differs()`: None, or where it
    left it."""

    def __init__(self, name: str, real, exchanges: list[Exchange], directory: str, against: str | None = None,
                 end: tuple[int, str | None] | None = None) -> None:
        self.name = name
        self.against = against or name
        self.end = end
        self.real = real
        self.expected: dict[int, list[Exchange]] = {}
        for e in exchanges:
            self.expected.setdefault(e.connection, []).append(e)
        self.order = exchanges
        self.directory = directory
        self._opened = 0
        self._left: Differs | None = None
        self._answered: dict[int, int] = {}
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def cancel(self) -> None:
        """Stop it (its program too), if it still runs."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def differs(self) -> Differs | None:
        """Where it left its run before (after it ended), or None."""
        assert self.task is not None  # (started)
        await self.task
        return self._left

    async def _run(self) -> None:
        path = os.path.join(self.directory, f"again-{secrets.token_hex(6)}.sock")   # (as the explorer's gate's
        # sockets: not after the program's client, Gate.anonymous)
        listener: Listener | None = None
        program: Program | None = None
        old = os.umask(0o077)
        try:
            listener = listen_unix(path, self._serve, RECV)
        finally:
            os.umask(old)
        try:
            program = self.real("unix://" + path + HOLD_QUERY)
            try:
                await program.start()
            except ProgramError:
                return   # (it cannot start now: the search found out already whether it can)
            await program.wait()
            if self._left is None:   # it ended: everything it was sent before must have been sent again
                for number, exchanges in self.expected.items():
                    if self._answered.get(number, 0) < len(exchanges):
                        self._differ(exchanges[self._answered.get(number, 0)], None)
                        break
            code = program.process.returncode if program.process is not None else None
            if self._left is None and self.end is not None and (code, program.outcome().returned) != self.end:
                self._left = Differs(sum(1 for e in self.order if e.stepped) + 1, None, None)   # (ended otherwise)
        finally:
            if program is not None and not program.exited:
                await program.stop()
            listener.close()
            await listener.wait_closed()
            with contextlib.suppress(OSError):
                os.unlink(path)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._opened += 1
        number = self._opened
        expected = self.expected.get(number, [])
        buf = bytearray()
        try:
            while self._left is None:
                data = await reader.read(RECV)
                if not data:
                    return
                buf += data
                while (got := request(buf, 0)) is not None:
                    argv, end = got
                    done = self._answered.get(number, 0)
                    if done >= len(expected) or bytes(buf[:end]) != expected[done].raw:
                        self._differ(expected[done] if done < len(expected) else None, tuple(argv))
                        return
                    writer.write(expected[done].reply)
                    self._answered[number] = done + 1
                    del buf[:end]
        except (FrameError, ConnectionError, OSError):
            pass
        finally:
            writer.close()

    def _differ(self, before: Exchange | None, now: tuple[bytes, ...] | None) -> None:
        """The first place it left its run before: `before` expected there (None: more
        than then), `now` sent instead (None: nothing)."""
        if self._left is not None:
            return
        index = self.order.index(before) if before is not None else len(self.order)
        n = sum(1 for e in self.order[:index] if e.stepped) + 1
        self._left = Differs(n, before.argv if before is not None else None, now)
