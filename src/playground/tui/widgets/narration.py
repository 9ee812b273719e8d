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

    _shown: Text | None = None
    """The text drawn last (visible_text of a body)."""

    def compose(self) -> ComposeResult:
        self._shown = visible_text(self.body)
        yield Static(Wrapped(self._shown))

    def watch_body(self, body: Text) -> None:
        if self.is_mounted and self.children:
            shown = visible_text(body)
            if shown == self._shown:  # the clock's tick, twice a second, with nothing new: not drawn again
                return  # (a class of 30 idle apps on 2 cores: each redraw is a layout of the whole screen)
            self._shown = shown
            self.query_one(Static).update(Wrapped(shown))  # Chinese breaks between characters
