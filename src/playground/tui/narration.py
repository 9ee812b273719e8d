"""The narration panel of teaching mode: where the class looks between steps."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from playground.tui.wrapped_text import Wrapped


class NarrationPanel(VerticalScroll, can_focus=True):
    """Title, lesson, progress and what just happened; the keys that drive the scenario.
    A narration longer than the panel scrolls (the arrows, PgUp/PgDn, Home, End: at 80×24
    the panel has 8 rows)."""

    DEFAULT_CSS = """
    NarrationPanel { display: none; height: auto; max-height: 14; border: round $success;
                     padding: 0 1; scrollbar-size-vertical: 1; }
    NarrationPanel:focus { border: round $accent; }
    NarrationPanel.-open { display: block; }
    NarrationPanel > Static { width: 1fr; height: auto; }
    """

    BINDINGS = [
        Binding("space,n", "app.teach('next')", "Next", key_display="Space"),
        Binding("p,backspace", "app.teach('previous')", "Prev", key_display="p"),
        Binding("r", "app.teach('restart')", "Restart"),
        Binding("e", "app.teach('end')", "End", show=False),  # F1 lists it: the footer keeps room for F1, F7
        Binding("o", "app.teach('autoplay')", "Autoplay", show=False),
        Binding("plus,equals_sign", "app.teach('faster')", "Faster", show=False),
        Binding("minus", "app.teach('slower')", "Slower", show=False),
        Binding("g", "app.teach('jump')", "Go to", show=False),
        Binding("w", "app.teach('rewind_here')", "Rewind here", show=False),
        Binding("t", "app.teach('timeline')", "Timeline", show=False),
        Binding("s", "app.teach('explore')", "Every schedule", show=False),
        Binding("a", "app.teach('move:A')", "Move A"),
        Binding("b", "app.teach('move:B')", "Move B"),
        Binding("u", "app.teach('undo')", "Undo"),
        Binding("f", "app.presenter", "Presenter"),
        Binding("i", "app.toggle_inspector", "Keys on/off", show=False),
        Binding("x", "app.teach('close')", "Close"),
    ]
    """Stepping keys in a lesson, a/b/u in a challenge (the footer shows the mode's own);
    the scrolling keys are VerticalScroll's."""

    STEPPING = {"next", "previous", "end", "autoplay", "jump", "rewind_here", "faster", "slower"}
    MOVING = {"move:A", "move:B", "undo"}

    @classmethod
    def offers(cls, challenge: bool, what: str) -> bool:
        """Whether teach(`what`) belongs to this mode (the app's check_action asks: the
        bindings' actions live on the app)."""
        return what not in (cls.STEPPING if challenge else cls.MOVING)

    body: reactive[Text] = reactive(Text(), always_update=True)
    """Everything the panel shows, built by the teacher."""

    def compose(self) -> ComposeResult:
        yield Static(Wrapped(self.body))

    def watch_body(self, body: Text) -> None:
        if self.is_mounted and self.children:
            self.query_one(Static).update(Wrapped(body))  # Chinese breaks between characters
