"""F1: the keys of the mode the app is in (free play, a scenario, a challenge)."""

from __future__ import annotations

from rich.text import Text

from playground.cells import pad
from playground.i18n import N_, tr
from playground.served import label, served

_EVERYWHERE = [
    ("F1", N_("this help")), ("F2 / F3", N_("type into client A / B")), ("F4", N_("the key inspector (/ filters)")),
    ("F5", N_("a fresh, empty server")), ("F6", N_("the Lua scripts the server caches, whole")),
    ("F7", N_("open a scenario (a lesson) or a challenge")), ("F8", N_("flush every key (asks first)")),
    ("F9", N_("record what you type as a scenario (F9 again saves)")),
    ("Ctrl+G", N_("the URL for a program of your own (REDIS_URL): its commands wait at the gate")),
    ("Ctrl+P", N_("every command by name")),
    ("Ctrl+Q", N_("quit")),
]
_PROGRAMS = [
    ("Ctrl+N", N_("let the next held command of your programs through (after Ctrl+G)")),
]
_TYPING = [
    ("Enter", N_("send the line")), ("↑ / ↓", N_("history")),
    ("Ctrl+R", N_("reverse search: type to narrow, Ctrl+R again for older, Enter takes it, Esc cancels")),
    ("Tab", N_("complete a command name")), ("Ctrl+O", N_("write a Lua script over several lines (sent as EVAL)")),
    ("Ctrl+C", N_("cancel a blocked or busy command")), ("Ctrl+L", N_("clear the pane")),
]
_SCENARIO = [
    ("Space / n", N_("next step (in the narration panel)")),
    ("Ctrl+N", N_("next step from anywhere, also while typing in a pane")),
    ("Esc", N_("back to the narration panel")), ("p", N_("previous step (fresh server, steps replayed)")),
    ("r", N_("restart from step 1")), ("e", N_("run to the end (questions are skipped)")),
    ("o", N_("autoplay on/off")), ("+ / -", N_("typing faster / slower")), ("g", N_("go to a step")),
    ("w", N_("rewind to this step after typing by hand")), ("t", N_("timeline: what the server ran, in order")),
    ("s", N_("every schedule of this part, on a server of its own (Esc comes back here)")),
    ("f", N_("presenter layout for a projector")), ("i", N_("key inspector on/off")), ("x", N_("close the scenario (asks)")),
    ("↑ / ↓", N_("scroll a narration longer than its panel (also PgUp, PgDn, Home, End)")),
]
_CHALLENGE = [
    ("a / b", N_("move client A / B one step")), ("u", N_("undo the last move")), ("r", N_("start again")),
    ("t", N_("timeline")), ("s", N_("every schedule of this part, on a server of its own (Esc comes back here)")),
    ("f", N_("presenter layout")), ("Esc", N_("back to the challenge panel")),
    ("x", N_("close (asks)")),
]

_INTRO = {
    "free": N_("Free play: two real clients, A and B, on a private server. Type a command in a pane "
            "(SET greeting hello), then watch the other client and the key inspector. "
            "F7 opens a lesson."),
    "scenario": N_("A scenario: each step is typed into its client's pane and checked against the real "
                "server. Questions ask you to predict before you see."),
    "challenge": N_("A challenge: you are the scheduler. Choose who moves next until the goal state "
                 "appears on the server."),
}


_SERVED_TYPING = [("Alt+W", N_("delete the word to the left (in a browser Ctrl+W closes the tab)"))]


def help_for(mode: str) -> Text:
    """The keys of `mode`; under serve, the ones that reach the page (served.py)."""
    text = Text(tr(_INTRO[mode]) + "\n\n")
    typing = _TYPING + (_SERVED_TYPING if served() else [])
    groups = {"free": [(N_("Typing in a pane"), typing), (N_("Your own programs"), _PROGRAMS)],
              "scenario": [(N_("Stepping the lesson"), _SCENARIO), (N_("Typing in a pane"), typing)],
              "challenge": [(N_("The challenge"), _CHALLENGE), (N_("Typing in a pane"), typing)]}[mode]
    for title, keys in groups + [(N_("Everywhere"), _EVERYWHERE)]:
        text.append(tr(title) + "\n", style="bold underline")
        for key, what in keys:
            text.append("  " + pad(label(key), 11), style="bold cyan")
            text.append(tr(what) + "\n")
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
