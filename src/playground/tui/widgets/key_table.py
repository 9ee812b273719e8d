"""The key inspector's table: one line per key, drawn by the table itself.

Why not Textual's DataTable: it is a scroll view, and Textual refreshes every scroll
view's scrollbar on each layout pass, which every reply in a pane causes; so the table
was redrawn (several milliseconds of Rich rendering) on most frames while commands were
being typed. This widget is not scrollable: it draws the visible rows from a cache of
one Strip per row, and a changed cell repaints only its own line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from playground.cells import width as cell_width
from playground.i18n import tr

Cells = tuple[Text, ...]


def same_cells(a: Cells, b: Cells) -> bool:
    """Drawn alike: the same text, spans and style (Text's == leaves its style out, so a
    key's highlight, a style of the whole cell, stayed on after its time)."""
    return len(a) == len(b) and all(x.plain == y.plain and x.style == y.style and x.spans == y.spans
                                    for x, y in zip(a, b, strict=True))


PAD = 1  # blank cells either side of a column, as DataTable draws them


class KeyTable(Widget, can_focus=True):
    """Rows of cells under a header, a row cursor, and no scrollbar: the header says
    which rows are in view (e.g. "1–9/50") when they do not all fit."""

    BINDINGS = [
        Binding("enter", "select", "Key details", show=False),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | enter | Show the key under the cursor in detail. |
    | up/down | Move the cursor one row. |
    | pageup/pagedown | Move the cursor one screen of rows. |
    | home/end | Move the cursor to the first/last row. |
    """

    COMPONENT_CLASSES = {"key-table--header", "key-table--cursor", "key-table--even-row"}

    DEFAULT_CSS = """
    KeyTable {
        height: 1fr;
        background: $surface;
        color: $foreground;
        & > .key-table--header { text-style: bold; background: $panel; color: $foreground; }
        &:ansi > .key-table--header { background: ansi_bright_blue; color: ansi_default; }
        & > .key-table--even-row { background: $surface-lighten-1 50%; }
        &:dark > .key-table--even-row { background: $surface-darken-1 40%; }
        & > .key-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .key-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
    }
    """

    cursor: reactive[int] = reactive(0, repaint=False)
    """Index of the highlighted row."""

    @dataclass
    class Selected(Message):
        """Enter (or a click on the highlighted row) asked for this row's details."""

        key: str
        """The row's key, as given to `set_rows`."""

    def __init__(self, *columns: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.columns = columns
        self._keys: list[str] = []
        self._rows: list[Cells] = []
        self._widths: list[int] = [cell_width(tr(c)) for c in columns]
        self._strips: dict[int, Strip] = {}  # row index -> drawn line (without cursor)
        self._top = 0  # first row in view

    # ---- data -------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def row(self, index: int) -> Cells:
        return self._rows[index]

    def row_key(self, index: int) -> str:
        return self._keys[index]

    def set_rows(self, rows: list[tuple[str, Cells]]) -> None:
        """Show these rows; only lines whose cells changed are drawn again. The cursor
        stays on the same key when it is still there."""
        keys = [key for key, _ in rows]
        cells = [c for _, c in rows]
        widths = self._natural_widths(cells)
        if keys == self._keys and widths == self._widths:
            for index, (new, old) in enumerate(zip(cells, self._rows, strict=True)):
                if not same_cells(new, old):
                    self._rows[index] = new
                    self._redraw_row(index)
            return
        grew = len(keys) != len(self._keys)
        current = self._keys[self.cursor] if self.cursor < len(self._keys) else None
        cursor = keys.index(current) if current in keys else self.cursor
        self._keys, self._rows, self._widths = keys, cells, widths
        self._strips.clear()
        self.set_reactive(KeyTable.cursor, max(0, min(cursor, len(keys) - 1)))
        self._scroll_to_cursor()
        self.refresh(layout=grew and self.styles.height is not None and self.styles.height.is_auto)

    def get_content_height(self, container, viewport, width: int) -> int:
        """As tall as its rows and the header (where its height is auto: the presenter layout)."""
        return len(self._rows) + 1

    def in_view(self, index: int) -> bool:
        return self._top <= index < self._top + self._page

    def show_row(self, index: int) -> None:
        """Bring row `index` into view, the cursor where it is (a key that just changed,
        below the rows in view); not while the table has the focus (someone reads it)."""
        if self.has_focus or not 0 <= index < len(self._rows):
            return
        if index < self._top:
            self._view(index)
        elif index >= self._top + self._page:
            self._view(index - self._page + 1)

    def update_cell(self, index: int, column: int, value: Text | str) -> None:
        """Change one cell (the TTL countdown): its line is drawn again, nothing else."""
        cell = value if isinstance(value, Text) else Text(value)
        row = self._rows[index]
        if row[column] != cell:
            self._rows[index] = row[:column] + (cell,) + row[column + 1:]
            if cell.cell_len > self._widths[column]:  # the column grows: every line moves
                self._widths[column] = cell.cell_len
                self._strips.clear()
                self.refresh()
            else:
                self._redraw_row(index)

    def _natural_widths(self, rows: list[Cells]) -> list[int]:
        widths = [cell_width(tr(c)) for c in self.columns]
        for cells in rows:
            for i, cell in enumerate(cells):
                widths[i] = max(widths[i], cell.cell_len)
        return widths

    def relabel(self) -> None:
        """Draw the header again in the interface's current language (its widths in cells)."""
        self._widths = self._natural_widths(self._rows)
        self._strips.clear()
        self.refresh()

    def _redraw_row(self, index: int) -> None:
        self._strips.pop(index, None)
        y = index - self._top + 1
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    # ---- drawing ----------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(1, self.size.height - 1)

    def _fitted_widths(self, width: int) -> list[int]:
        """Natural widths; when they do not fit, the value and then the key column give way."""
        widths = list(self._widths)
        over = sum(w + 2 * PAD for w in widths) - width
        for column, floor in ((3, 8), (0, 12)):
            if over > 0 and column < len(widths):
                give = min(over, max(0, widths[column] - floor))
                widths[column] -= give
                over -= give
        return widths

    def _line(self, cells, widths: list[int], style: Style) -> Strip:
        text = Text(no_wrap=True, overflow="ellipsis")
        for cell, width in zip(cells, widths, strict=False):  # (a short row: its cells, the rest blank)
            part = cell.copy() if isinstance(cell, Text) else Text(cell)
            part.truncate(width, overflow="ellipsis", pad=True)
            text.append(" " * PAD)
            text.append_text(part)
            text.append(" " * PAD)
        segments = [s for s in text.render(self.app.console) if s.text != "\n"]
        return Strip(Segment.apply_style(segments, style)).crop_extend(0, self.size.width, style)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        widths = self._fitted_widths(width)
        if y == 0:
            header = base + self.get_component_rich_style("key-table--header")
            strip = self._line([tr(c) for c in self.columns], widths, header)
            if len(self._rows) > self._page:
                last = min(len(self._rows), self._top + self._page)
                where = Text(f" {self._top + 1}–{last}/{len(self._rows)} ", style="dim")
                tail = Strip(list(where.render(self.app.console)))
                strip = Strip.join([strip.crop(0, max(0, width - tail.cell_length)), tail])
            return strip
        index = self._top + y - 1
        if index >= len(self._rows):
            return Strip.blank(width, base)
        if index == self.cursor:  # the cursor's background under the cells' own (a red badge stays red)
            cursor = self.get_component_rich_style("key-table--cursor")
            return self._line(self._rows[index], widths, base + Style(bgcolor=cursor.bgcolor))
        kept = self._strips.get(index)
        if kept is None or kept.cell_length != width:
            style = base + self.get_component_rich_style("key-table--even-row") if index % 2 else base
            kept = self._strips[index] = self._line(self._rows[index], widths, style)
        return kept

    # ---- cursor and view --------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        if self._scroll_to_cursor():
            self.refresh()
        else:
            for index in (old, new):
                self._redraw_row(index)

    def _scroll_to_cursor(self) -> bool:
        """Bring the cursor into view; True if the view moved."""
        top = min(self._top, self.cursor)
        top = max(top, self.cursor - self._page + 1)
        top = max(0, min(top, len(self._rows) - self._page))
        moved, self._top = top != self._top, top
        return moved

    def _view(self, top: int) -> None:
        top = max(0, min(top, len(self._rows) - self._page))
        if top != self._top:
            self._top = top
            self.refresh()

    def on_resize(self) -> None:
        if self._scroll_to_cursor():  # (taller: rows above the cursor come back into view; lines
            self.refresh()            # of the old width are redrawn by render_line)

    def on_focus(self) -> None:
        self._redraw_row(self.cursor)

    def on_blur(self) -> None:
        self._redraw_row(self.cursor)

    def action_cursor(self, step: int) -> None:
        if self._rows:
            self.cursor = max(0, min(self.cursor + step, len(self._rows) - 1))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * self._page)

    def action_jump(self, where: int) -> None:
        if self._rows:
            self.cursor = where % len(self._rows)

    def action_select(self) -> None:
        if self._rows:
            self.post_message(self.Selected(self._keys[self.cursor]))

    def on_click(self, event: events.Click) -> None:
        index = self._top + event.y - 1
        if event.y >= 1 and index < len(self._rows):
            event.stop()
            if index == self.cursor:
                self.action_select()
            self.cursor = index

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._view(self._top + 3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._view(self._top - 3)
