"""Running one schedule of the explorer on the server: a fresh start and the setup, then
each client's moves in the planned order; a blocked client waits until it can move (or its
timeout fires), and a schedule where nobody can move is a deadlock. A mixin of
explore/explorer.py's Explorer (its runner, programs, footprints and scenario).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from playground.engine.catalogue import block_timeout, clock_free, may_block
from playground.engine.session import STREAMING
from playground.errors import ExploreError
from playground.explore import program_moves
from playground.explore.outcomes import Run
from playground.i18n import tr
from playground.resp.cli_format import render
from playground.resp.cli_lines import format_argv
from playground.scenario.time_limits import WAIT_TIMEOUT

if TYPE_CHECKING:
    from playground.explore.pushes import PushLog
    from playground.scenario.model import Scenario
    from playground.scenario.runner import Runner

WAIT_ALONE = 1.0
"""Seconds a program that waits for pushed data is given to go on by itself (its own
timeout), as the move of its that comes before the others' (the report says so)."""
OTHER_WAIT = 2.0  # seconds a client held up by something other than a blocking command is given


class OneSchedule:
    """Explorer's moves on the server, one schedule at a time."""

    failing: dict[str, str] | None = None   # programs that ended badly in every schedule so far
    runner: Runner                          # (the Explorer's)
    scenario: Scenario
    pushes: PushLog
    choices: list[list[str]]
    listened: set[str]                      # programs seen waiting for pushed data (set by the Explorer)
    untimed: dict[str, str]                 # program -> its command seen blocked with no timeout of its own
    resting: dict[str, tuple[int, int]]     # this run: program -> (its pushes, its moves) when it was last at rest
    stuck: dict[str, int]                   # this run: program -> its pushes when its own wait did not end

    async def run_schedule(self, planned: tuple[str, ...]) -> Run:
        """Fresh server, setup, then the moves in `planned` order (a blocked client's
        moves wait until it can move); the run as it happened. `self.keep` (a list, set
        by `run_checked`) gets each step's (client, index of its step, StepResult), a
        blocked reply's with its command's index."""
        runner = self.runner
        keep = self.keep
        error = await runner.begin_part(self.scenario, self.part)
        if error:
            raise ExploreError(f"{self.scenario.id}: {error}")
        self.pushes.attach()   # a subscriber's messages: its replies too (explore/pushes.py)
        self.kept_pushes: list[tuple[int, str, str]] = []
        position = dict.fromkeys(self.programs, 0)
        self.resting, self.stuck = {}, {}   # a subscriber's waits (program_moves._program_ready)
        remaining = list(planned)
        executed: list[str] = []
        commands: list = []   # per move, the command it sent (a program's: known only now)
        self.moved_now = (executed, commands)   # (program_moves.next_client: who sleeps)
        done: list[tuple[str, int | None, bool]] = []
        seen: dict[str, list[str]] = {c: [] for c in self.programs}
        sent_at: dict[str, int] = {}   # each client's last command that blocked
        deadlock = None
        last = None
        while True:
            await self._settle_pending()
            if self.scenario.programs:   # the prefix, then whoever can move first
                client = await program_moves.next_client(self, remaining, position, last)
                if client is None:
                    if await self._wait_for_any():
                        continue
                    deadlock = self._who_waits() or None
                    break
                if (waited := await self._waited_alone(client, (done, position, executed, commands))) is not None:
                    last = waited or last   # its wait ended by itself (a move with no command), or not (none)
                    continue
            elif not remaining:
                if any(not job.task.done() for job, _ in runner.waiting.values()) \
                        and not await self._wait_for_any(all_of=True):
                    deadlock = self._who_waits()
                break
            else:
                pick = next((i for i, c in enumerate(remaining) if self.can_move(c) or self.may_time_out(c)), None)
                if pick is None:
                    if await self._wait_for_any():
                        continue
                    deadlock = self._who_waits()
                    break
                client = remaining.pop(pick)
            if not self.can_move(client):
                await self._time_out(client)
            step = program_moves.step_at(self, client, position[client])
            if client in runner.waiting and not step.wait:
                taken = await self._collect(client)
                await self._note(seen, client, taken)
                done.append((client, None, False))
                if keep is not None:
                    keep.append((client, sent_at[client], taken))
            nothing_to_take = step.wait and client not in runner.waiting   # it answered at once
            out = await runner.run_step(self.scenario, self.part.name, step)
            blocked = client in runner.waiting and runner.waiting[client][1] is out
            done.append((client, position[client], blocked))
            if keep is not None:
                keep.append((client, sent_at.get(client, position[client]) if step.wait else position[client], out))
            if blocked:
                sent_at[client] = position[client]
                self._note_untimed(client, out)
            if not blocked and not nothing_to_take:
                await self._note(seen, client, out)
            else:
                await self._note(seen, None, None)
            last = (client, position[client])
            position[client] += 1
            executed.append(client)
            commands.append(tuple(out.argv) if out.argv and not step.wait and not out.skipped else None)
        if not deadlock:   # replies that came with no wait step left to take them
            for client in [c for c, (job, _) in runner.waiting.items() if job.task.done()]:
                taken = await self._collect(client)
                await self._note(seen, client, taken)
                if keep is not None:
                    keep.append((client, sent_at[client], taken))
        await self._note(seen, None, None)   # the messages still on their way
        if deadlock and runner.programs.running:  # a program waits for ever: stopped, not waited for
            await runner.discard_pending()
            await runner.programs.stop()
        self.trees.check()   # a replay ran out of its tree: the schedule runs again (program_tree.py)
        ended = await self._programs_end(executed)
        shot = await self.snapshots.read()
        if deadlock:
            await runner.discard_pending()
        return Run(tuple(executed), shot, deadlock, moves=done,
                   replies=tuple((c, tuple(r)) for c, r in seen.items()), commands=tuple(commands),
                   ended=ended)

    def _note_untimed(self, client: str, out) -> None:
        """A program's command blocked with no timeout of its own (BLPOP jobs 0): a
        client-side socket timeout in the program would end its wait by itself, which
        the search does not try (the report says so)."""
        if client in self.scenario.programs and out.argv and not block_timeout(out.argv):
            self.untimed.setdefault(client, format_argv(list(out.argv)))

    async def _waited_alone(self, client: str, moves: tuple) -> tuple | bool | None:
        """A program that waits for pushed data was chosen to move: its move is its own
        wait ending first (its client-side timeout: it then holds its next command, or
        ends), before anyone else moves; the move, as `last`, recorded in `moves` (the
        run's done, position, executed and commands) with no command. None: it holds a
        command (a move as any). False when its wait did not end within WAIT_ALONE
        seconds (within its time limit when nobody else can move): it waits for pushed
        data only (`p.listen()`), and is not offered again until it is sent something;
        no move is made."""
        programs = self.runner.programs
        if client not in self.scenario.programs or client in self.runner.waiting or programs.gate is None \
                or programs.gate.held(client) or not programs.listening(client):
            return None   # (a blocked command's wait: a move of its own, `_time_out`)
        alone = len(self.choices[-1]) == 1   # nobody else can move: up to its time limit
        if not await programs.wait_alone(client, float("inf") if alone else WAIT_ALONE):
            self.stuck[client] = programs.pushes(client)
            self.choices.pop()
            return False
        done, position, executed, commands = moves
        move = (client, position[client])
        done.append((*move, False))
        position[client] += 1
        executed.append(client)
        commands.append(None)
        await self.pushes.settle()   # (what it was sent while it waited: taken with the next move)
        return move

    async def _programs_end(self, executed: list[str]) -> tuple:
        """Every program to its end: how each ended, (client, exit status, return value,
        after which move when the status is not 0), the schedule's outcome. One the
        playground stopped (its time limit) or that is not repeatable stops the search."""
        programs = self.runner.programs
        waiting = frozenset(c for c in programs.running if programs.gate is not None and not programs.gate.held(c)
                            and not programs.running[c].exited and programs.listening(c))
        problem = programs.not_repeatable or await programs.finish(frozenset(self.scenario.programs), waiting)
        self.trees.check()   # (a replay that ran out of its tree as the programs ran to their end)
        if problem:
            raise ExploreError(f"{self.scenario.id}: {problem}")
        failing = {c: line for c, line in programs.failures.items() if line}
        self.failing = failing if self.failing is None else {c: m for c, m in self.failing.items() if c in failing}
        return tuple((c, o.status, o.returned, executed.count(c) if o.status else None)
                     for c, o in programs.outcomes.items())

    def may_time_out(self, client: str) -> bool:
        """Its blocked command has a timeout (and no script holds it up)."""
        pending = self.runner.waiting.get(client)
        if pending is None or self._busy_script(client):
            return False
        return may_block(pending[0].argv) and bool(block_timeout(pending[0].argv))

    async def _time_out(self, client: str) -> None:
        """Let the client's blocked command time out (nobody unblocked it in this order)."""
        job = self.runner.waiting[client][0]
        seconds = block_timeout(job.argv)
        await asyncio.wait([job.task], timeout=min(seconds + 2.0, WAIT_TIMEOUT))
        if not job.task.done():
            raise ExploreError(tr("{id}: {command} did not time out after {seconds:g} s", id=self.scenario.id,
                                  command=format_argv(list(job.argv)), seconds=seconds))

    def can_move(self, client: str) -> bool:
        pending = self.runner.waiting.get(client)
        return pending is None or pending[0].task.done()

    async def _settle_pending(self) -> None:
        """Until each blocked client has either its reply or the server's word that it
        still waits: what can move next must not depend on how fast a reply travels."""
        for client, (job, _) in list(self.runner.waiting.items()):
            if not job.task.done():
                await job.settle()   # (a program's command: through the gate, scenario/programs/lesson_steps.py)

    def _busy_script(self, client: str) -> bool:
        """The client runs a script that holds the server (a program's connection: no
        pane shows it, its blocked command is known from the catalogue alone)."""
        return client not in self.scenario.programs and self.pg.sessions[client].state.busy_script

    async def _wait_for_any(self, all_of: bool = False) -> bool:
        """Nobody can move: give the blocked commands with a timeout that long. True if
        a reply came."""
        waiting = [(c, job) for c, (job, _) in self.runner.waiting.items() if not job.task.done()]
        bound = 0.0
        for client, job in waiting:
            if self._busy_script(client):
                limit = WAIT_TIMEOUT
            elif may_block(job.argv):
                limit = block_timeout(job.argv) or None   # None: it waits for ever
            else:
                limit = OTHER_WAIT                # held up some other way (CLIENT PAUSE ...)
            bound = max(bound, min(limit + 0.25, WAIT_TIMEOUT) if limit is not None else 0.0)
        if not waiting or bound <= 0:
            return False
        done, _ = await asyncio.wait([job.task for _, job in waiting], timeout=bound,
                                     return_when=asyncio.ALL_COMPLETED if all_of else asyncio.FIRST_COMPLETED)
        return bool(done) and (not all_of or len(done) == len(waiting))

    def _who_waits(self) -> str:
        return "; ".join(tr("{client} waits in {command}", client=c, command=format_argv(list(job.argv)))
                         for c, (job, _) in sorted(self.runner.waiting.items(),
                                                   key=lambda item: list(self.programs).index(item[0]))
                         if not job.task.done())

    async def _note(self, seen: dict[str, list[str]], client: str | None, out) -> None:
        """The pushes each client was sent so far (once the server has sent them all:
        PushLog.settle), then `out`, the reply `client` saw (a subscribing step's own
        frames are among the pushes). With `self.keep`, each push kept for the lanes,
        after the last unit that ran."""
        await self.pushes.settle()
        for name in seen:
            frames = self.pushes.take(name)
            seen[name] += frames
            if name == client and out.value is STREAMING:   # SUBSCRIBE's own replies: the lanes show them on its row
                out.reply = "\n".join(frames)
            elif self.keep is not None and frames:
                last = max((u.seq for _, _, o in self.keep for u in o.units if u.seq is not None), default=0)
                last = max([last] + [o.seq for _, _, o in self.keep if o.seq is not None])
                self.kept_pushes += [(last, name, frame) for frame in frames]
        if client is not None and out.value is not STREAMING:
            seen[client].append(await self._compared(out))

    async def _compared(self, out) -> str:
        """A step's reply as compared between schedules (explore/explorer.py's BY): as its
        client saw it, but the readings of the clock in it (a TTL, an idle time) masked,
        which differ from run to run (the catalogue's `clock_output`: the report names
        such steps)."""
        argv = out.argv
        if out.skipped or not argv or out.value is None:
            return _seen(out)
        catalogue = self.pg.catalogue
        await catalogue.learn([argv[0]])
        if not catalogue.clock_output(argv):
            return _seen(out)
        return _seen(out, render(clock_free(argv, out.value), list(argv)).decode("utf-8", "replace"))

    async def _collect(self, client: str):
        """The reply of a command that blocked arrived, and the client's next step is a
        command: take the reply first (its `save` included)."""
        _, origin = self.runner.waiting[client]
        wait = replace(origin.step, wait=True, argv=None, blocking=False)
        return await self.runner.run_step(self.scenario, self.part.name, wait)


def _seen(out, reply: str | None = None) -> str:
    """A step's reply as its client saw it, on one line (redis-cli's rendering: escaped)."""
    if out.skipped:
        return "-"
    return " ".join((reply if reply is not None else out.reply or "").split("\n")).strip()
