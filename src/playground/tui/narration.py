"""The narration panel of teaching mode: where the class looks between steps."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Static


class NarrationPanel(Static, can_focus=True):
    """Title, lesson, progress and what just happened; the keys that drive the scenario."""

    DEFAULT_CSS = """
    NarrationPanel { display: none; height: auto; max-height: 14; border: round $success;
                     padding: 0 1; overflow-y: auto; }
    NarrationPanel:focus { border: round $accent; }
    NarrationPanel.-open { display: block; }
    .-presenter NarrationPanel { max-height: 60%; height: 45%; border: heavy $success; }
    """

    BINDINGS = [
        Binding("space,n", "app.teach('next')", "Next step"),
        Binding("p,backspace", "app.teach('previous')", "Previous"),
        Binding("r", "app.teach('restart')", "Restart"),
        Binding("e", "app.teach('end')", "Run to end"),
        Binding("o", "app.teach('autoplay')", "Autoplay"),
        Binding("plus,equals_sign", "app.teach('faster')", "Faster", show=False),
        Binding("minus", "app.teach('slower')", "Slower", show=False),
        Binding("g", "app.teach('jump')", "Go to step"),
        Binding("w", "app.teach('rewind_here')", "Rewind here", show=False),
        Binding("t", "app.teach('timeline')", "Timeline"),
        Binding("s", "app.teach('explore')", "Every schedule", show=False),
        Binding("a", "app.teach('move:A')", "Step A", show=False),
        Binding("b", "app.teach('move:B')", "Step B", show=False),
        Binding("u", "app.teach('undo')", "Undo move", show=False),
        Binding("f", "app.presenter", "Presenter"),
        Binding("i", "app.toggle_inspector", "Keys on/off"),
        Binding("x", "app.teach('close')", "Close scenario"),
    ]

    body: reactive[Text] = reactive(Text(), always_update=True)
    """Everything the panel shows, built by the teacher."""

    def watch_body(self, body: Text) -> None:
        self.update(body)
