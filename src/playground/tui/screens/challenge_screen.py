"""A challenge: the learner is the scheduler, moving A or B one step at a time until
the goal state appears on the real server."""

from __future__ import annotations

from dataclasses import replace

from textual.binding import Binding

from playground.i18n import N_
from playground.tui.scenario_runs.challenge_run import ChallengeRun
from playground.tui.screens.mode_screen import HELP, SHARED
from playground.tui.screens.scenario_screen import (
    CLOSE, ESCAPE, INSPECTOR, PRESENTER, RESTART, SCHEDULES, TIMELINE, ScenarioScreen,
)


class ChallengeScreen(ScenarioScreen, inherit_bindings=False):
    """Choose who moves next; u undoes a move."""

    SCENARIO_RUN = ChallengeRun

    BINDINGS = [
        HELP,
        Binding("a", "teach('move:A')", "Move A", tooltip=N_("move client A one step")),
        Binding("b", "teach('move:B')", "Move B", tooltip=N_("move client B one step")),
        Binding("u", "teach('undo')", "Undo", tooltip=N_("undo the last move")),
        RESTART,
        # (a move is a/b, not typing: F2/F3 stay in F1, and at 80 columns the footer
        # reaches the server order)
        *[replace(b, show=False) if b.action.startswith("focus_client") else b for b in SHARED],
        ESCAPE,
        TIMELINE,
        SCHEDULES,
        PRESENTER,
        INSPECTOR,
        CLOSE,
    ]
    """F1, a, b, u first: at 80 columns the footer still shows them."""

    HINT_SKIP = ("app.show_scripts", "app.toggle_why", "focus_inspector", "toggle_inspector", "focus_client(0)",
                 "focus_client(1)", "app.open_scenario", "app.toggle_order", "presenter", "help_screen",
                 "scroll_lanes(-3)", "scroll_lanes(3)")
    """Keys the narration's one line leaves to the footer and F1 (help_text.key_hint)."""

    INTRO = N_("A challenge: you are the scheduler. Choose who moves next until the goal state "
               "appears on the server.")
    KEYS_TITLE = N_("The challenge")
    MORE_HELP: list[tuple[str, str]] = []
