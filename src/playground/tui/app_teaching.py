"""The app's side of the modes: opening a scenario or a challenge on its own screen
and closing it, the server-order and why toggles, the language switch.
(A mixin of PlaygroundApp; each mode's keys are its screen's.)"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.await_complete import AwaitComplete

from playground.i18n import tr
from playground.tui.widgets.lanes_view import LanesView
from playground.tui.widgets.narration import NarrationPanel


class TeachingActions:
    """PlaygroundApp's actions for lessons and challenges."""

    @property
    def narration(self) -> NarrationPanel:
        return self.mode_screen.narration  # also under a modal (the clock ticks)

    def action_open_scenario(self) -> None:
        from playground.scenario.library import scenario_files
        from playground.scenario.model import ScenarioError
        from playground.scenario.loader import load_scenario
        from playground.tui.screens.teaching_screens import ScenarioPicker

        if self.class_mode.refused("open_scenario"):  # serve --class: follow me (the palette calls this too)
            return
        scenarios, broken = [], []
        for path in scenario_files(self.scenario_dirs, recordings=True):
            try:
                scenarios.append(load_scenario(path, self.lang))
            except ScenarioError as exc:
                broken.append(str(exc))
        for message in broken:
            self.notify(message, severity="error")

        def chosen(result) -> None:
            if result and not self.class_mode.refused("open_scenario"):  # follow me chosen meanwhile
                self.open_scenario(*result)

        self.push_screen(ScenarioPicker(scenarios), chosen)  # it shows them in course order

    def open_scenario(self, scenario, challenge: bool = False):
        """The scenario on its mode's screen: a lesson (lesson_screen.py) or a challenge
        (challenge_screen.py), in place of the mode's screen, or bound again if it shows
        (each mounted once: tui/mode_screens.py). Awaitable until that screen shows the
        scenario and its start has begun (None: it could not open)."""
        from playground.tui.screens.challenge_screen import ChallengeScreen
        from playground.tui.screens.lesson_screen import LessonScreen

        missing = [c for c in scenario.clients if c not in self.clients]
        if missing:
            self.notify(tr("{id} needs clients {clients}", id=scenario.id, clients=", ".join(scenario.clients)), severity="error")
            return
        if self.teacher is not None:
            self.teacher.autoplay = False
        self._first_run_hints(False)
        screen = self.mode_screens.get(ChallengeScreen if challenge else LessonScreen)
        if screen is self.mode_screen:
            self.mode_screens.close_dialogs()
            screen.bind(scenario)
            switched = AwaitComplete.nothing()
        else:
            screen.bind(scenario)  # (it binds once it shows)
            switched = self.mode_screens.show(screen)
        self.class_mode.opened(scenario, challenge)  # serve --class (tui/class_mode/)
        return switched

    def close_scenario(self, waiting: Callable[[], Text] | None = None):
        """Back to free play; the panes keep what they show, the server its keys.
        `waiting` (a class's learner whose teacher closed the lesson): the lesson's screen
        stays, bound to nothing, its narration saying this."""
        from playground.tui.screens.free_play_screen import FreePlayScreen
        from playground.tui.screens.scenario_screen import ScenarioScreen

        screen = self.mode_screen
        if waiting is not None and isinstance(screen, ScenarioScreen):
            self.mode_screens.close_dialogs()
            screen.unbind(waiting)
            switched = AwaitComplete.nothing()
        else:
            switched = self.mode_screens.show(self.mode_screens.get(FreePlayScreen))
        self.class_mode.closed(switched)  # serve --class: the teacher's closes the class's lessons
        return switched

    def action_explore_typed(self) -> None:
        """Every order of the last commands typed in the panes (tui/screens/explore_screen.py)."""
        from playground.tui.screens.explore_screen import explore_typed_in_app

        self.run_worker(explore_typed_in_app(self), group="explore", exclusive=True, exit_on_error=False)

    def action_toggle_order(self) -> None:
        """Ctrl+T: the lanes view (server order) and the numbers in the panes' gutters."""
        self.show_order = not self.show_order

    def action_toggle_why(self) -> None:
        """Ctrl+Y: the "why" notes under surprising replies."""
        self.show_why = not self.show_why

    def watch_show_order(self, shown: bool) -> None:
        self.set_class(shown, "-order")
        lanes = self.mode_screen.query_one(LanesView)
        lanes.show(shown)
        if shown:
            self.call_after_refresh(lanes.draw)
        for name in self.clients:
            self.pane(name).redraw()

    def watch_show_why(self, shown: bool) -> None:
        for name in self.clients:
            self.pane(name).redraw()
        if self.show_order:
            self.mode_screen.query_one(LanesView).draw()
        self.notify(tr("Why notes on") if shown else tr("Why notes off (Ctrl+Y shows them again)"), timeout=2)

    def action_switch_language(self) -> None:
        """F12: the interface and the open scenario in the other language (English ⇄ 中文)."""
        from playground.tui.language import switch_language

        switch_language(self)
