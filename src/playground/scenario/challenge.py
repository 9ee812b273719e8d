"""A challenge: the learner is the scheduler, moving each client's program one step at a
time (`open ... --challenge`); the verdict is the challenge's state on the server."""

from __future__ import annotations

from dataclasses import replace

from playground.engine.executor import Executor
from playground.engine.key_reader import KeyInfo
from playground.engine.playground import Playground
from playground.i18n import tr
from playground.resp.cli_secrets import redact_line
from playground.scenario.model import Scenario, Step
from playground.scenario.runner import Runner, StepResult, check_state
from playground.scenario.stepper import Timeline


class Challenge:
    """The learner is the scheduler: each client's program, moved one step at a time. In
    a part with no steps (every client a program) a move lets the program's next command
    through the gate. A client whose program has ended has no move left, whatever its steps."""

    def __init__(self, pg: Playground, scenario: Scenario, executor: Executor | None = None,
                 sink=None) -> None:
        if scenario.challenge is None:
            raise ValueError(f"{scenario.id} has no [challenge]")
        self.pg = pg
        self.scenario = scenario
        self.spec = scenario.challenge
        self.part = scenario.parts[self.spec.part]
        self.programs: dict[str, list[Step]] = {
            c: [s for s in self.part.steps if s.client == c] for c in scenario.clients}
        self.moves: list[str] = []
        self.results: list[StepResult] = []
        self.bound_results: list[StepResult] = []
        self.runner = Runner(pg, executor=executor, sink=sink, lesson_time=True)
        self.runner.programs.lenient = True  # in the learner's order a program may send fewer commands
        self.timeline = Timeline()
        self.stepless = not self.part.steps and bool(scenario.programs)  # the moves: the programs' commands
        self.ended: set[str] = set()  # clients whose program has ended

    def say_in(self, scenario: Scenario) -> None:
        """The same challenge in another language (F12): its texts from now on.

        Args:
            scenario: the open challenge loaded again in the new language.
        """
        self.scenario = scenario

    def position(self, client: str) -> int:
        return sum(1 for r in self.results if r.step.client == client)

    def next_for(self, client: str) -> Step | None:
        if client in self.ended:
            return None
        if self.stepless:
            from playground.scenario.programs.lesson_steps import next_move
            move = next_move(client, len(self.results) + 1)
            if client in self.runner.waiting:  # its command blocked: this move takes its reply
                return replace(move, display=tr("(reply arrives)"), release=False, blocking=False, wait=True)
            return move
        program = self.programs[client]
        i = self.position(client)
        return program[i] if i < len(program) else None

    @property
    def finished(self) -> bool:
        return all(self.next_for(c) is None for c in self.programs)

    def bound_to(self, client: str) -> str | None:
        """Whose step the client's next step is bound to (`bound = true`), while that step
        has not run: the client cannot move on its own, it moves with that step."""
        step = self.next_for(client)
        if step is None or not step.bound:
            return None
        before = self.part.steps[next(i for i, s in enumerate(self.part.steps) if s is step) - 1]
        ran = self.position(before.client) > self.programs[before.client].index(before)
        return None if ran else before.client

    def shown(self, client: str) -> tuple[list[Step], int]:
        """The client's moves as the narration lists them, and how many of them ran: its
        steps; with no steps, the commands its program sent, then the one it holds."""
        def as_sent(result) -> Step:  # the command as it went (a secret's value redacted)
            return replace(result.step, display=redact_line(result.command, list(result.argv or ())))

        ran = [r for r in self.results if r.step.client == client]
        if not self.stepless:
            steps, done = self.programs[client], self.position(client)
            if not any(s.release for s in steps):
                return steps, done
            # a program's steps: what it sent, the command it holds, "…" for what it has not sent yet
            shown = [as_sent(r) if r.command else r.step for r in ran]
            rest = list(steps[done:])
            if rest and client not in self.ended and rest[0].release:
                held = self.runner.preview(rest[0])
                shown.append(replace(rest[0], display=held if held != rest[0].display else "…"))
                rest = rest[1:]
            return shown + [replace(s, display="…") if s.release else s for s in rest], done
        sent, step = [as_sent(r) for r in ran if r.command], self.next_for(client)
        return sent + ([replace(step, display=self.runner.preview(step))] if step else []), len(sent)

    def failure(self, client: str) -> str | None:
        """The one line saying how the client's program ended badly, if it did."""
        program = self.runner.programs.running.get(client)
        return program.failure() if program is not None and program.exited else None

    async def blocked(self, client: str) -> bool:
        """The client's command is blocked at the server: it cannot move until another does."""
        pending = self.runner.waiting.get(client)
        return pending is not None and not await pending[0].settle()

    async def _look(self) -> None:
        """Which programs have ended (each one that is not at the gate is waited for: the
        verdict comes as soon as the last one ends, not a key press later). One whose blocked
        command's reply no move took yet has that move left."""
        for client in self.programs:
            if client in self.ended or client in self.runner.waiting:
                continue
            if await self.runner.programs.has_ended(client):
                self.ended.add(client)

    async def reset(self) -> None:
        self.moves, self.results, self.timeline, self.ended = [], [], Timeline(), set()
        self.pg.restart_numbering()
        if not await self.runner.begin_part(self.scenario, self.part):
            await self._look()

    async def move(self, client: str) -> StepResult | None:
        """The client's next step, and then each step bound to it (`bound = true`: it
        moves with the one before it, whoever's it is); `bound_results` holds those."""
        step = self.next_for(client)
        self.bound_results = []
        if step is None or self.bound_to(client) or await self.blocked(client):
            return None
        result = await self._run(step)
        self.moves.append(client)
        index = next((i for i, s in enumerate(self.part.steps) if s is step), len(self.part.steps)) + 1
        while index < len(self.part.steps) and self.part.steps[index].bound \
                and self.next_for(self.part.steps[index].client) is self.part.steps[index]:
            self.bound_results.append(await self._run(self.part.steps[index]))
            index += 1
        await self._look()
        if self.finished:  # every client is done: the lesson's time runs again (its TTLs count down)
            await self.runner.close_clock()
        return result

    async def _run(self, step: Step) -> StepResult:
        result = await self.runner.run_step(self.scenario, self.part.name, _unchecked(step))
        await self.pg.refresh_states()
        self.results.append(result)
        self.timeline.add_result(result)
        return result

    async def undo(self) -> None:
        """Take back the last move: replay the others on a fresh server."""
        moves = self.moves[:-1]
        await self.reset()
        for client in moves:
            await self.move(client)

    async def won(self) -> bool | None:
        """None until every client is done (out of steps, or its program ended); then
        whether the goal state was produced."""
        if not self.finished:
            return None
        results = await check_state(self.pg, self.spec.state)
        return all(r.ok for r in results)

    async def final_keys(self) -> list[tuple[bytes, KeyInfo | None]]:
        """The goal's keys as the key inspector shows them now, each with its row (type,
        TTL, a preview of its value), or None where the key is absent."""
        keys = list(dict.fromkeys(check.key for check in self.spec.state))
        rows = await self.pg.reader.rows(keys) if self.pg.reader is not None else {}
        return [(key, rows.get(key)) for key in keys]


def _unchecked(step: Step) -> Step:
    """In a challenge the order is the learner's: the scripted reply checks do not apply."""
    return replace(step, reply=None, error=None, match=None, state=(), predict=None, pause=None,
                   per_server={})

