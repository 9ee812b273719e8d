"""Commands a program sent through the gate, recorded as typed lines are.

The gate (gate/endpoint.py) forwards a program's commands and replies byte for byte, and
numbers each reply in the playground's one server order. Every command it answered comes
here, in that order, and goes through the recorder a typed line goes through
(engine/recorder.py): its unit (a command, a MULTI … EXEC, a script: engine/units.py,
followed per client) into the server order that the lanes draw, what it changed, the
why-note of a reply that surprises (engine/why.py), and the keys it wrote
(engine/attribution.py: the inspector's "changed by"). So lanes, why-notes and
attribution never tell a program from a pane.

The client a program's lines belong to is the gate's label for it: a lesson's client name
("A") for a lesson's program, the program's own name ("python3#1") for one started by hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from playground.engine import events as ev
from playground.engine.recorder import Recorder
from playground.engine.units import Unit, UnitTracker
from playground.resp.buffer_parser import parse_buffered
from playground.resp.connection import parse_reply
from playground.resp.replies import Reply


class AnsweringGate(Protocol):
    """What the recorder needs of the gate (gate/endpoint.py's Gate, a layer above): its
    list of callbacks told (gate client, Held) of every command it answered, and its list
    told of each client whose connection ended."""

    answered: list[Callable[[Any, Any], None]]
    ended: list[Callable[[Any], None]]


class ProgramLines:
    """Records what the gate answered, through `recorder` (an executor's: `Executor.recorder`),
    one command after the other in server order. `listening`: the recorder's events
    (UnitEnded, Wrote, Why) are emitted as a typed line's are; False where a caller takes
    what it needs from the `LineResult` (the scenario runner puts a step's whys in its
    result). A program's client has no session: its units are followed here, one
    UnitTracker per connection (its client's, `UnitTracker.client`), as a session follows
    a typed client's; the trackers are the recorder's (`Recorder.programs`: where its
    WATCHes are marked dirty, and read)."""

    def __init__(self, recorder: Recorder, listening: bool = False) -> None:
        self.recorder = recorder
        self.listening = listening
        self.trackers = recorder.programs
        self._last: asyncio.Future[ev.LineResult] | None = None

    def attach(self, gate: AnsweringGate, name: Callable[[Any], str] = lambda client: client.label) -> None:
        """Record every command `gate` answers, but the client library's handshake (HELLO,
        CLIENT SETINFO ...: no step, no line of the program's); `name(gate_client)`: the
        client its lines belong to (a lesson's: its label; free play: each connection's
        own name). Each `Held` gets its record's future as `held.record`. Its units are
        followed per connection (`gate_client.name`: a MULTI or a WATCH is a connection's),
        and forgotten when that connection ends."""
        def told(client: Any, held: Any) -> None:
            if not held.unstepped and not held.silent and held.reply is not None and held.seq is not None:
                held.record = self.answered(name(client), held.argv, held.reply, held.seq, connection=client.name)

        def ended(client: Any) -> None:
            self.forget(client.name)
        gate.answered.append(told)
        gate.ended.append(ended)

    def answered(self, client: str, argv: list[bytes] | tuple[bytes, ...], raw: bytes,
                 seq: int, connection: str | None = None) -> asyncio.Future[ev.LineResult]:
        """Record one command `client` sent on its `connection` (default: its one, named as
        the client) and the reply it got (`raw`, as the server sent it; `seq`, its
        server-order number). Called as the reply arrives; the records are made in that
        order. The future gives the line's `LineResult` (its whys)."""
        key = client if connection is None else connection
        parsed = None if self.recorder.waits or (self._last is not None and not self._last.done()) \
            else parse_buffered(bytearray(raw))
        if isinstance(parsed, tuple) and parsed[1] == len(raw):   # recorded at once where nothing waits: no task
            unit, _, result = self._line(client, key, tuple(argv), parsed[0], seq)
            self.recorder.record_now(client, unit, seq, result, self.listening)
            done: asyncio.Future[ev.LineResult] = asyncio.get_running_loop().create_future()
            done.set_result(result)
            self._last = done
            return done
        record = asyncio.ensure_future(self._record(self._last, client, key, tuple(argv), raw, seq))
        self._last = record
        return record

    async def settled(self) -> None:
        """Wait until every command answered so far is recorded."""
        while self._last is not None and not self._last.done():
            await asyncio.gather(self._last, return_exceptions=True)

    def forget(self, connection: str | None = None) -> None:
        """A program's connection ended (or, None, every one the recorder follows: a fresh
        server): its open MULTI and WATCHes end with it, once every command answered before
        is recorded."""
        last = self._last
        if last is not None and not last.done():
            last.add_done_callback(lambda _: self.forget(connection))
        elif connection is None:
            self.trackers.clear()
        else:
            self.trackers.pop(connection, None)

    async def _record(self, before: asyncio.Future[ev.LineResult] | None, client: str, connection: str,
                      argv: tuple[bytes, ...], raw: bytes, seq: int) -> ev.LineResult:
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)
        reply = await parse_reply(raw)
        unit, role, result = self._line(client, connection, argv, reply, seq)
        await self.recorder.record(client, argv, reply, seq, unit, role, result, self.listening)
        return result

    def _line(self, client: str, connection: str, argv: tuple[bytes, ...], reply: Reply,
              seq: int) -> tuple[Unit | None, str | None, ev.LineResult]:
        """The reply into its connection's unit (the client's: its lane): the unit it closed
        (if any), the line's role in its transaction, and the line's result."""
        tracker = self.trackers.setdefault(connection, UnitTracker(client))
        unit = tracker.note(argv, reply)
        return unit, tracker.role, ev.LineResult(client, argv, replies=[reply], seqs=[seq])
