"""A lesson in the TUI: the engine's Stepper, each step typed into its pane (Space),
predictions asked before a step runs, rewinding by replay, running to the end."""

from __future__ import annotations

import time

from rich.text import Text

from playground.engine.catalogue import ttl_read
from playground.i18n import tr, tr_check
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import redact_line
from playground.scenario.runner import StepResult
from playground.scenario.stepper import Stepper
from playground.tui.scenario_runs.scenario_run import ScenarioRun
from playground.tui.dialogs.scenario_dialogs import JumpScreen, PredictScreen
from playground.tui.scenario_runs.teaching_text import script_block, time_ran_out


class LessonRun(ScenarioRun):
    """A scenario stepped through, one step at a time."""

    stepper: Stepper  # (made with the run: never None here)

    def __init__(self, screen, scenario) -> None:
        super().__init__(screen, scenario)
        app = self.app
        self.stepper = Stepper(app.playground, scenario, app.executor, self.on_event)
        self._paths: dict[str, tuple] = {}  # each client's connection (_path) after the last step or typed command

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
            choice = await self.app.push_screen_wait(  # ${n} filled in, as it will be sent
                PredictScreen(step.predict, self.next_line(step), script_block(self.scenario, step.display)))
            self.answers[index] = choice or 0  # 0: skipped (Escape), not scored
        pane = self.pane(step.client)
        if not step.wait and step.kind != "server":  # (nobody types a server's action)
            await pane.type_out(self.stepper.runner.preview(step), self.speed)
        result = await self._run_step(index)
        pane.clear_input()
        if result is None:
            self.message = Text(tr("This part could not start: {error}", error=self.stepper.error), style="bold red")
            self.render()
            return
        first = index
        # bound steps: at once, untyped
        while result is not None and not self.stepper.error and self.stepper.bound_next():
            if (bound := await self._run_step(self.stepper.cursor)) is not None:
                result = bound
        self.message = self.explain_steps(first, self.stepper.cursor - 1)
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
        self.stepping = step.client
        try:
            result = await self.stepper.step()
        finally:
            self.sleep_until = None
            self.stepping = None
        if result is not None:
            self.show_result(result)
        return result

    def explain(self, index: int, result: StepResult, marked: bool = True) -> Text:
        """What the narration says once step `index` ran: its failed checks and why, else
        a mark that the server agrees (`marked`), the lesson's words for it (held back when
        the server did otherwise: they would tell what did not happen), the prediction."""
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
            typed = self.typed_text()
            if why:
                text.append(tr("Time, not the server: {why}", why=why) + "\n", style="bold yellow")
            elif typed:
                text.append(tr("Your own typing, not the server: you typed {commands}, so the server's state "
                               "is not the lesson's. p goes back to before this step without it.",
                               commands=typed) + "\n", style="bold yellow")
            else:
                text.append(tr("The server disagrees with the lesson: check the scenario or the server.") + "\n",
                            style="bold red")
            if step.narration:
                text.append(tr("(The lesson's words for this step are held back: they tell what the server "
                               "did not do.)") + "\n", style="italic dim")
        elif result.checks and marked:  # the pane has them on one line; here a mark is enough
            agrees = (tr("✓ the server agrees (1 check) ") if len(result.checks) == 1 else
                      tr("✓ the server agrees ({count} checks) ", count=len(result.checks)))
            text.append(agrees, style="green")
        if step.narration and not failed:
            text.append(step.narration + "\n")
        if step.predict and self.answers.get(index) and failed:
            self.answers[index] = 0  # never scored against the server: the lesson's answer did not happen
            text.append(tr("Your prediction is not scored: the server answered otherwise than the lesson "
                           "(why is said above).") + "\n", style="bold yellow")
        elif step.predict and self.answers.get(index):
            choice = self.answers[index]
            right = choice == step.predict.answer
            text.append((tr("✓ You predicted right. ") if right else
                         tr("✗ You chose {choice}; the answer is {answer}. ", choice=choice,
                            answer=step.predict.answer)),
                        style="bold green" if right else "bold red")
            text.append(step.predict.explain + "\n", style="italic")
        if step.pause:
            text.append(f"⏸ {step.pause}\n", style="bold yellow")
        return text

    def explain_steps(self, first: int, last: int) -> Text:
        """Steps `first` to `last` (a step and those bound to it, `bound = true`: one move)
        explained: one step as `explain` says it; a bound group in words, one line that the
        server agrees with every one of them, then each step's own words."""
        results = self.stepper.results
        if last <= first:
            return self.explain(first, results[first])
        group = [(i, results[i]) for i in range(first, last + 1)]
        text = Text()
        if all(c.ok for _, r in group for c in r.checks) and any(r.checks for _, r in group):
            checks = sum(len(r.checks) for _, r in group)
            text.append(tr("✓ Steps {first}–{last} as one move (bound): the server agrees with all {checks} checks.",
                           first=first + 1, last=last + 1, checks=checks) + "\n", style="green")
        for i, result in group:
            text.append_text(self.explain(i, result, marked=False))
        return text

    def explain_last(self) -> Text:
        """The last move explained again (F12: in the new language): the last step with the
        steps bound to it."""
        last = self.stepper.cursor - 1
        return self.explain_steps(self.stepper.group_start(last), last)

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
        self.typed.clear()
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
            self.show_result(result)
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
                self.message = Text(tr("This part could not start: {error}", error=self.stepper.error),
                                    style="bold red")
                break
            self.message = self.explain_last()  # (a bound group: the whole move, in words)
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
        predicts = {i: self.stepper.flat[i][1].predict for i in answered}
        right = sum(1 for i, choice in answered.items()
                    if (predict := predicts[i]) is not None and choice == predict.answer)
        return right, len(answered)

    def note_free_command(self, keys: set[bytes], unit=None) -> None:
        """A command typed by hand wrote `keys` (`unit`: the command or transaction that
        did); when the lesson depends on them, it is named as typed (`typed_text`)."""
        hit = keys & self.stepper.scenario_keys()
        if hit:
            if unit is not None:
                argv = list(unit.commands[0])
                self._typed(unit.client, "EXEC" if unit.kind == "transaction" else redact_line(format_argv(argv), argv))
            self.render()

    def note_typed(self, client: str, line: str, argv=()) -> None:
        """A command typed by hand in `client`'s pane ran: named as typed when it changed
        the client's connection (a WATCH, a MULTI, UNWATCH, SELECT ...: the lesson's next
        steps depend on it). Its key writes come apart (note_free_command). A TTL read
        while the lesson holds it says so under its reply."""
        key = ttl_read(argv)
        held = self.stepper.runner.clock.held_ttl(key) if key is not None else None
        if key is not None and held is not None:
            self.pane(client).note(tr("lesson time stands still between steps: {key}'s TTL is held at {seconds:.1f} s "
                                      "until the next step (after the last step it runs again)",
                                      key=key.decode("utf-8", "replace"), seconds=held / 1000))
        path = _path(self.app.playground.session(client).state)
        before, self._paths[client] = self._paths.get(client), path
        if before is not None and path != before:
            self._typed(client, redact_line(line))  # (HELLO 3 AUTH user pw: no password on the screen)
            self.render()

    def _typed(self, client: str, line: str) -> None:
        step = min(self.stepper.cursor + 1, len(self.stepper.flat))  # the step the header shows
        if (client, line, step) not in self.typed:
            self.typed.append((client, line, step))

    async def after_step(self, result: StepResult | None) -> None:
        await super().after_step(result)
        self._paths = {c: _path(s.state) for c, s in self.app.playground.sessions.items()}


def _path(state) -> tuple:
    """What of a client's connection the lesson's next steps depend on (a typed command that
    changes it changes the lesson's path)."""
    return (state.in_multi, state.queued, state.watched, state.subscriptions, state.db, state.resp,
            state.monitoring, state.disconnected)
