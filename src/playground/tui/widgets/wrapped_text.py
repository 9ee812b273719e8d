"""Styled text wrapped by cells.wrap_spans at whatever width it is drawn: Chinese breaks
between characters (no line starts with 。 or ends with （, no "▸" alone), English at
spaces. Textual's and Rich's own wrapping break only at spaces, and a Chinese sentence
(one "word" to them) is cut with "…" or folded anywhere."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from playground.cells import wrap_spans


class Wrapped:
    """A Rich renderable: `text` (styles kept) in lines of at most the width it is given."""

    def __init__(self, text: Text | str) -> None:
        self.text = Text(text) if isinstance(text, str) else text
        self._wrapped: tuple[int, list[Text]] | None = None  # the lines at the last width asked

    @property
    def plain(self) -> str:
        return self.text.plain

    def lines(self, cells: int) -> list[Text]:
        if self._wrapped is not None and self._wrapped[0] == cells:  # drawn as often as asked
            return self._wrapped[1]                                 # at one width: wrapped once
        out: list[Text] = []
        for paragraph in self.text.split("\n", allow_blank=True):
            spans = wrap_spans(paragraph.plain, cells)
            out += [paragraph[start:end] for start, end in spans] or [Text("")]
        self._wrapped = (cells, out)
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines(options.max_width):
            yield from line.render(console)
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((line.cell_len for line in self.text.split("\n")), default=0)
        return Measurement(min(2, widest), min(widest, options.max_width))
