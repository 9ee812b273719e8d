"""Teaching mode in the TUI: drives the engine's Stepper or Challenge, types each step
into its pane, and keeps the narration panel up to date."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from playground.scenario import transcript as report
from playground.history import state_dir
from playground.i18n import tr, tr_check
from playground.scenario.runner import ScenarioResult, StepResult
from playground.scenario.model import Scenario
from playground.scenario.stepper import Challenge, Stepper
from .client_pane import ClientPane
from .teaching_screens import JumpScreen, PredictScreen, TimelineScreen

TYPING_SPEEDS = [0, 20, 40, 80, 160]  # characters per second; 0 = no typing animation


class Teacher:
    """One open scenario (step mode or challenge mode) in the app."""

    def __init__(self, app, scenario: Scenario, challenge: bool = False) -> None:
        self.app = app
        self.scenario = scenario
        self.stepper = None if challenge else Stepper(app.playground, scenario, app.executor, self.on_event)
        self.challenge = Challenge(app.playground, scenario, app.executor, self.on_event) if challenge else None
        self.speed_index = 2
        self.autoplay = False
        self.answers: dict[int, int] = {}     # step index -> chosen answer
        self.message = Text()                 # what the last action has to say
        self.diverged: set[bytes] = set()     # keys free typing changed under the scenario

    # -- helpers ------------------------------------------------------------------

    @property
    def speed(self) -> int:
        return TYPING_SPEEDS[self.speed_index]

    def pane(self, client: str) -> ClientPane:
        return self.app.query_one(f"#pane-{client}", ClientPane)

    def clear_panes(self) -> None:
        for name in self.scenario.clients:
            self.pane(name).action_clear()

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
        self.clear_panes()
        if self.challenge is not None:
            await self.challenge.reset()
        else:
            await self.stepper.start()
        self.diverged.clear()
        self.message = Text(tr("Press Space (or n) for the first step.") if self.stepper else
                            tr("Choose who moves: a for A, b for B. u undoes a move."), style="italic")
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
        if step.predict and index not in self.answers:
            self.autoplay = False
            choice = await self.app.push_screen_wait(PredictScreen(step.predict, f"{step.client}> {step.display}"))
            self.answers[index] = choice
        pane = self.pane(step.client)
        if not step.wait:
            await pane.type_out(self.stepper.runner.preview(step), self.speed)
        result = await self.stepper.step()
        pane.clear_input()
        if result is None:
            self.message = Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
            self.render()
            return
        pane.show_result(result)
        self.message = self._explain(index, result)
        if step.pause:
            self.autoplay = False
        await self.after_step(result)
        self.render()

    def _explain(self, index: int, result: StepResult) -> Text:
        text = Text()
        step = result.step
        if result.skipped:
            text.append(tr("– skipped: {reason}", reason=result.skipped) + "\n", style="yellow")
        failed = [c for c in result.checks if not c.ok]
        if failed:
            for c in failed:
                text.append(tr(" ✗ MISMATCH {what}: {detail} ", what=tr_check(c.what), detail=c.detail) + "\n", style="bold white on red")
            text.append(tr("The server disagrees with the lesson: check the scenario or the server.") + "\n",
                        style="bold red")
        elif result.checks:
            text.append("✓ " + tr(", ").join(tr_check(c.what) for c in result.checks) + "\n", style="green")
        if step.narration:
            text.append(step.narration + "\n")
        if step.predict and index in self.answers:
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
        for result in self.stepper.results:
            self.pane(result.step.client).show_result(result)

    async def restart(self) -> None:
        await self.begin()

    async def run_to_end(self) -> None:
        while self.stepper is not None and not self.stepper.finished:
            nxt = self.stepper.next_step()
            if nxt and nxt[1].predict and self.stepper.cursor not in self.answers:
                await self.next()  # still ask
                continue
            index = self.stepper.cursor
            result = await self.stepper.step()
            if result is None:
                break
            self.pane(result.step.client).show_result(result)
            self.message = self._explain(index, result)
            await self.after_step(result)
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

    # -- challenge mode -----------------------------------------------------------

    async def move(self, client: str) -> None:
        if self.challenge is None:
            return
        if client not in self.challenge.programs or self.challenge.next_for(client) is None:
            self.message = Text(tr("{client} has nothing left to do.", client=client), style="yellow")
            self.render()
            return
        step = self.challenge.next_for(client)
        pane = self.pane(client)
        await pane.type_out(self.challenge.runner.preview(step), self.speed)
        result = await self.challenge.move(client)
        pane.clear_input()
        pane.show_result(result)
        await self.after_step(result)
        won = await self.challenge.won()
        if won is None:
            self.message = Text()
        elif won:
            self.message = Text(tr("🏁 You produced the race on the real server: {goal}\n"
                                "u undoes moves, r starts again.", goal=self.spec_goal()), style="bold green")
        else:
            self.message = Text(tr("Both programs are done, but the race did not happen. "
                                "u undoes moves; try another order."), style="bold yellow")
        self.render()

    def spec_goal(self) -> str:
        return self.scenario.challenge.goal if self.scenario.challenge else ""

    async def undo(self) -> None:
        if self.challenge is None or not self.challenge.moves:
            return
        await self.challenge.undo()
        self.clear_panes()
        for result in self.challenge.results:
            self.pane(result.step.client).show_result(result)
        self.message = Text(tr("Move undone (the other moves were replayed on a fresh server)."), style="italic")
        await self.after_step(None)
        self.render()

    # -- every schedule (the race explorer) -----------------------------------------

    async def explore(self) -> None:
        """Run every schedule of the current part (the challenge's in challenge mode),
        show the outcomes; the one picked opens as a scenario of its own order."""
        from playground.explore.explorer import ExploreError, Explorer, schedule_scenario
        from .explore_screen import ExploreScreen

        part = self.scenario.challenge.part + 1 if self.challenge is not None else 1
        if self.stepper is not None and self.stepper.next_step() is not None:
            part = self.scenario.parts.index(self.stepper.next_step()[0]) + 1
        self.message = Text("Running every schedule on the server…", style="italic")
        self.render()
        try:
            result = await Explorer(self.app.playground, self.scenario, part, limit=2000,
                                    executor=self.app.executor, sink=lambda event: None).explore()
        except ExploreError as exc:
            self.message = Text(str(exc), style="bold red")
            self.render()
            return
        finally:
            self.clear_panes()
        picked = await self.app.push_screen_wait(ExploreScreen(result))
        if picked is None:
            await self.begin()
            return
        self.app.call_later(self.app.open_scenario, schedule_scenario(result, result.classes[picked]))

    # -- views --------------------------------------------------------------------

    def timeline_text(self) -> str:
        source = self.challenge or self.stepper
        return source.timeline.render_text(self.scenario.clients)

    def export_timeline(self) -> Path:
        source = self.challenge or self.stepper
        return _write(f"{self.scenario.id}-timeline.md",
                      f"# {self.scenario.title}\n\n" + source.timeline.render_markdown(self.scenario.clients))

    async def show_timeline(self) -> None:
        self.app.push_screen(TimelineScreen(self.timeline_text(), self.export_timeline))

    def transcript_markdown(self) -> str:
        results = self.challenge.results if self.challenge else self.stepper.results
        result = ScenarioResult(self.scenario, self.app.playground.label, steps=list(results))
        return report.render_markdown(result)

    def score(self) -> tuple[int, int]:
        right = sum(1 for i, choice in self.answers.items()
                    if self.stepper and choice == self.stepper.flat[i][1].predict.answer)
        return right, len(self.answers)

    def render(self) -> None:
        panel = self.app.narration
        text = Text()
        text.append(self.scenario.title, style="bold")
        text.append(f"   ({self.scenario.id})\n", style="dim")
        text.append(" ".join(self.scenario.lesson.split()) + "\n", style="italic")
        if self.challenge is not None:
            text.append(tr("Challenge: {goal}", goal=self.spec_goal()) + "\n", style="bold magenta")
            for client, program in self.challenge.programs.items():
                done = self.challenge.position(client)
                text.append(f"{client}: ", style="bold")
                for i, step in enumerate(program):
                    style = "dim strike" if i < done else ("bold reverse" if i == done else "")
                    text.append(step.display, style=style)
                    text.append("  ")
                text.append("\n")
            text.append(tr("keys: a/b move a client · u undo · r restart · t timeline · x close") + "\n", style="dim")
        else:
            st = self.stepper
            total = len(st.flat)
            nxt = st.next_step()
            part = nxt[0] if nxt else (self.scenario.parts[st.flat[-1][0]] if st.flat else None)
            where = tr("step {n} of {total}", n=min(st.cursor + 1, total), total=total) if nxt else tr("done: {total} steps", total=total)
            if part is not None and part.name:
                where += tr(" · part: {name}", name=part.name)
            right, asked = self.score()
            if asked:
                where += tr(" · predictions {right}/{asked}", right=right, asked=asked)
            where += tr(" · typing {speed}", speed=tr("off") if not self.speed else f'{self.speed}/s')
            if self.autoplay:
                where += tr(" · autoplay ▶")
            text.append(where + "\n", style="bold cyan")
            if nxt is not None:
                p, step = nxt
                shown = (tr("({client}'s pending reply arrives)", client=step.client) if step.wait
                         else f"{step.client}> {st.runner.preview(step)}")
                text.append(tr("next: {step}", step=shown) + "\n", style="cyan")
            text.append(tr("keys: Space next · p previous · r restart · e end · o autoplay · g go to · "
                        "t timeline · f presenter · x close") + "\n", style="dim")
        if self.diverged:
            names = ", ".join(sorted(k.decode(errors="replace") for k in self.diverged))
            text.append(tr("You changed {keys} by hand: the next steps may not match the lesson. "
                        "w rewinds to this step.", keys=names) + "\n", style="bold yellow")
        text.append_text(self.message)
        panel.body = text

    def note_free_command(self, keys: set[bytes]) -> None:
        """A command typed by hand wrote `keys`; warn if the scenario depends on them."""
        if self.stepper is None:
            return
        hit = keys & self.stepper.scenario_keys()
        if hit:
            self.diverged |= hit
            self.render()


def _write(name: str, text: str) -> Path:
    directory = state_dir() / "exports"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path

