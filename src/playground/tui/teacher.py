"""Teaching mode in the TUI: drives the engine's Stepper or Challenge, types each step
into its pane, and keeps the narration panel up to date."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text

from playground.scenario import transcript as report
from playground.i18n import N_, tr, tr_check
from playground.scenario.runner import ScenarioResult, StepResult
from playground.scenario.model import Scenario
from playground.scenario.stepper import Challenge, Stepper
from .challenge_moves import ChallengeMoves
from .client_pane import ClientPane
from .teaching_screens import JumpScreen, PredictScreen, TimelineScreen
from .teaching_text import script_block, time_ran_out

TYPING_SPEEDS = [0, 20, 40, 80, 160]  # characters per second; 0 = no typing animation


class Teacher(ChallengeMoves):
    """One open scenario (step mode or challenge mode) in the app."""

    def __init__(self, screen, scenario: Scenario, challenge: bool = False) -> None:
        self.screen = screen  # the lesson's or the challenge's screen: its panes and narration
        self.app = app = screen.app
        self.scenario = scenario
        self.stepper = None if challenge else Stepper(app.playground, scenario, app.executor, self.on_event)
        self.challenge = Challenge(app.playground, scenario, app.executor, self.on_event) if challenge else None
        self.speed_index = 2
        self.autoplay = False
        self.answers: dict[int, int] = {}     # step index -> chosen answer
        self.message = Text()                 # what the last action has to say
        self.diverged: set[bytes] = set()     # keys free typing changed under the scenario
        self.started_at = time.monotonic()    # the scenario clock (restarts with r)
        self.ran_at: list[float] = []         # when each step ran (to tell a TTL ran out)
        self.sleep_until: float | None = None  # a `sleep` step is letting time pass
        self.won: bool | None = None          # a challenge's outcome once both are done

    # -- helpers ------------------------------------------------------------------

    @property
    def speed(self) -> int:
        return TYPING_SPEEDS[self.speed_index]

    def pane(self, client: str) -> ClientPane:
        return self.screen.pane(client)

    def clear_panes(self) -> None:
        for name in self.scenario.clients:
            self.pane(name).action_clear()
            self.pane(name).clear_input()

    def on_event(self, event) -> None:
        """The executor's events for the steps: the panes show each step whole
        (`show_result`), so only what happens besides the reply is drawn here."""
        from playground.engine import events as ev

        if isinstance(event, ev.Message):
            self.pane(event.client).handle(event)
        elif isinstance(event, ev.Notice) and not isinstance(event, (ev.Refused, ev.ServerGone)):
            self.pane(event.client).note(event.text)

    async def after_step(self, result: StepResult | None) -> None:
        """State lines, inspector: once per step, like a typed command, once the
        executor has attributed the step's writes from its units."""
        await self.app.executor.attributed()
        self.app.refresh_everything()

    # -- step mode ----------------------------------------------------------------

    async def begin(self) -> None:
        """From the top, with nothing left of before: a fresh server holding only the first
        part's setup (the state before step 1), clients in no MULTI or WATCH, empty panes,
        no answers, no score, the clock at 0:00."""
        self.clear_panes()
        self.answers.clear()
        self.ran_at = []
        self.won = None
        self.sleep_until = None
        if self.challenge is not None:
            await self.challenge.reset()
        else:
            await self.stepper.start()  # a fresh server with the first part's setup: the state before step 1
        self.app.playground.writes.forget()
        self.started_at = time.monotonic()
        self.diverged.clear()
        self.message = Text((tr("Press Space (or n) for the first step.") + "\n") if self.stepper else
                            (tr("Choose who moves: a for A, b for B. u undoes a move.") + "\n"), style="italic")
        if self.stepper is not None and self.stepper.error:
            self.message = Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
        await self.after_step(None)
        self.render()

    async def next(self) -> None:
        if self.challenge is not None:
            self.message = Text(tr("Challenge mode: a moves A, b moves B."), style="italic")
            self.render()
            return
        nxt = self.stepper.next_step()
        if nxt is None:
            self.autoplay = False
            self.message = Text(tr("The scenario is over. r restarts it; x closes it."), style="italic")
            self.render()
            return
        index = self.stepper.cursor
        part, step = nxt
        if step.predict and index not in self.answers and await self.stepper.runner.skip_reason(step):
            self.answers[index] = 0  # the step will not run: nothing to predict, not scored
        if step.predict and index not in self.answers:
            self.autoplay = False
            shown = f"{step.client}> {self.stepper.runner.preview(step)}"  # ${n} filled in, as it will be sent
            choice = await self.app.push_screen_wait(
                PredictScreen(step.predict, shown, script_block(self.scenario, step.display)))
            self.answers[index] = choice or 0  # 0: skipped (Escape), not scored
        pane = self.pane(step.client)
        if not step.wait:
            await pane.type_out(self.stepper.runner.preview(step), self.speed)
        result = await self._run_step(index)
        pane.clear_input()
        if result is None:
            self.message = Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
            self.render()
            return
        self.message = self._explain(index, result)
        while result is not None and not self.stepper.error and self.stepper.bound_next():  # bound steps: at once, untyped
            index = self.stepper.cursor
            if (result := await self._run_step(index)) is not None:
                self.message.append_text(self._explain(index, result))
        if self.stepper.error:  # it did not answer in time: the scenario stops here
            self.autoplay = False
            self.message = Text(tr("The scenario stopped: {error}", error=self.stepper.error) + "\n"
                                + tr("r restarts it; x closes it."), style="bold red")
        if step.pause:
            self.autoplay = False
        await self.after_step(result)
        self.render()

    async def _run_step(self, index: int) -> StepResult | None:
        """Run the next step (a part separator first when it starts a part), show it in
        its pane, and remember when it ran; a `sleep` step counts down meanwhile."""
        part_index, step = self.stepper.flat[index]
        previous = self.stepper.flat[index - 1][0] if index else None
        name = self.scenario.parts[part_index].name
        if part_index != previous and (name or index):
            self.part_separator(name or tr("part {n}", n=part_index + 1))
        self.ran_at[index:] = [time.monotonic()]
        if step.sleep:
            self.sleep_until = time.monotonic() + step.sleep
            self.render()
        try:
            result = await self.stepper.step()
        finally:
            self.sleep_until = None
        if result is not None:
            self.pane(result.step.client).show_result(result)
        return result

    def part_separator(self, name: str) -> None:
        for client in self.scenario.clients:
            self.pane(client).separator(name)

    def _explain(self, index: int, result: StepResult) -> Text:
        text = Text()
        step = result.step
        if result.skipped:
            text.append(tr("– skipped: {reason}", reason=result.skipped) + "\n", style="yellow")
        failed = [c for c in result.checks if not c.ok]
        if failed:
            for c in failed:
                text.append(tr(" ✗ MISMATCH {what}: {detail} ", what=tr_check(c.what), detail=c.detail) + "\n",
                            style="bold white on red")
            why = time_ran_out(self.stepper.results, self.ran_at, index) if self.stepper else None
            if why:
                text.append(tr("Time, not the server: {why}", why=why) + "\n", style="bold yellow")
            else:
                text.append(tr("The server disagrees with the lesson: check the scenario or the server.") + "\n",
                            style="bold red")
        elif result.checks:  # the pane has them on one line; here a mark is enough
            agrees = (tr("✓ the server agrees (1 check) ") if len(result.checks) == 1 else
                      tr("✓ the server agrees ({count} checks) ", count=len(result.checks)))
            text.append(agrees, style="green")
        if step.narration:
            text.append(step.narration + "\n")
        if step.predict and self.answers.get(index):
            choice = self.answers[index]
            right = choice == step.predict.answer
            text.append((tr("✓ You predicted right. ") if right else
                         tr("✗ You chose {choice}; the answer is {answer}. ", choice=choice, answer=step.predict.answer)),
                        style="bold green" if right else "bold red")
            text.append(step.predict.explain + "\n", style="italic")
        if step.pause:
            text.append(f"⏸ {step.pause}\n", style="bold yellow")
        return text

    async def previous(self) -> None:
        if self.challenge is not None:
            await self.undo()
            return
        if self.stepper.cursor == 0:
            return
        await self.goto(self.stepper.cursor - 1)

    async def goto(self, index: int) -> None:
        await self.stepper.goto(index)
        self.rebuild()
        self.diverged.clear()
        note = tr("Rewound: fresh server, steps 1 to {count} replayed.", count=self.stepper.cursor)
        if self.stepper.time_dependent:
            note += tr(" TTLs restart from the replay, so times are approximate.")
        self.message = Text(note, style="italic")
        await self.after_step(None)
        self.render()

    def rebuild(self) -> None:
        """The panes show exactly the steps that have run (after a rewind or jump)."""
        self.clear_panes()
        last_part = None
        for index, result in enumerate(self.stepper.results):
            part_index = self.stepper.flat[index][0]
            name = self.scenario.parts[part_index].name
            if part_index != last_part and (name or index):
                self.part_separator(name or tr("part {n}", n=part_index + 1))
            last_part = part_index
            self.pane(result.step.client).show_result(result)
        now = time.monotonic()
        self.ran_at = [now] * len(self.stepper.results)

    async def restart(self) -> None:
        await self.begin()

    async def run_to_end(self) -> None:
        """Every remaining step, without typing and without asking (predictions left
        unanswered are skipped, not scored); the header follows each step."""
        self.autoplay = False
        while self.stepper is not None and not self.stepper.finished:
            index = self.stepper.cursor
            result = await self._run_step(index)
            if result is None:
                self.message = Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
                break
            self.message = self._explain(index, result)
            await self.after_step(result)
            self.render()
        self.render()

    async def jump(self) -> None:
        if self.stepper is None:
            return
        n = await self.app.push_screen_wait(JumpScreen(len(self.stepper.flat)))
        if n is not None:
            await self.goto(n - 1)

    async def rewind_here(self) -> None:
        if self.stepper is not None:
            await self.goto(self.stepper.cursor)

    def faster(self) -> None:
        self.speed_index = min(self.speed_index + 1, len(TYPING_SPEEDS) - 1)
        self.render()

    def slower(self) -> None:
        self.speed_index = max(self.speed_index - 1, 0)
        self.render()

    # -- every schedule (the race explorer) -----------------------------------------

    async def explore(self) -> None:
        """Run every schedule of the current part (the challenge's in challenge mode) on
        servers of its own and show the outcomes; the one picked opens as a scenario of
        its own order. Esc comes back to the same step, with the same keys and clients
        (the lesson's server was never touched)."""
        from playground.explore.explorer import ExploreError
        from playground.explore.free_play import explore_apart
        from playground.explore.schedule_replay import schedule_scenario
        from playground.server import ServerError, choose_binary
        from .explore_screen import ExploreScreen

        part = self.scenario.challenge.part + 1 if self.challenge is not None else 1
        if self.stepper is not None and self.stepper.next_step() is not None:
            part = self.scenario.parts.index(self.stepper.next_step()[0]) + 1
        before = self.message
        self.message = Text(tr("Running every schedule on a server of its own…"), style="italic")
        self.render()
        server = self.app.playground.server
        try:
            binary = server.binary if server is not None else choose_binary(None)
            result = await explore_apart(self.scenario, part, binary)
        except (ExploreError, ServerError, OSError) as exc:
            self.message = Text(str(exc), style="bold red")
            self.render()
            return
        self.message = before
        self.render()
        picked = await self.app.push_screen_wait(ExploreScreen(result))
        if picked is not None:
            self.app.call_later(self.app.open_scenario, schedule_scenario(result, result.classes[picked]))

    # -- views --------------------------------------------------------------------

    def timeline_text(self) -> str:
        source = self.challenge or self.stepper
        lanes = len(self.scenario.clients) or 1
        box = min(110, int(self.app.size.width * 0.9)) - 8   # the timeline modal's inside
        width = max(24, min(60, (box - 3 * (lanes - 1)) // lanes))
        return source.timeline.render_text(self.scenario.clients, width)

    def export_timeline(self) -> Path | None:
        source = self.challenge or self.stepper
        return self.app.write_export(f"{self.scenario.id}-timeline.md",
                                     f"# {self.scenario.title}\n\n" + source.timeline.render_markdown(self.scenario.clients),
                                     N_("timeline written to {path}"))

    async def show_timeline(self) -> None:
        self.app.push_screen(TimelineScreen(self.timeline_text(), self.export_timeline))

    def transcript_markdown(self) -> str:
        results = self.challenge.results if self.challenge else self.stepper.results
        result = ScenarioResult(self.scenario, self.app.playground.label, steps=list(results))
        return report.render_markdown(result)

    def score(self) -> tuple[int, int]:
        answered = {i: c for i, c in self.answers.items() if c}  # 0: skipped
        right = sum(1 for i, choice in answered.items()
                    if self.stepper and choice == self.stepper.flat[i][1].predict.answer)
        return right, len(answered)

    @property
    def presenter(self) -> bool:
        return self.screen.has_class("-presenter")

    def tick(self) -> None:
        """Once a second (more often while a `sleep` step waits): the clock moves."""
        self.render()

    def render(self) -> None:
        from .teacher_view import narration_text

        self.screen.narration.body = narration_text(self)

    def note_free_command(self, keys: set[bytes]) -> None:
        """A command typed by hand wrote `keys`; warn if the scenario depends on them."""
        if self.stepper is None:
            return
        hit = keys & self.stepper.scenario_keys()
        if hit:
            self.diverged |= hit
            self.render()
