"""The app's lessons and challenges: picking one (F7), opening it on its mode's screen
and closing it (back to free play).

An object the app owns (`PlaygroundApp.scenarios`), made with the app it serves; what it
needs of the app is `ScenarioHost`. Each mode's keys are its screen's; the screens
themselves are kept by ModeScreens (mode_screens.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.await_complete import AwaitComplete

from playground.i18n import tr

if TYPE_CHECKING:
    from playground.scenario.model import Scenario
    from playground.tui.class_mode.class_mode import ClassMode
    from playground.tui.mode_screens import ModeScreens
    from playground.tui.screens.mode_screen import ModeScreen


class ScenarioHost(Protocol):
    """What ScenarioControl needs of the app: its clients, library and language, its
    modes' screens, class mode (follow me), the empty panes' hints and Textual's App
    methods."""

    clients: list[str]
    scenario_dirs: list[str]
    lang: str
    class_mode: ClassMode
    mode_screens: ModeScreens

    @property
    def scenario_run(self) -> Any: ...  # the open scenario's tui ScenarioRun, None in free play

    @property
    def mode_screen(self) -> ModeScreen: ...

    def first_run_hints(self, show: bool) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...


class ScenarioControl:
    """Which scenario the app shows, if any: the picker, open and close."""

    def __init__(self, app: ScenarioHost) -> None:
        """Args:
            app: the app whose modes these are (a PlaygroundApp).
        """
        self.app = app

    def pick(self) -> None:
        """F7: the library's scenarios in a picker (a file that does not load: one notice
        each); the one chosen opens."""
        from playground.scenario.library import scenario_files
        from playground.scenario.loader import load_scenario
        from playground.scenario.model import ScenarioError
        from playground.tui.dialogs.scenario_dialogs import ScenarioPicker

        app = self.app
        if app.class_mode.refused("open_scenario"):  # serve --class: follow me (the palette calls this too)
            return
        scenarios: list[Scenario] = []
        broken: list[str] = []
        for path in scenario_files(app.scenario_dirs, recordings=True):
            try:
                scenarios.append(load_scenario(path, app.lang))
            except ScenarioError as exc:
                broken.append(str(exc))
        for message in broken:
            app.notify(message, severity="error")

        def chosen(result: tuple[Scenario, bool] | None) -> None:
            if result and not app.class_mode.refused("open_scenario"):  # follow me chosen meanwhile
                self.open(*result)

        app.push_screen(ScenarioPicker(scenarios), chosen)  # it shows them in course order

    def open(self, scenario: Scenario, challenge: bool = False) -> Awaitable[None] | None:
        """The scenario on its mode's screen: a lesson (lesson_screen.py) or a challenge
        (challenge_screen.py), in place of the mode's screen, or bound again if it shows
        (each mounted once: tui/mode_screens.py). Awaitable until that screen shows the
        scenario and its start has begun (None: it could not open)."""
        from playground.tui.screens.challenge_screen import ChallengeScreen
        from playground.tui.screens.lesson_screen import LessonScreen
        from playground.tui.screens.scenario_screen import ScenarioScreen

        app = self.app
        missing = [c for c in scenario.clients if c not in app.clients]
        if missing:
            app.notify(tr("{id} needs clients {clients}", id=scenario.id, clients=", ".join(scenario.clients)),
                       severity="error")
            return None
        if app.scenario_run is not None:
            app.scenario_run.autoplay = False
        app.first_run_hints(False)
        kind: type[ScenarioScreen] = ChallengeScreen if challenge else LessonScreen
        screen = app.mode_screens.get(kind)
        switched: Awaitable[None]
        if screen is app.mode_screen:
            app.mode_screens.close_dialogs()
            screen.bind(scenario)
            switched = AwaitComplete.nothing()
        else:
            screen.bind(scenario)  # (it binds once it shows)
            switched = app.mode_screens.show(screen)
        app.class_mode.opened(scenario, challenge)  # serve --class (tui/class_mode/)
        return switched

    def close(self, waiting: Callable[[], Text] | None = None) -> Awaitable[None]:
        """Back to free play; the panes keep what they show, the server its keys.
        `waiting` (a class's learner whose teacher closed the lesson): the lesson's screen
        stays, bound to nothing, its narration saying this."""
        from playground.tui.screens.free_play_screen import FreePlayScreen
        from playground.tui.screens.scenario_screen import ScenarioScreen

        app = self.app
        screen = app.mode_screen
        switched: Awaitable[None]
        if waiting is not None and isinstance(screen, ScenarioScreen):
            app.mode_screens.close_dialogs()
            screen.unbind(waiting)
            switched = AwaitComplete.nothing()
        else:
            switched = app.mode_screens.show(app.mode_screens.get(FreePlayScreen))
        app.class_mode.closed(switched)  # serve --class: the teacher's closes the class's lessons
        return switched
