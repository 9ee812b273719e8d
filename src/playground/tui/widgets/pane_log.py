"""A client pane's log: a RichLog whose scrollbar shows only while the user reads back.

Why: Textual redraws a scroll view's scrollbar on every layout pass, and every reply
causes one; with both panes' scrollbars visible that was the largest part of drawing a
frame while commands are typed. Following the output, as redis-cli does in a terminal,
needs no scrollbar; scrolling back (mouse wheel) shows it, and new output hides it again.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import RichLog

from playground.tui.plain_text import visible_text

KEPT_LINES = 2000  # lines a pane shows at most (tmux keeps 2000 by default); up to twice that
                   # between compactions


class PaneLog(RichLog):
    """Everything one client printed, newest at the bottom (its newest KEPT_LINES lines).

    RichLog trims its lines itself when given max_lines; a pane's log is given none and
    trims in `compact` and `show_lines` instead, so the lines a write adds are known (the
    pane keeps each entry's lines to show them again: pane_lines.py)."""

    DEFAULT_CSS = """
    PaneLog { scrollbar-size-vertical: 0; padding: 0 2 0 1; }
    PaneLog.-reading-back { scrollbar-size-vertical: 1; padding: 0 1; }
    """

    _following = True  # at the newest line (not reading back)
    drawn_width = 0    # the width the lines were wrapped at
    _writing = False   # within write()

    # Each line written grows the log's virtual size, and RichLog asks for a layout pass of
    # the whole screen for it (two per command: its line and its reply). While the log
    # follows its output it has no scrollbar taking room (see above) and its lines are
    # wrapped to its width, so its size and everyone's place stay as they are: a repaint
    # of the log does (scrolling reads the virtual size directly). Reading back, or a line
    # wider than the log: the layout pass, as RichLog asks.
    def write(self, *args, **kwargs):
        self._writing = True
        try:
            if args and isinstance(args[0], (str, Text)):  # a reply or a line typed: text, never markup
                args = (visible_text(args[0]),) + args[1:]
            return super().write(*args, **kwargs)
        finally:
            self._writing = False

    def compact(self) -> None:
        """Past twice KEPT_LINES lines, keep the newest KEPT_LINES (after a write)."""
        if len(self.lines) > 2 * KEPT_LINES:
            self.show_lines(self.lines[-KEPT_LINES:])

    def show_lines(self, strips: list[Strip]) -> None:
        """Show exactly `strips` (the newest KEPT_LINES of them): lines already made at this
        log's width, e.g. what the pane printed, drawn again with the gutter switched."""
        self.clear()
        self.lines.extend(strips[-KEPT_LINES:])
        self.virtual_size = Size(max((strip.cell_length for strip in self.lines), default=0), len(self.lines))
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def clear(self):
        """Everything drawn goes (a lesson's start, Ctrl+L): the log's size and everyone's
        place stay as they are, as for a line written while following (see `write`)."""
        self._writing = True
        try:
            return super().clear()
        finally:
            self._writing = False

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        if layout and self._writing and self._following and not self.styles.scrollbar_size_vertical \
                and self.virtual_size.width <= self.scrollable_content_region.width:
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    # RichLog styles each line it draws with `rich_style`, which is worked out anew from the
    # widget's and its ancestors' styles each time it is read: twenty lines, twenty times,
    # on every frame the log is drawn in. Within one drawing nothing restyles the log.
    _drawing_style = None

    @property
    def rich_style(self):
        if self._drawing_style is not None:
            return self._drawing_style
        return super().rich_style

    def render_lines(self, crop):
        self._drawing_style = super().rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._drawing_style = None

    class Reflow(Message):
        """The log's width changed: its pane draws what it printed again, wrapped anew."""

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._following = new_value >= self.max_scroll_y - 0.5
        self.set_class(not self._following, "-reading-back")

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if self.drawn_width and width != self.drawn_width:
            self.post_message(self.Reflow())
        self.drawn_width = width
        # The narration above grows and shrinks with each step (and the presenter
        # layout): a pane that was following its output keeps showing the newest lines.
        if self._following:
            self.call_after_refresh(self.scroll_end, animate=False)
