"""A yes/no modal, in the style of posting's widgets/confirmation.py."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from playground.i18n import again, current_language, tr
from playground.tui.plain_text import visible_text


class ConfirmScreen(ModalScreen[bool]):
    """Asks one question; dismisses with True (y / Enter on Yes) or False (n / Escape)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 60; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    ConfirmScreen Button { margin-left: 2; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: "str | Text") -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        question = again(self.question, current_language()) if isinstance(self.question, str) else self.question
        with Vertical():
            yield Static(visible_text(question))  # it can name a scenario
            with Horizontal():
                yield Button(tr("No"), id="no")
                yield Button(tr("Yes"), id="yes", variant="error")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def say_again(self) -> None:
        """The question and the buttons in the language shown now (F12)."""
        self.refresh(recompose=True)
        self.call_after_refresh(lambda: self.query_one("#no", Button).focus())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
