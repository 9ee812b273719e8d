"""A lesson in the TUI: the engine's Stepper, each step typed into its pane (Space),
predictions asked before a step runs, rewinding by replay, running to the end."""

from __future__ import annotations

import time

from rich.text import Text

from playground.i18n import tr, tr_check
from playground.scenario.runner import StepResult
from playground.scenario.stepper import Stepper
from playground.tui.teaching.teacher import Teacher
from playground.tui.screens.teaching_screens import JumpScreen, PredictScreen
from playground.tui.teaching.teaching_text import script_block, time_ran_out


class LessonTeacher(Teacher):
    """A scenario stepped through, one step at a time."""

    def __init__(self, screen, scenario) -> None:
        super().__init__(screen, scenario)
        app = self.app
        self.stepper = Stepper(app.playground, scenario, app.executor, self.on_event)

    async def reset(self) -> None:
        await self.stepper.start()  # a fresh server with the first part's setup: the state before step 1

    def start_message(self) -> Text:
        if self.stepper.error:
            return Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
        return Text(tr("Press Space (or n) for the first step.") + "\n", style="italic")

    def explore_part(self) -> int:
        """The part on screen: the one whose step ran last (its replies are in the panes;
        also after the part's or the lesson's last step), else the one about to begin."""
        stepper = self.stepper
        if 0 < stepper.cursor <= len(stepper.flat):
            return stepper.flat[stepper.cursor - 1][0] + 1
        nxt = stepper.next_step()
        return self.scenario.parts.index(nxt[0]) + 1 if nxt is not None else 1

    async def next(self) -> None:
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
        self.message = self.explain(index, result)
        while result is not None and not self.stepper.error and self.stepper.bound_next():  # bound steps: at once, untyped
            index = self.stepper.cursor
            if (result := await self._run_step(index)) is not None:
                self.message.append_text(self.explain(index, result))
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
        self.ran_at[index:] = [self.stepper.runner.lesson_now()]  # the lesson's time: waits held
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

    def explain(self, index: int, result: StepResult) -> Text:
        text = Text()
        step = result.step
        if result.skipped:
            text.append(tr("– skipped: {reason}", reason=result.skipped) + "\n", style="yellow")
        failed = [c for c in result.checks if not c.ok]
        if failed:
            for c in failed:
                text.append(tr(" ✗ MISMATCH {what}: {detail} ", what=tr_check(c.what), detail=c.detail) + "\n",
                            style="bold white on red")
            why = time_ran_out(self.stepper.results, self.ran_at, index)
            typed = self._typed_over(result)
            if why:
                text.append(tr("Time, not the server: {why}", why=why) + "\n", style="bold yellow")
            elif typed:
                text.append(tr("Your own typing, not the server: you changed {keys} by hand, so the server's "
                               "state is not the lesson's. w replays the lesson up to here without it.",
                               keys=typed) + "\n", style="bold yellow")
            else:
                text.append(tr("The server disagrees with the lesson: check the scenario or the server.") + "\n",
                            style="bold red")
        elif result.checks:  # the pane has them on one line; here a mark is enough
            agrees = (tr("✓ the server agrees (1 check) ") if len(result.checks) == 1 else
                      tr("✓ the server agrees ({count} checks) ", count=len(result.checks)))
            text.append(agrees, style="green")
        if step.narration:
            text.append(step.narration + "\n")
        if step.predict and self.answers.get(index) and failed:
            self.answers[index] = 0  # never scored against the server: the lesson's answer did not happen
            text.append(tr("Your prediction is not scored: the server answered otherwise than the lesson "
                           "(why is said above).") + "\n", style="bold yellow")
        elif step.predict and self.answers.get(index):
            choice = self.answers[index]
            right = choice == step.predict.answer
            text.append((tr("✓ You predicted right. ") if right else
                         tr("✗ You chose {choice}; the answer is {answer}. ", choice=choice, answer=step.predict.answer)),
                        style="bold green" if right else "bold red")
            text.append(step.predict.explain + "\n", style="italic")
        if step.pause:
            text.append(f"⏸ {step.pause}\n", style="bold yellow")
        return text

    def _typed_over(self, result: StepResult) -> str:
        """The keys of this step that commands typed by hand changed (empty: none)."""
        keys = set((result.step.argv or ())[1:]) | {c.key for c in result.step.state}
        hit = sorted(k.decode("utf-8", "replace") for k in self.diverged & keys)
        return ", ".join(hit)

    async def previous(self) -> None:
        if self.stepper.cursor == 0:
            return
        await self.goto(self.stepper.cursor - 1)

    async def goto(self, index: int) -> None:
        await self.stepper.goto(index)
        if not self.answers_kept:
            for undone in [i for i in self.answers if i >= self.stepper.cursor]:
                del self.answers[undone]  # a step run again asks its prediction again
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
        now = self.stepper.runner.lesson_now()
        self.ran_at = [now] * len(self.stepper.results)

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
            self.message = self.explain(index, result)
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

    def score(self) -> tuple[int, int]:
        """Predictions right and answered, of the steps that have run: an answer given ahead
        (a class's learner answers before the teacher reveals) counts once its step runs,
        so that neither the learner's header nor the class's overview gives it away."""
        ran = self.stepper.cursor
        answered = {i: c for i, c in self.answers.items() if c and i < ran}  # 0: skipped
        right = sum(1 for i, choice in answered.items()
                    if choice == self.stepper.flat[i][1].predict.answer)
        return right, len(answered)

    def note_free_command(self, keys: set[bytes]) -> None:
        """A command typed by hand wrote `keys`; warn if the scenario depends on them."""
        hit = keys & self.stepper.scenario_keys()
        if hit:
            self.diverged |= hit
            self.render()
