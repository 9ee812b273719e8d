"""The footer: Textual's Footer, rebuilt only when the keys it shows change, with the
keys that fit the width whole (F1 and F12 always; the others in their order while they fit).

Why: Footer unmounts and mounts one widget per key on every bindings signal. That came
four times during start-up (~10 ms each with our keys: a tenth of the time to the first
screen) and again on every move between panes A and B, whose keys are the same.
"""

from __future__ import annotations

from textual.widgets import Footer

from playground.cells import width
from playground.i18n import N_, current_language, language_name, next_language, tr

TEXTUAL_DESCRIPTIONS = (N_("palette"),)  # Textual's own keys the footer shows, for the catalogue

ALWAYS = ("help_screen", "app.switch_language", "switch_language")
"""Actions whose key the footer shows at any width: F1 lists every other key, and F12 must
stay within reach whatever the language (a Chinese footer is wider)."""


def key_cells(key_display: str, description: str, palette: bool = False) -> int:
    """Cells a footer key takes (Textual's FooterKey: a cell either side of the key, one
    after the description; the palette's key also has its border and a cell after).

    Args:
        key_display: the key as the footer shows it ("f1", "^p").
        description: what it does, as shown.
        palette: the command palette's key, docked right.
    """
    cells = width(key_display) + 2 + (width(description) + 1 if description else 0)
    return cells + (2 if palette else 0)


def fitting(keys: list[tuple[str, int]], room: int) -> set[int]:
    """Which keys fit in `room` cells: those of ALWAYS first, then the others in their
    order, each while it fits whole (a key that does not fit is left to F1, not cut).

    Args:
        keys: (action, cells) of each key, in the footer's order.
        room: the cells the footer has for them.
    """
    kept = {i for i, (action, _) in enumerate(keys) if action in ALWAYS}
    used = sum(keys[i][1] for i in kept)
    for i, (_, cells) in enumerate(keys):
        if i not in kept and used + cells <= room:
            kept.add(i)
            used += cells
    return kept


class KeyFooter(Footer):
    """The keys of whatever has focus, and the command palette, in the interface's language."""

    def __init__(self, clients=(), **kwargs) -> None:
        super().__init__(**kwargs)
        self.clients = tuple(clients)  # F2/F3 are named after them
        self._drawn: tuple | None = None  # the keys as last composed

    def _keys(self) -> tuple:
        bindings = self.screen.active_bindings.values()
        shown = tuple((b.key, b.description, b.action, b.group, enabled, tooltip)
                      for _, b, enabled, tooltip in bindings if b.show)
        return shown, self.show_command_palette, self.compact, current_language(), self.app.size.width

    def compose(self):
        """Textual's keys, each description in the interface's language (BINDINGS are
        written in English; the catalogue has every one)."""
        clients = self.clients
        widgets = list(super().compose())  # (Textual's key widgets: duck-typed, their class is private)
        for widget in widgets:
            action, description = getattr(widget, "action", ""), getattr(widget, "description", "")
            if action.endswith("switch_language"):
                widget.description = language_name(next_language(current_language()))  # what F12 switches to
            elif action.startswith("focus_client(") and action[13:-1].isdigit() and int(action[13:-1]) < len(clients):
                widget.description = clients[int(action[13:-1])]  # F2/F3 name the clients (--clients)
            elif description:
                widget.description = tr(description)
            compact = getattr(type(widget), "compact", None)
            if compact is not None and not widget.has_class("-command-palette"):
                # Footer binds each key's `compact` to its own after mounting it: set now, the
                # key is not restyled twice at mount (two of the start's restyles a key)
                widget.set_reactive(compact, self.compact)
        palette = [w for w in widgets if w.has_class("-command-palette")]
        keys = [w for w in widgets if not w.has_class("-command-palette")]
        room = self.app.size.width - sum(key_cells(getattr(w, "key_display", ""), getattr(w, "description", ""),
                                                   palette=True) for w in palette)
        cells = [(getattr(w, "action", ""), key_cells(getattr(w, "key_display", ""), getattr(w, "description", "")))
                 for w in keys]
        kept = fitting(cells, room) if not self.compact else set(range(len(keys)))
        yield from (w for i, w in enumerate(keys) if i in kept)
        yield from palette

    def on_resize(self) -> None:
        """Another width: the keys that fit it (recompose keeps the keys if they are the same)."""
        if self._drawn is not None and self._drawn[-1] != self.app.size.width:
            self.call_later(self.recompose)

    async def recompose(self) -> None:
        if not self.is_attached:
            return await super().recompose()
        keys = self._keys()
        if keys == self._drawn and self.children:
            return
        if self._drawn is not None and self.children and self._only_dimmed(self._drawn, keys):
            self._dim(keys)  # (a class's learner, follow me: the keys the teacher holds, at each lesson)
        else:
            await super().recompose()
        self._drawn = keys if self.children else None  # (nothing drawn yet: not ready)

    @staticmethod
    def _only_dimmed(drawn: tuple, keys: tuple) -> bool:
        """The same keys, some of them dimmed since (none enabled again: a key Textual drew
        dimmed rings the bell when clicked, whatever its class says)."""
        if drawn[1:] != keys[1:] or len(drawn[0]) != len(keys[0]):
            return False
        for was, now in zip(drawn[0], keys[0], strict=True):
            if was[:4] != now[:4] or was[5:] != now[5:] or (now[4] and not was[4]):
                return False
        return True

    def _dim(self, keys: tuple) -> None:
        """Each key dimmed as `keys` say, in place: a key's style, not the footer's widgets
        made and laid out again."""
        enabled: dict[str, bool] = {}
        for _key, _description, action, _group, on, _tooltip in keys[0]:
            enabled.setdefault(action, on)  # (the footer shows the first key of an action)
        for widget in self.children:
            action = getattr(widget, "action", None)
            if action in enabled:
                widget.set_class(not enabled[action], "-disabled")
