"""The narration panel of teaching mode: where the class looks between steps."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from playground.tui.widgets.wrapped_text import Wrapped
from playground.tui.plain_text import visible_text


class NarrationPanel(VerticalScroll, can_focus=True):
    """Title, lesson, progress and what just happened. The keys that drive the scenario
    are its screen's (lesson_screen.py, challenge_screen.py) and act while this panel
    has the focus. A narration longer than the panel scrolls (the arrows, PgUp/PgDn,
    Home, End: at 80×24 the panel has 8 rows)."""

    DEFAULT_CSS = """
    NarrationPanel { display: none; height: auto; max-height: 14; border: round $success;
                     padding: 0 1; scrollbar-size-vertical: 1; }
    NarrationPanel:focus { border: round $accent; }
    NarrationPanel.-open { display: block; }
    NarrationPanel > Static { width: 1fr; height: auto; }
    """

    body: reactive[Text] = reactive(Text(), always_update=True)
    """Everything the panel shows, built by the teacher."""

    def compose(self) -> ComposeResult:
        yield Static(Wrapped(visible_text(self.body)))

    def watch_body(self, body: Text) -> None:
        if self.is_mounted and self.children:
            self.query_one(Static).update(Wrapped(visible_text(body)))  # Chinese breaks between characters
