"""What the teacher does from the class overview (Alt+C) besides the mode: free a
learner's place (`d`: a picker of the learners; the learner's app ends, and with it their
session and their --max-tabs place), and take the class's answers as a CSV file (`e`:
under serve, a download in the teacher's browser)."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from playground.i18n import tr


class ReleasePlaceScreen(ModalScreen[str | None]):
    """The learners, one to pick (Enter): their place is freed. Esc: none."""

    CSS_PATH = "class_screens.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Back")]

    def __init__(self, learners) -> None:
        super().__init__()
        self.learners = learners

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Release a place")
            box.border_subtitle = tr("Enter: release · Esc: back")
            yield Label(tr("Whose place? Their session ends (their tab says so) and the place is free "
                           "for another tab."))
            yield OptionList(*(Option(Text(f"{learner.name}  ({learner.id[:4]})"), id=learner.id)
                               for learner in self.learners))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


async def release_place(screen, member) -> None:
    """`d` in the overview: pick a learner, free their place."""
    learners = await member.link.learners()
    if not learners:
        screen.notify(tr("No learner to release."))
        return
    chosen = await screen.app.push_screen_wait(ReleasePlaceScreen(learners))
    if chosen:
        name = next((learner.name for learner in learners if learner.id == chosen), chosen)
        await member.link.release(chosen)
        screen.notify(tr("{name}'s place is free.", name=name))


async def export_answers(app, member) -> None:
    """`e` in the overview: the class's answers, every run of every lesson, as CSV."""
    from playground.classroom.answers_csv import answers_csv
    from playground.history import exports_dir, write_failure, write_private
    from playground.served import delivered

    text = answers_csv(*await member.link.records())
    path = exports_dir() / f"class-answers-{datetime.now():%Y%m%d-%H%M%S}.csv"
    try:
        write_private(path, text)
    except OSError as exc:
        app.notify(write_failure(path, exc), severity="error", timeout=10)
        return
    if not delivered(app, path):
        app.notify(tr("The class's answers written to {path}", path=path))
