"""Class mode's screens (serve --class): a learner's name, the teacher's class overview
(who is on which step, who won the challenge; m: follow me / own pace) and the teacher's
live histogram of the class's answers before a prediction is revealed."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, Static

from playground.classroom.protocol import FOLLOW, MAX_NAME
from playground.i18n import tr
from playground.scenario.model import Prediction
from playground.tui.plain_text import plain, visible
from playground.tui.dialogs.scenario_dialogs import choice_label
from playground.tui.scenario_runs.teaching_text import step_shown

if TYPE_CHECKING:
    from playground.tui.class_mode.class_member import ClassMember
    from playground.tui.class_mode.class_mode import ClassHost

BAR = 30  # cells of the longest bar in the histogram


def mode_name(mode: str) -> str:
    """A class's mode as the screens say it (follow me, own pace)."""
    return tr("follow me") if mode == FOLLOW else tr("own pace")


class LearnerNameScreen(ModalScreen[str]):
    """A learner's name, for the teacher's overview: at most MAX_NAME characters, a longer
    one refused with a word (not cut without one)."""

    CSS_PATH = "class_screens.tcss"

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Class")
            yield Label(tr("Your name, as your teacher will see it (at most {most} characters; Enter):",
                           most=MAX_NAME))
            yield Input(max_length=4 * MAX_NAME, id="name")  # (a paste of a page is not kept whole)
            yield Static(id="name-refused")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if len(name) > MAX_NAME:
            self.query_one("#name-refused", Static).update(Text(tr(
                "That is {count} characters: a name has at most {most}. Shorten it, then Enter.",
                count=len(name), most=MAX_NAME), style="bold red"))
            return
        self.dismiss(name)


class ClassRedraw:
    """A screen redrawn (by `draw`, in a worker of `group`) whenever the class changes,
    while it is shown: the screen starts it when mounted and stops it when unmounted."""

    def __init__(self, screen: Screen[Any], member: ClassMember, draw: Callable[[], Awaitable[None]],
                 group: str) -> None:
        """Args:
            screen: the screen redrawn (its workers run the drawing).
            member: the app's part in the class, which says when the class changed.
            draw: what draws the screen anew (asks the class, then updates the widgets).
            group: the workers' group (a redraw replaces the one still running).
        """
        self.screen = screen
        self.member = member
        self.draw = draw
        self.group = group

    def start(self) -> None:
        """Drawn now, and again at each change of the class."""
        self.member.watch(self.reload)
        self.reload()

    def stop(self) -> None:
        """No more redraws (the screen is gone)."""
        self.member.unwatch(self.reload)

    def reload(self, message: dict[str, Any] | None = None) -> None:
        """Draw the screen anew (`message`: the class's change, if one caused it). The worker
        gets the coroutine function, not a coroutine: a reload cancelled by the next before
        it starts leaves no coroutine never awaited."""
        self.screen.run_worker(self.draw, group=self.group, exclusive=True, exit_on_error=False)


class ClassAnswersScreen(ModalScreen[bool]):
    """The teacher's step asks a question: the class's answers come in as a histogram;
    Enter reveals (runs the step), Esc goes back without it."""

    CSS_PATH = "class_screens.tcss"
    BINDINGS = [Binding("enter", "dismiss(True)", "Reveal"), Binding("escape", "dismiss(False)", "Back")]

    def __init__(self, member: ClassMember, step: int, prediction: Prediction, command: str) -> None:
        super().__init__()
        self.member = member
        self.step = step
        self.prediction = prediction
        self.command = command
        self.redraw = ClassRedraw(self, member, self._reload, "class-answers")

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = tr("The class predicts")
            box.border_subtitle = tr("Enter: reveal · Esc: back")
            yield Label(plain(self.command, style="bold"))
            yield Label(plain(self.prediction.question, style="bold"))
            yield Static(id="histogram")

    def on_mount(self) -> None:
        self.redraw.start()

    def on_unmount(self) -> None:
        self.redraw.stop()

    async def _reload(self) -> None:
        counts, learners = await self.member.answers(self.step)
        self.query_one("#histogram", Static).update(histogram(self.prediction, counts, learners))


def histogram(prediction: Prediction, counts, learners: int) -> Text:
    """One bar per choice, and how many have answered."""
    most = max(counts.values(), default=0) or 1
    text = Text()
    for number, choice in enumerate(prediction.choices, 1):
        count = counts.get(number, 0)
        text.append(visible(choice_label(number, choice)) + "\n")
        text.append("   " + "█" * max(1, round(BAR * count / most)) if count else "   ", style="bold cyan")
        text.append(f" {count}\n")
    answered = sum(counts.values())
    text.append("\n" + tr("{answered} of {learners} learners answered", answered=answered, learners=learners),
                style="italic")
    return text


def away_text(seconds: float) -> str:
    """How long a learner's tab has been closed, as the overview says it.

    Args:
        seconds: since it closed (a clock a little off another serve's: never below 0).
    """
    seconds = max(0, int(seconds))
    if seconds < 60:
        return tr("away {seconds} s", seconds=seconds)
    return tr("away {minutes} min", minutes=seconds // 60)


class ClassOverviewScreen(Screen[None]):
    """The teacher's view of the class: the lesson, the mode, and every learner's place."""

    CSS_PATH = "class_screens.tcss"
    BINDINGS = [Binding("escape", "app.pop_screen", "Back to the lesson"),
                Binding("m", "toggle_mode", "Follow me / own pace"),
                Binding("d", "release_place", "Release a place"), Binding("e", "export_answers", "Answers as CSV"),
                Binding("f7", "pick_lesson", "Pick the lesson")]

    def __init__(self, member: ClassMember) -> None:
        super().__init__()
        self.member = member
        self.redraw = ClassRedraw(self, member, self._reload, "class-overview")

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="overview") as box:
            box.border_title = tr("Class overview")
            box.border_subtitle = tr("m: follow me / own pace · d: release a place · e: answers as CSV · "
                                     "F7: pick the lesson · Alt+C or Esc: back")
            yield Static(id="class-state")
            yield Static(id="class-learners")

    AWAY_EVERY = 10.0  # seconds between two redraws for the "away" times (nothing else changes with time)

    def on_mount(self) -> None:
        self.redraw.start()
        self.set_interval(self.AWAY_EVERY, self.redraw.reload)

    def on_unmount(self) -> None:
        self.redraw.stop()

    def action_toggle_mode(self) -> None:
        self.run_worker(self.member.toggle_mode(), group="class-mode", exit_on_error=False)

    def action_pick_lesson(self) -> None:
        """F7, as its line says: back to the lesson's screen, the lessons to pick from over it
        (the mode screen's F7 is not bound here: it did nothing)."""
        self.app.pop_screen()
        self.app.call_later(self.app.run_action, "open_scenario")

    def action_release_place(self) -> None:
        from playground.tui.class_mode.class_places import release_place

        self.run_worker(release_place(self, self.member), group="class-release", exclusive=True, exit_on_error=False)

    def action_export_answers(self) -> None:
        from playground.tui.class_mode.class_places import export_answers

        async def export() -> Any:   # (a coroutine function: a worker cancelled before it starts awaits nothing)
            await export_answers(self.app, self.member)

        self.run_worker(export, group="class-export", exit_on_error=False)

    async def _reload(self) -> None:
        state, learners = await self.member.overview()
        lesson = visible(state.lesson) if state.lesson else tr("none yet (F7 picks one)")
        head = Text()
        head.append(tr("Lesson: {lesson}", lesson=lesson) + ("  " + tr("(challenge)") if state.challenge else ""),
                    style="bold")
        head.append("\n" + tr("Mode: {mode}", mode=mode_name(state.mode)))
        run = cast("ClassHost", self.app).scenario_run  # the teacher's tab: where it is, as its narration says it
        stepper = run.stepper if run is not None and run.scenario.id == state.lesson else None
        head.append("\n" + tr("You: {where}", where=step_shown(state.step, len(stepper.flat))  # (the class's step:
                                 if stepper is not None else "–"))  # sent at the key, before the projector types it)
        self.query_one("#class-state", Static).update(head)
        table = Table(expand=True)
        for column in (tr("Learner"), tr("Step"), tr("Predictions right"), tr("Challenge"), tr("Tab")):
            table.add_column(column)
        now = time.time()
        for learner in learners:
            current = learner.epoch == state.epoch and learner.lesson == state.lesson
            if current and learner.total:  # as the learner's tab says it (step N: the next one)
                step = step_shown(learner.step, learner.total)
            else:
                step = "–" if not current else str(learner.step)
            won = {True: tr("won"), False: tr("not yet"), None: "–"}[learner.won if current else None]
            table.add_row(plain(learner.name), step, f"{learner.right}/{learner.answered}" if current else "–", won,
                          Text(away_text(now - learner.away), style="bold yellow") if learner.away else "")
        if not learners:
            table.add_row(tr("no learner yet"), "", "", "", "")
        self.query_one("#class-learners", Static).update(table)
