"""The narration panel of teaching mode: where the class looks between steps."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.css.scalar import Scalar
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
    """Everything the panel shows, built by the scenario run (tui/scenario_runs/)."""

    _shown: Text | None = None
    """The text drawn last (visible_text of a body)."""

    steady = False
    """While a lesson runs (set by its scenario run before each text; not on a short screen): the
    panel keeps the height of its tallest text since, and the panes below stay where they
    are from one step to the next. Otherwise its height follows its text."""

    _lines: int | None = None
    """The lines of the text drawn last, at `_width` cells."""

    _tallest = 0
    """While steady: the most lines a text has taken since (the panel's least height)."""

    _width = 0
    _screen = None  # the terminal's size when `_tallest` was measured

    least = 0
    """While steady: the panel's least height in lines whatever its text (`reserve`)."""

    def reserve(self, lines: int) -> None:
        """Keep the panel `lines` high from now on while steady, whatever its text (a
        class's learner waiting for the lesson: the lesson the teacher opens then changes
        the panel's text, not its height, and no learner's app lays its screen out for it)."""
        self.least = lines
        self.steady = True
        if self._tallest < lines and self.is_mounted and self.children:
            self._tallest, self._screen = lines, self.app.size
            self.query_one(Static).styles.min_height = lines

    def _measured(self, static: Static, wrapped: Wrapped, width: int) -> None:
        """The text drawn (and laid out) before its width was known, measured now: the height
        it took is the least the panel keeps. The Static has that height already: its rule
        is set without asking for a layout (a lesson's start in every app of a class)."""
        lines = len(wrapped.lines(width))
        self._lines, self._width = lines, width
        if self.app.size != self._screen:
            self._tallest, self._screen = self.least, self.app.size
        if lines > self._tallest:
            self._tallest = lines
            static.styles.set_rule("min_height", Scalar.from_number(lines))

    def compose(self) -> ComposeResult:
        self._shown = visible_text(self.body)
        yield Static(Wrapped(self._shown))

    def watch_body(self, body: Text) -> None:
        if self.is_mounted and self.children:
            shown = visible_text(body)
            static = self.query_one(Static)
            width = static.content_region.width
            if shown == self._shown:  # the clock's tick, twice a second, with nothing new: not drawn again
                if self.steady and self._lines is None and width > 0:  # (its first frame had no width yet)
                    self._measured(static, Wrapped(shown), width)
                return  # (a class of 30 idle apps on 2 cores: each redraw is a layout of the whole screen)
            self._shown = shown
            wrapped = Wrapped(shown)
            lines = len(wrapped.lines(width)) if width > 0 else None
            if not self.steady or self.app.size != self._screen:  # (a resize: heights measured afresh;
                least = self.least if self.steady else 0           # not the panel's scroll bar coming
                if self._tallest != least:                         # and going with a long script)
                    static.styles.min_height = least or None
                self._tallest, self._screen = least, self.app.size
            if width != self._width:
                self._lines, self._width = None, width
            fits = lines is not None and (lines <= self._tallest if self.steady else lines == self._lines)
            self._lines = lines
            if fits:  # the clock's second, or a text no taller: the panel is repainted, the screen
                static.update(wrapped, layout=False)  # not laid out again (every second in every
                return                                # app of a class, each step in every learner's)
            if self.steady and lines is not None:
                self._tallest = lines
                static.styles.min_height = lines
            static.update(wrapped)  # Chinese breaks between characters
