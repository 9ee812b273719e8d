"""A lesson: its steps typed into the panes one at a time (Space), checked against the
real server, with predictions to answer before a step runs."""

from __future__ import annotations

from textual.binding import Binding

from playground.i18n import N_
from playground.served import key_display, keys
from playground.tui.scenario_runs.lesson_run import LessonRun
from playground.tui.screens.mode_screen import HELP, SHARED
from playground.tui.screens.scenario_screen import (
    CLOSE, ESCAPE, INSPECTOR, PRESENTER, RESTART, SCHEDULES, TIMELINE, ScenarioScreen,
)


class LessonScreen(ScenarioScreen, inherit_bindings=False):
    """Step through a scenario; the narration panel says what happens and what comes next."""

    SCENARIO_RUN = LessonRun

    BINDINGS = [
        HELP,
        Binding("space,n", "teach('next')", "Next", key_display="Space",
                tooltip=N_("next step (in the narration panel)")),
        Binding("p,backspace", "teach('previous')", "Prev", key_display="p",
                tooltip=N_("previous step (fresh server, steps replayed)")),
        RESTART,
        *SHARED,
        Binding(keys("ctrl+n"), "next_anywhere", "Next", priority=True, key_display=key_display("ctrl+n"),
                tooltip=N_("next step from anywhere, also while typing in a pane")),
        ESCAPE,
        Binding("e", "teach('end')", "End", show=False, tooltip=N_("run to the end (questions are skipped)")),
        Binding("o", "teach('autoplay')", "Autoplay", show=False, tooltip=N_("autoplay on/off")),
        Binding("plus,equals_sign", "teach('faster')", "Faster", show=False, tooltip=N_("typing faster")),
        Binding("minus", "teach('slower')", "Slower", show=False, tooltip=N_("typing slower")),
        Binding("g", "teach('jump')", "Go to", show=False, tooltip=N_("go to a step")),
        Binding("w", "teach('rewind_here')", "Rewind here", show=False,
                tooltip=N_("rewind to this step after typing by hand")),
        TIMELINE,
        SCHEDULES,
        PRESENTER,
        INSPECTOR,
        CLOSE,
    ]
    """Space, p and r first: at 80 columns the footer shows the stepping keys and F1."""

    HINT_SKIP = ("app.show_scripts", "app.toggle_why", "focus_inspector", "toggle_inspector", "focus_client(0)",
                 "focus_client(1)", "teach('faster')", "teach('slower')", "teach('rewind_here')", "app.open_scenario",
                 "app.toggle_order", "scroll_lanes(-3)", "scroll_lanes(3)")
    """Keys the narration's one line leaves to the footer and F1 (help_text.key_hint)."""

    INTRO = N_("A scenario: each step is typed into its client's pane and checked against the real "
               "server. Questions ask you to predict before you see.")
    KEYS_TITLE = N_("Stepping the lesson")
    MORE_HELP = [("↑ / ↓", N_("scroll a narration longer than its panel (also PgUp, PgDn, Home, End)"))]

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "next_anywhere" and self.focused is self.narration:  # there Space says it;
            return False                                                   # elsewhere the footer shows ^n
        return super().check_action(action, parameters)

    def action_next_anywhere(self) -> None:
        """Ctrl+N: the next step from anywhere, also while typing in a pane."""
        self.action_teach("next")
