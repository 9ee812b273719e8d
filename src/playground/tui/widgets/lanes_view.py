"""The lanes view: what the server ran so far, in server order, one column per client.

The rows come from the engine's server order (engine/server_order.py: every unit the
executor saw, typed or stepped, and the playground's fresh starts, flushes and
restarts), laid out by scenario/lanes.py: a MULTI…EXEC or a script is one block at
the moment it ran, and a "why" sits under the unit it explains. Shown with Ctrl+T (the
panes then number their replies in a gutter with the same numbers).
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from playground.i18n import tr
from playground.served import label

SHOWN_ROWS = 400  # the newest rows drawn (the engine keeps more)

STYLES = {"head": "bold", "rule": "dim", "part": "bold yellow", "cmd": "", "box": "",
          "reply": "dim", "note": "italic dim", "why": "italic #8f8fc8"}


class LanesView(VerticalScroll, can_focus=True):
    """Server order: one shared time axis, one column per client."""

    DEFAULT_CSS = """
    LanesView { display: none; height: 1fr; border: round $secondary; padding: 0 1; }
    LanesView.-shown { display: block; }
    LanesView > Static { width: auto; }
    LanesView > #lanes-head { dock: top; height: 2; background: $surface; }
    """

    drawn: reactive[int] = reactive(-1, init=False)
    """The server order's version last drawn (-1: never)."""

    def __init__(self, clients, playground, show_why, **kwargs) -> None:
        super().__init__(**kwargs)
        self.clients = tuple(clients)
        self.playground = playground  # its server order (playground.order)
        self.show_why = show_why      # whether the why notes are on (Ctrl+Y)
        self._made: dict = {}         # each unit's lane row, made once (lanes.rows_from_order's memo)
        self.border_title = label(tr("Server order (Ctrl+T hides)"))

    def compose(self):
        yield Static(id="lanes-head")  # docked: the clients' names stay while the rows scroll
        yield Static(id="lanes-text")

    def on_mount(self) -> None:
        self._ticker = self.set_interval(0.25, self._tick, pause=not self.has_class("-shown"))

    def show(self, shown: bool) -> None:
        """On screen or not (Ctrl+T); hidden, it follows nothing (no tick)."""
        self.set_class(shown, "-shown")
        ticker = getattr(self, "_ticker", None)  # (before on_mount: it starts as the class says)
        if ticker is not None:
            ticker.resume() if shown else ticker.pause()

    def _tick(self) -> None:
        if self.has_class("-shown") and self.playground.order.version != self.drawn:
            self.draw()

    def on_resize(self) -> None:
        if self.has_class("-shown"):
            self.draw()

    def text(self, total: int) -> tuple[Text, Text]:
        """The lanes' header and rows as styled text, `total` cells wide."""
        from playground.engine.why_text import LABEL
        from playground.scenario import lanes  # the scenario modules load when first shown, not at start-up

        order = self.playground.order
        window = list(order.rows)[-SHOWN_ROWS:]
        live = set(window)
        for key in [key for key in self._made if key[0] not in live]:  # rows gone from the window
            del self._made[key]
        rows = lanes.newest_within(lanes.rows_from_order(window, self._made))
        if not self.show_why():
            for row in rows:
                row.whys = []
        head, out = Text(), Text()
        label = tr(LABEL)
        for line, kind in lanes.layout(rows, self.clients, total, label):
            (head if kind in ("head", "rule") else out).append(line + "\n", style=STYLES.get(kind, ""))
        if not rows:
            out.append(tr("Nothing ran yet: type a command in a pane."), style="italic dim")
        head.rstrip()
        return head, out

    def draw(self) -> None:
        total = max(40, self.size.width - 2)
        head, rows = self.text(total)
        self.query_one("#lanes-head", Static).update(head)
        self.query_one("#lanes-text", Static).update(rows)
        self.drawn = self.playground.order.version
        self.scroll_end(animate=False)
