"""A lesson's programs replayed from what they saw: a program is a function of the replies
it has been given, so the explorer runs it once per reply history, not once per schedule.

Invariant: `ProgramTree.nodes[history]` holds what the program, run from its start, did
after it had been given exactly the replies in `history` (a tuple of (argv, reply bytes)
of its stepped commands, in order, as scenario/programs/lesson.py's `history` keeps them): the next
stepped command it sent (`Move`: on which of its connections, with the client library's
handshake requests sent on that connection since the connection's stepped command before
it), or how it ended (`End`: exit status, return value, output). Only a run of the real
program writes a node, and a run that disagrees with a node already there is the
program's not being repeatable (scenario/programs/lesson.py's `note_sent`: the search stops with that
line, as it always did).

In a schedule, a program whose start is in its tree is not started: a `ReplayedProgram`
sends on connections of the gate's with no process at their other end (Gate.attach), in
place of the program's, the commands the tree holds for the replies it gets. The gate holds and forwards them as a
program's own, so every command really runs on the server, in the schedule's order, on a
connection of its own: only the program's process is skipped. When a reply history is
not in the tree, the real program takes the replay's connections over (Gate.splice):
started afresh, it is answered what the replay was, up to there, without the server,
and goes on for real past the new point, writing its nodes. One that sends anything
else on the way than the replay sent is not repeatable: the schedule is run again from its fresh start
with that program's real process from its start (`Diverged`, `ProgramTrees.live`). While
the search goes on, each program of the first schedule is run once more against what it
sent and was answered there (explore/repeat_check.py; program_moves.py).

Programs of the same identity (the same command line, directory and time limit: a lesson
whose A and B run the same file) are one function of their replies, so they share one
tree: what A did after some replies is what B does after them. Nothing in their
environment says which client they are (the gate's sockets are named at random,
Gate.anonymous: their paths differ from run to run as they do between A and B), so a
program that could do otherwise as B than as A is one that is not repeatable. That too is
held against the programs themselves: a real run of one that disagrees with a node
another wrote (the command it sent, or its exit status and return value), and the
run-again check above, which runs a program against what the *other* sent and was
answered in the first schedule and how it ended, end the sharing (`Unshared`): the
search starts again with a tree per program.

A program that is sent what no command asked for (a subscriber's messages, a client-side
cache's invalidations), asks for no replies (CLIENT REPLY), or sends more handshake
requests in a row than the gate keeps is not replayed: it runs for every schedule.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from playground.engine.catalogue import SUBSCRIBE_FAMILY
from playground.gate.frames import FrameError
from playground.gate.program_connection import Held
from playground.gate.programs import Program, ProgramError, ProgramOutcome
from playground.explore.repeat_check import Exchange

_NOT_REPLAYED = (b"monitor", b"client", b"sync", b"psync", b"reset", b"quit")
"""Commands after which what the program is sent is not a reply per command (or its
connection goes): CLIENT TRACKING, CLIENT REPLY; its program is run for every schedule."""


class Diverged(Exception):
    """A replayed program reached replies its tree does not hold: run the schedule again."""


class Unshared(Exception):
    """Two programs sharing a tree (the same identity) did different things after the same
    replies: the search starts again, with a tree per program."""


@dataclass(frozen=True)
class Move:
    """The next stepped command, on the program's connection `connection`."""

    connection: int
    before: tuple[bytes, ...]
    raw: bytes
    argv: tuple[bytes, ...]


@dataclass(frozen=True)
class End:
    """How the program ended, after all its replies."""

    returncode: int
    returned: str | None
    stdout: bytes
    stderr: bytes


@dataclass
class ProgramTree:
    """One program's nodes (see the module's invariant)."""

    nodes: dict[tuple, Move | End] = field(default_factory=dict)
    replayed: bool = True   # False: it runs for every schedule
    waits_forever: set[tuple] = field(default_factory=set)   # histories after which its command blocked
    # with no timeout of its own, nor of the program's (found by its real process)
    by: dict[tuple, str] = field(default_factory=dict)   # history -> the program whose real run wrote its node


class ProgramTrees:
    """The trees of a lesson's programs, given to scenario/programs/lesson.py's LessonPrograms as its
    `replay`: it asks `program` for a replay at each start, and tells `moved` and `ended`
    what each real program did."""

    def __init__(self, share: bool = True) -> None:
        self.trees: dict[str, ProgramTree] = {}   # the first program of each identity -> its tree
        self.share = share                # programs of the same identity share a tree (see the module)
        self.alias: dict[str, str] = {}   # program -> the program whose tree it has (itself, unshared)
        self._identities: dict[tuple, str] = {}   # identity -> its first program
        self.mismatch: str | None = None  # two programs sharing a tree that disagreed (Unshared)
        self.live: set[str] = set()       # this schedule: these programs run for real
        self.diverged: set[str] = set()   # this schedule: these replays ran out of their tree
        self.starts = 0                   # real program processes started
        self.replays = 0                  # programs replayed instead
        self.reals: dict = {}             # program -> real(url): its real process on that URL
        self.first: dict[str, list[Exchange] | None] = {}   # program -> what it sent and was answered in
        # its first run, to run it again against (explore/repeat_check.py); None: it cannot be

    def begin(self, live=()) -> None:
        """A schedule begins (again, with the programs in `live` run for real)."""
        self.live = set(live)
        self.diverged = set()

    def check(self) -> None:
        """Raise Unshared when two programs sharing a tree disagreed; Diverged when a replay
        ran out of its tree in this schedule."""
        if self.mismatch is not None:
            raise Unshared(self.mismatch)
        if self.diverged:
            raise Diverged(", ".join(sorted(self.diverged)))

    def program(self, name: str, argv, cwd, gate, time_limit: float, real=None,
                shared: bool = False) -> Program | None:
        """A replay of program `name` for this schedule on `gate`, or None: start the real
        one. `real(url)`: the real program on that URL, which takes over where the replay
        runs out of its tree (None: the schedule runs again). `shared`: it may share its
        tree with a program of the same identity (its command line, directory and time
        limit: one that runs with an environment of its own, by hand, may not)."""
        if name not in self.alias:
            identity = (tuple(argv), str(cwd), time_limit) if self.share and shared else (name,)
            self.alias[name] = self._identities.setdefault(identity, name)
        tree = self.tree(name)
        if real is not None:
            self.reals[name] = real
        if name in self.live or not tree.replayed or () not in tree.nodes:
            self.starts += 1
            return None
        self.replays += 1
        return ReplayedProgram(name, argv, cwd, "", time_limit, tree=tree, missed=self._missed, gate=gate,
                               real=real, started=self._started)

    def tree(self, name: str) -> ProgramTree:
        """Program `name`'s tree (shared with those of its identity)."""
        key = self.alias.get(name, name)
        tree = self.trees.get(key)
        if tree is None:
            tree = self.trees[key] = ProgramTree()
        return tree

    def sharing(self, name: str) -> list[str]:
        """The other programs that share program `name`'s tree."""
        mine = self.alias.get(name, name)
        return [n for n, a in self.alias.items() if a == mine and n != name]

    def _write(self, name: str, tree: ProgramTree, history: tuple, node: "Move | End", same) -> None:
        """Node `node` at `history`, by program `name`'s real run; one there already that
        another program sharing the tree wrote, and `same(old)` False: they disagree."""
        old = tree.nodes.setdefault(history, node)
        if old is node:
            tree.by[history] = name
        elif tree.by.get(history, name) != name and not same(old) and self.mismatch is None:
            self.mismatch = f"{tree.by[history]} {name}"

    def _started(self) -> None:
        self.starts += 1

    @staticmethod
    def _replayed(program) -> bool:
        """A replay with no real program behind it (yet)."""
        return isinstance(program, ReplayedProgram) and program.delegate is None

    def _missed(self, name: str) -> None:
        self.diverged.add(name)

    def blocked_forever(self, name: str, history: list, program) -> bool | None:
        """Program `name`'s command, after the replies in `history`, blocked at the server
        with no timeout of the command's own: does the program wait for ever (no timeout
        of its own either)? Known from its real process when it found so (True); else a
        replay runs the schedule again with the real one (None: movable's check)."""
        tree = self.tree(name)
        if tuple(history) in tree.waits_forever:
            return True
        if self._replayed(program):
            self.diverged.add(name)
        return None

    def waits(self, name: str, history: list, forever: bool) -> None:
        """What the real program `name` was found to do with its blocked command: wait
        for ever, or go on by a timeout of its own (then it is not replayed: a replay
        cannot time out as the program does)."""
        tree = self.tree(name)
        if forever:
            tree.waits_forever.add(tuple(history))
        else:
            tree.replayed = False
            tree.nodes.clear()

    def moved(self, name: str, history: list, held, program) -> None:
        """Real program `name`, given the replies in `history`, sent `held` (a stepped command)."""
        tree = self.tree(name)
        if self._replayed(program) or name in self.diverged or not tree.replayed:
            return
        argv = tuple(held.argv)
        name0 = argv[0].lower() if argv else b""
        if (held.before is None or held.client.password is not None or name0 in SUBSCRIBE_FAMILY
                or name0 in _NOT_REPLAYED or held.client.pushed):
            tree.replayed = False
            tree.nodes.clear()
            return
        self._write(name, tree, tuple(history), Move(held.client.number, held.before, held.raw, argv),
                    lambda old: isinstance(old, Move) and (old.connection, old.argv) == (held.client.number, argv))

    def ended(self, name: str, history: list, program, clients) -> None:
        """Real program `name` ended by itself after the replies in `history`; `clients`:
        its gate connections (one sent a push: it is not replayed)."""
        tree = self.tree(name)
        if name not in self.first and not isinstance(program, ReplayedProgram):
            self.first[name] = _exchanges(name, program, clients)
        if self._replayed(program) or name in self.diverged or not tree.replayed or program.stopped:
            return
        if any(c.pushed or c.before for c in clients):   # (handshake requests after its last step)
            tree.replayed = False
            tree.nodes.clear()
            return
        code = program.process.returncode if program.process is not None else None
        if code is None:
            return
        end = End(code, program.outcome().returned, bytes(program.stdout), bytes(program.stderr))
        self._write(name, tree, tuple(history), end,   # (what it printed may name its socket: not compared)
                    lambda old: isinstance(old, End) and (old.returncode, old.returned) == (code, end.returned))


def _exchanges(name: str, program, clients) -> list[Exchange] | None:
    """What real program `name` sent on its gate connections `clients` and was answered,
    in the order it was answered; None when that is not all it saw (it was stopped, gave
    up on a command, was sent pushes, or something of it is unanswered)."""
    if program.stopped or not clients or any(c.pushed or c.queue or c.inflight for c in clients):
        return None
    gate = clients[0].gate
    if any(h.client.label == name for h in gate.dropped):
        return None
    return [Exchange(h.client.number, h.raw, tuple(h.argv), h.reply or b"", not h.unstepped)
            for h in gate.log if h.client.label == name]


class _Process:
    """What a replay has of a process: its exit status, and waiting for it (its real
    program's pid, once that took over)."""

    pid: int | None = None

    def __init__(self) -> None:
        self.returncode: int | None = None
        self._ended = asyncio.Event()
        self._told: list = []

    def end(self, code: int) -> None:
        self.returncode = code
        self._ended.set()
        told, self._told = self._told, []
        for tell in told:
            tell()

    def when_ended(self, tell) -> None:
        """`tell()` once it has ended (at once if it has): no task waits for it."""
        if self.returncode is not None:
            tell()
        else:
            self._told.append(tell)

    async def wait(self) -> int | None:
        await self._ended.wait()
        return self.returncode


class ReplayedProgram(Program):
    """A program's commands sent from its tree, on connections of the gate's with no
    process at their other end (Gate.attach). Where the tree holds nothing for the
    replies it got, the real program (`real`) takes its connections over (Gate.splice):
    started afresh, it is answered what the replay was, without the server, up to there,
    and goes on for real (`delegate`): its process, output and outcome are this one's."""

    def __init__(self, *args, tree: ProgramTree, missed, gate, real=None, started=None, **kwargs) -> None:
        self.delegate: Program | None = None
        self._deadline = 0.0
        super().__init__(*args, **kwargs)
        self.tree = tree
        self.missed = missed
        self.gate = gate
        self.real = real
        self.started = started
        self.task: asyncio.Task | None = None
        self.end: End | None = None
        self.replay = _Process()

    @property
    def deadline(self) -> float:
        return self.delegate.deadline if self.delegate is not None else self._deadline

    @deadline.setter
    def deadline(self, value: float) -> None:
        if self.delegate is not None:
            self.delegate.deadline = value
        else:
            self._deadline = value

    async def start(self) -> "Program":
        self.process = self.replay   # type: ignore[assignment]  # (what of a process a replay has)
        self.deadline = asyncio.get_running_loop().time() + self.time_limit
        self._history: list = []
        self._connections: dict = {}
        self._awaited: Held | None = None
        self.gate.answered.append(self._told)
        self.gate.ended.append(self._closed)
        self._advance()
        return self

    def _advance(self) -> None:
        """The tree's next node for the replies so far: its command handed to the gate (its
        reply then comes to `_told`), or the end; past the tree, the real program (a task:
        `_go_live`), as for a connection still to open (`_attach`)."""
        try:
            node = self.tree.nodes.get(tuple(self._history))
            if node is None:
                self._in_task(self._go_live(self._connections))
                return
            if isinstance(node, End):
                self.end = node
                self.stdout[:], self.stderr[:] = node.stdout, node.stderr
                self._ended(node.returncode)
                return
            client = self._connections.get(node.connection)
            if client is None:
                client = self.gate.attach_kept(self.name, node.connection)   # (at once, when it can be)
                if client is None:
                    self._in_task(self._attach(node.connection))
                    return
                self._connections[node.connection] = client
            self._awaited = self.gate.hand(client, b"".join(self.gate.unsettled(client, node.before)) + node.raw)[-1]
        except (OSError, ConnectionError, FrameError, ProgramError):
            self._gone()

    def _closed(self, client) -> None:
        """A connection of the gate's ended (Gate.ended): when the command this replay
        waits for was on it, it has no reply, and the replay ran out."""
        if self._awaited is not None and self._awaited.client is client and self._awaited.reply is None:
            self._gone()

    def _told(self, client, held: Held) -> None:
        """The gate answered `held` (Gate.answered): when it is the command this replay
        waits for, its reply is what the program saw, and the replay goes on at once."""
        if held is not self._awaited:
            return
        self._awaited = None
        node = self.tree.nodes[tuple(self._history)]
        assert isinstance(node, Move)  # (the node whose command it handed)
        self._history.append((node.argv, held.reply))
        self._advance()

    def _in_task(self, step) -> None:
        self.task = asyncio.ensure_future(step)

    async def _attach(self, number: int) -> None:
        try:
            self._connections[number] = await self.gate.attach(self.name, number)
        except (OSError, ConnectionError):
            self._gone()
            return
        self._advance()

    def _gone(self) -> None:
        """The gate closed under it (the schedule is over or stopped): it ran out."""
        self.missed(self.name)
        self._ended(-9)

    def _ended(self, code: int) -> None:
        if self._told in self.gate.answered:
            self.gate.answered.remove(self._told)
        if self._closed in self.gate.ended:
            self.gate.ended.remove(self._closed)
        self._awaited = None
        if self.delegate is None:
            for client in self._connections.values():   # (its program's connections close as it ends)
                client.fail_pending()
        self.replay.end(code)

    async def _go_live(self, connections: dict) -> None:
        """The real program from here on, to its exit (its time limit, if it runs past it:
        stopped)."""
        try:
            self._ended(await self._live(connections))
        except (OSError, ConnectionError, FrameError, EOFError, ProgramError):
            self._gone()

    async def _live(self, connections: dict) -> int:
        if self.real is None:
            self.missed(self.name)
            return -9
        real = self.real(await self.gate.splice(self.name, connections, lambda: self.missed(self.name)))
        real.stdout, real.stderr = self.stdout, self.stderr
        await real.start()
        if self.started is not None:
            self.started()
        self.delegate = real
        self.replay.pid = getattr(real.process, "pid", None)
        await real.wait()
        self.stopped = self.stopped or real.stopped
        code = real.process.returncode if real.process is not None else None
        return -9 if code is None else code

    async def wait(self) -> bool:
        await self.replay.wait()
        return True

    async def drained(self) -> None:
        """Nothing of it to end or read: it is no process (its real program: drained as it ended)."""

    async def stop(self, why: str | None = None) -> None:
        if self.replay.returncode is None:
            self.stopped = self.stopped or why
        if self.delegate is not None:
            await self.delegate.stop(why)
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.replay.returncode is None:
            self._ended(-9)

    def outcome(self) -> ProgramOutcome:
        if self.delegate is not None:
            return self.delegate.outcome()
        code = self.process.returncode if self.process is not None else None
        status = None if self.stopped or code is None else (128 - code if code < 0 else code)
        return ProgramOutcome(status, self.end.returned if self.end is not None else None)
