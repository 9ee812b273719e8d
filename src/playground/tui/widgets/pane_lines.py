"""A pane's entries as the lines its log shows, kept once per way of showing them, so that
Ctrl+T (the gutter of server-order numbers on or off) puts lines already made back into
the log instead of laying out every reply again: a toggle's work is a list of lines, not
wrapping text and making each line anew.

`RenderedLines` keeps, for each entry of a pane and each way it is shown (gutter, width,
secrets left out, language), the lines (Textual Strips) the log shows for it: those the
log made when the entry was written, or made here as RichLog.write makes them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from rich.console import Console, RenderableType
from rich.measure import Measurement
from textual.strip import Strip


class RenderedLines:
    """Each entry's lines per way of showing it (by the entry's identity)."""

    def __init__(self, console: Callable[[], Console]) -> None:
        self._console = console
        self._made: dict[tuple[int, Hashable, int], tuple[object, list[Strip]]] = {}
        self.size = 0
        """How many lines are kept, in all."""

    def get(self, entry: object, how: Hashable, width: int) -> list[Strip] | None:
        """The lines kept for `entry` shown `how` in a log `width` cells wide, or None."""
        made = self._made.get((id(entry), how, width))
        return made[1] if made is not None and made[0] is entry else None

    def put(self, entry: object, how: Hashable, width: int, strips: list[Strip]) -> None:
        """Keep `strips` as `entry` shown `how` at `width` (the log's own, as it wrote them).

        Args:
            entry: the pane's entry (kept by identity).
            how: everything else its lines depend on (gutter, secrets, language ...).
            width: the log's content width.
            strips: its lines.
        """
        old = self._made.pop((id(entry), how, width), None)
        if old is not None:
            self.size -= len(old[1])
        self._made[(id(entry), how, width)] = (entry, strips)
        self.size += len(strips)

    def render(self, entry: object, how: Hashable, text: RenderableType, width: int,
               min_width: int) -> list[Strip]:
        """`text` (the entry shown `how`: a Text, or a table) made into lines as RichLog.write makes them in a log
        `width` cells wide (at its own width when narrower, wrapped at `width` when wider,
        at least `min_width`), and kept.

        Args:
            entry: the pane's entry.
            how: everything else its lines depend on.
            text: the entry's text shown that way (control characters written out).
            width: the log's content width.
            min_width: the log's min_width.
        """
        console = self._console()
        render_width = max(min(Measurement.get(console, console.options, text).maximum, width), min_width)
        lines = console.render_lines(text, console.options.update_width(render_width), pad=False, new_lines=False)
        strips = Strip.from_lines(lines) if lines else [Strip.blank(render_width)]
        for strip in strips:
            strip.adjust_cell_length(render_width)
        self.put(entry, how, width, strips)
        return strips

    def keep(self, entries: Iterable[object], width: int) -> None:
        """Forget what was kept for entries not among `entries`, or for another width."""
        alive = {id(entry) for entry in entries}
        for key in [key for key in self._made if key[0] not in alive or key[2] != width]:
            self.size -= len(self._made.pop(key)[1])

    def __len__(self) -> int:
        return len(self._made)
