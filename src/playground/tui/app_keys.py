"""The app's own keys, every mode's (the server, the language, quitting): PlaygroundApp's
BINDINGS, kept apart so that F1's texts (help_text.py) read them without the app. Each
mode's keys are its screen's (free_play_screen.py, lesson_screen.py, challenge_screen.py).
Under `serve`, keys the browser keeps have a second key that reaches the page (served.py)."""

from __future__ import annotations

from textual.binding import Binding

from playground.i18n import N_
from playground.served import key_display, keys, served

APP_BINDINGS = [
    Binding("f5", "restart_server", "Restart server", show=False, tooltip=N_("a fresh, empty server (asks first)")),
    Binding("f8", "flush", "Flush db", show=False, tooltip=N_("flush every key (asks first)")),
    Binding("f12", "switch_language", "Next language", priority=True,  # in modals too (a prediction re-renders)
            tooltip=N_("the interface and the scenario in the next language")),
    Binding(keys("ctrl+q"), "quit", "Quit", priority=True, key_display=key_display("ctrl+q"), tooltip=N_("quit")),
    *([Binding("alt+c", "class_overview", "Class", key_display="Alt+C", priority=True,  # serve --class
               tooltip=N_("the class overview (the teacher's tab)"))] if served() else []),
]
