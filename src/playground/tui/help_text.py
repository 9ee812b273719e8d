"""F1: the keys of the mode the app is in, from the bindings of its screen (and of the
panes and the app): a key added to a screen is in its help. Each binding's tooltip says
what it does (its description is the footer's short word)."""

from __future__ import annotations

from rich.text import Text
from textual.app import App

from playground.cells import pad, width, wrap
from playground.i18n import N_, tr
from playground.served import BROWSER_KEYS, label, served

from playground.tui.app_keys import APP_BINDINGS

KEY_NAMES = {"space": "Space", "escape": "Esc", "backspace": "Backspace", "plus": "+", "equals_sign": "=",
             "minus": "-", "pageup": "PgUp", "pagedown": "PgDn", "up": "↑", "down": "↓", "end": "End",
             "home": "Home", "tab": "Tab", "enter": "Enter", "ctrl": "Ctrl", "shift": "Shift", "alt": "Alt"}

SEND = [("Enter", N_("send the line"))]  # Input's own key, not one of ours
SERVED_KEYS = {"+".join(part.capitalize() for part in key.split("+")) for key in BROWSER_KEYS.values()}
"""Alt+N, Alt+T, Alt+W, Alt+Q as F1 names them."""


def key_label(keys: str) -> str:
    """A binding's keys as F1 shows them: "space,n" -> "Space / n", "ctrl+n" -> "Ctrl+N"
    (served, only the key that reaches the page: Alt+N, not the browser's Ctrl+N; served.py)."""
    shown = []
    given = keys.split(",")
    for key in given:
        if served() and BROWSER_KEYS.get(key) in given:
            continue
        parts = key.split("+")
        named = [KEY_NAMES.get(part, part.upper() if len(parts) > 1 or len(part) > 1 else part) for part in parts]
        shown.append("+".join(named))
    return " / ".join(shown)


def binding_rows(bindings, off=None) -> list[tuple[str, str | tuple[str, str]]]:
    """(keys, what they do) for each binding, in its order; `off(binding)`: True for a
    key that does nothing now (serve --class, follow me), its row marked so."""
    return [(key_label(b.key), (b.tooltip or b.description, OFF) if off is not None and off(b) else
             b.tooltip or b.description) for b in bindings]


OFF = N_("not now: your teacher leads the class")
"""What F1 says after a key refused in follow me (the row dimmed)."""


def key_hint(screen, off=None) -> str:
    """The narration's line of keys ("keys: Space/Ctrl+N next · p prev · r restart · …"),
    from `screen`'s bindings (a screen or its class) in their order: each binding's first
    key (served: the one that reaches the page) and its footer word, keys of the same word
    together. A screen's HINT_SKIP names actions too fine for one line (F1 has them);
    `off(binding)`: True for a key that does nothing now (serve --class, follow me), left out."""
    skip = getattr(screen, "HINT_SKIP", ())
    words: dict[str, list[str]] = {}
    for b in screen.BINDINGS:
        if b.action in skip or not b.description or (off is not None and off(b)):
            continue
        shown = b.key_display if b.key_display and not served() else key_label(b.key).split(" / ")[0]
        word = tr(b.description)
        keys = words.setdefault(word[:1].lower() + word[1:], [])  # ("move A": a client keeps its name)
        if shown not in keys:
            keys.append(shown)
    return tr("keys: {keys}", keys=" · ".join(f"{'/'.join(k)} {word}" for word, k in words.items()))


def help_groups(screen, off=None) -> list[tuple[str, list[tuple[str, str]]]]:
    """The groups F1 shows for `screen` (a mode's screen, or its class): its keys,
    typing, the app's (`off`: binding_rows')."""
    from playground.tui.widgets.client_pane import ClientPane
    from playground.tui.widgets.command_input import CommandInput

    screen = screen if isinstance(screen, type) else type(screen)
    mode = binding_rows(screen.BINDINGS, off) + list(getattr(screen, "MORE_HELP", []))
    typing = SEND + binding_rows(CommandInput.BINDINGS) + binding_rows(ClientPane.BINDINGS)
    everywhere = binding_rows(APP_BINDINGS, off) + [(key_label(App.COMMAND_PALETTE_BINDING),
                                                      N_("every command by name"))]
    return [(screen.KEYS_TITLE, mode), (N_("Everywhere"), everywhere), (N_("Typing in a pane"), typing)]


def help_for(screen, cells: int | None = None, off=None) -> Text:
    """Every key of `screen`'s mode (a screen or its class), with what it does, in the
    interface's language; `cells`: the width it is shown in (a long description wraps
    under itself, not under the keys); `off`: binding_rows'."""
    text = Text(tr(screen.INTRO) + "\n\n")
    groups = help_groups(screen, off)
    column = max(11, *(width(key) + 2 for _, rows in groups for key, _ in rows))
    for title, rows in groups:
        text.append(tr(title) + "\n", style="bold underline")
        for key, what in rows:
            dim = isinstance(what, tuple)  # (what it does, why not now)
            what = f"{tr(what[0])} ({tr(what[1])})" if dim else tr(what)
            if key not in SERVED_KEYS:  # served: the keys that reach the page (a served key's own row says
                what = label(what)      # which browser key it stands for: "in a browser Ctrl+W closes the tab")
            text.append("  " + pad(key, column), style="dim" if dim else "bold cyan")
            lines = wrap(what, cells - column - 2) if cells and cells > column + 22 else [what]
            text.append(("\n" + " " * (column + 2)).join(lines) + "\n", style="dim" if dim else "")
        text.append("\n")
    return text


def first_run_hint(client: str, index: int, clients: list[str]) -> Text:
    """What an empty pane says before anything was typed."""
    text = Text()
    if index == 0:
        text.append(tr("▸ Start here: "), style="bold")
        text.append(tr("type a command and press Enter, e.g. "))
        text.append("SET greeting hello", style="bold cyan")
        text.append(tr(".\n▸ F7 opens a lesson · F1 shows every key · Ctrl+P finds any command."))
    else:
        first = clients[0]
        text.append(tr("▸ Client {client} ", client=client), style="bold")
        text.append(tr("is a second connection to the same server: after {first} sets it, try ", first=first))
        text.append("GET greeting", style="bold cyan")
        text.append(tr(" here (F3)."))
    return text
