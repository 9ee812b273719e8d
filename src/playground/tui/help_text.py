"""F1: the keys of the mode the app is in (free play, a scenario, a challenge)."""

from __future__ import annotations

from rich.text import Text

_EVERYWHERE = [
    ("F1", "this help"), ("F2 / F3", "type into client A / B"), ("F4", "the key inspector (/ filters)"),
    ("F5", "a fresh, empty server"), ("F6", "the Lua scripts the server caches, whole"),
    ("F7", "open a scenario (a lesson) or a challenge"), ("F8", "flush every key (asks first)"),
    ("F9", "record what you type as a scenario (F9 again saves)"), ("Ctrl+P", "every command by name"),
    ("Ctrl+Q", "quit"),
]
_TYPING = [
    ("Enter", "send the line"), ("↑ / ↓", "history"),
    ("Ctrl+R", "reverse search: type to narrow, Ctrl+R again for older, Enter takes it, Esc cancels"),
    ("Tab", "complete a command name"), ("Ctrl+O", "write a Lua script over several lines (sent as EVAL)"),
    ("Ctrl+C", "cancel a blocked or busy command"), ("Ctrl+L", "clear the pane"),
]
_SCENARIO = [
    ("Space / n", "next step (in the narration panel)"),
    ("Ctrl+N", "next step from anywhere, also while typing in a pane"),
    ("Esc", "back to the narration panel"), ("p", "previous step (fresh server, steps replayed)"),
    ("r", "restart from step 1"), ("e", "run to the end (questions are skipped)"),
    ("o", "autoplay on/off"), ("+ / -", "typing faster / slower"), ("g", "go to a step"),
    ("w", "rewind to this step after typing by hand"), ("t", "timeline: what the server ran, in order"),
    ("f", "presenter layout for a projector"), ("i", "key inspector on/off"), ("x", "close the scenario (asks)"),
]
_CHALLENGE = [
    ("a / b", "move client A / B one step"), ("u", "undo the last move"), ("r", "start again"),
    ("t", "timeline"), ("f", "presenter layout"), ("Esc", "back to the challenge panel"),
    ("x", "close (asks)"),
]

_INTRO = {
    "free": "Free play: two real clients, A and B, on a private server. Type a command in a pane "
            "(SET greeting hello), then watch the other client and the key inspector. "
            "F7 opens a lesson.",
    "scenario": "A scenario: each step is typed into its client's pane and checked against the real "
                "server. Questions ask you to predict before you see.",
    "challenge": "A challenge: you are the scheduler. Choose who moves next until the goal state "
                 "appears on the server.",
}


def help_for(mode: str) -> Text:
    text = Text(_INTRO[mode] + "\n\n")
    groups = {"free": [("Typing in a pane", _TYPING)],
              "scenario": [("Stepping the lesson", _SCENARIO), ("Typing in a pane", _TYPING)],
              "challenge": [("The challenge", _CHALLENGE), ("Typing in a pane", _TYPING)]}[mode]
    for title, keys in groups + [("Everywhere", _EVERYWHERE)]:
        text.append(title + "\n", style="bold underline")
        for key, what in keys:
            text.append(f"  {key:<10}", style="bold cyan")
            text.append(what + "\n")
        text.append("\n")
    return text


def first_run_hint(client: str, index: int, clients: list[str]) -> Text:
    """What an empty pane says before anything was typed."""
    text = Text()
    if index == 0:
        text.append("▸ Start here: ", style="bold")
        text.append("type a command and press Enter, e.g. ")
        text.append("SET greeting hello", style="bold cyan")
        text.append(".\n▸ F7 opens a lesson · F1 shows every key · Ctrl+P finds any command.")
    else:
        first = clients[0]
        text.append(f"▸ Client {client} ", style="bold")
        text.append(f"is a second connection to the same server: after {first} sets it, try ")
        text.append("GET greeting", style="bold cyan")
        text.append(" here (F3).")
    return text
