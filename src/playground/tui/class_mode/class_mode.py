"""The app's class mode (serve --class): what the app and its screens ask of the class —
whether follow me refuses a key (`leads`, `refused`), the teaching actions' hooks
(`opened`, `closed`, `before`, `after`) and Alt+C, the teacher's class overview. Outside
class mode every hook does nothing.

An object the app owns (`PlaygroundApp.class_mode`), made with the app it serves; what it
needs of the app is `ClassHost`. The app's part in the class itself (its link to the
class's Redis, the lesson it follows) is a ClassMember (class_member.py), made when the
app's server is up (`start`)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import TYPE_CHECKING, Any, Protocol

from playground.classroom.protocol import ENDED_EXIT, ENV_ROLE, ENV_URL, ClassError
from playground.i18n import tr

if TYPE_CHECKING:
    from textual.binding import ActiveBinding
    from textual.screen import Screen
    from textual.worker import Worker
    from textual.worker_manager import WorkerManager

    from playground.engine.playground import Playground
    from playground.tui.class_mode.class_member import ClassMember
    from playground.tui.scenario_runs.scenario_run import ScenarioRun

REFUSED_SHOWN = 3.0  # seconds the refusal stays on screen (one at a time: keys pressed meanwhile show no more)
END_WAIT = 5.0  # seconds the teacher's tab waits for the class's Redis to take the class's end


class BusyScreen(Protocol):
    """What class mode needs of the mode's screen (tui/screens/mode_screen.py): its busy flag,
    set while a follower's tab catches up with the teacher's step."""

    busy: bool


class ClassHost(Protocol):
    """What class mode (ClassMode and its ClassMember) needs of the app: Textual's App
    methods, and the playground app's mode, lesson and library."""

    lang: str
    scenario_dirs: list[str]
    playground: Playground

    @property
    def scenario_run(self) -> ScenarioRun | None: ...  # the open scenario's, None in free play

    @property
    def mode_screen(self) -> BusyScreen: ...

    @property
    def screen(self) -> Screen: ...

    @property
    def workers(self) -> WorkerManager: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def refresh_bindings(self) -> None: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker: ...

    async def push_screen_wait(self, screen: Any) -> Any: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...

    def pop_screen(self) -> Any: ...

    def open_scenario(self, scenario: Any, challenge: bool = False) -> Any: ...

    def close_scenario(self, waiting: Any = None) -> Any: ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None: ...

    @property
    def focused(self) -> Any: ...  # the widget with the focus (a pane's line being typed)

    def watch(self, obj: Any, attribute_name: str, callback: Any, init: bool = True) -> None: ...


class ClassMode:
    """The app's side of serve --class (nothing, outside it)."""

    def __init__(self, app: ClassHost) -> None:
        """Args:
            app: the app in the class (its role read from the environment serve gave it).
        """
        self.app = app
        self.member: ClassMember | None = None  # this app's part in the class, once started
        self.role = os.environ.get(ENV_ROLE) if os.environ.get(ENV_URL) else None  # (ENV_URL is read once, at start)
        self._refused_at: float | None = None
        """When follow me's refusal was last shown (None: not since the mode changed)."""

    @property
    def teacher_tab(self) -> bool:
        """This tab is the teacher's (from its start: the footer shows Alt+C at once)."""
        return self.role == "teacher"

    @property
    def learner_tab(self) -> bool:
        """This tab is a learner's in a class (from its start: its first screen waits for the lesson)."""
        return self.role is not None and self.role != "teacher"

    # -- follow me: a learner's tab stays on the teacher's lesson and step -----------

    def leads(self, action: str, parameters: tuple = ()) -> bool:
        """serve --class, a learner in follow me: `action` (the app's or a mode screen's)
        would move or leave the teacher's lesson. The one check: the screens' check_action
        (footer), F1, the actions themselves (the palette calls them) and `key` ask it."""
        if self.member is None:
            return False
        if action == "restart_server" and self.app.playground.server_stopped():  # (SHUTDOWN, a crash): it comes back
            return False
        return self.member.leads(action, parameters)

    def refused(self, action: str, parameters: tuple = ()) -> bool:
        """True, said in this tab, when follow me refuses `action` (`leads`)."""
        if not self.leads(action, parameters):
            return False
        if self.app.scenario_run is not None:
            self.app.scenario_run.autoplay = False
        now = time.monotonic()
        if self._refused_at is None or now - self._refused_at >= REFUSED_SHOWN:
            self._refused_at = now
            if self.member is not None and self.member.waits:
                said = tr("Your teacher leads the class now: this tab waits for their next lesson "
                          "(F7 is yours again when they choose own pace).")
            else:
                said = tr("Your teacher leads the class now: this tab stays on their lesson and step "
                          "(it is yours again when they choose own pace).")
            self.app.notify(said, title=tr("Follow me"), severity="warning", timeout=REFUSED_SHOWN)
        return True

    def changed(self) -> None:
        """A learner's class changed its mode or lesson: the footer's keys again, and the
        next refused key says so at once."""
        self._refused_at = None
        self.app.refresh_bindings()

    def key(self, active: ActiveBinding | None) -> None:
        """A key pressed (its binding on the screen, if any): one whose action follow me
        refuses (check_action: dimmed, not run) says why."""
        from textual.actions import parse

        if self.member is None or not self.member.follows or active is None or active.enabled:
            return
        _, action, parameters = parse(active.binding.action)
        if active.node.check_action(action, parameters) is None:  # dimmed, not hidden (a letter in a pane)
            self.refused(action, parameters)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """The app's check_action for class mode: True/False/None to decide, or "no word"
        (the app's own rules then): Alt+C only in the teacher's tab; follow me dims."""
        if action == "class_overview":
            return self.teacher_tab
        if self.leads(action, parameters):
            return None  # dimmed in the footer, not run (`key` says why)
        return True

    # -- the class's lifecycle, and the teaching actions' hooks -----------------------

    def start(self) -> None:
        """This app's part in the class (serve --class), once its server is up."""
        from playground.tui.class_mode.class_member import ClassMember

        if self.member is None:
            self.member = ClassMember.from_environment(self.app, self)
            if self.member is not None:
                self.app.run_worker(self.member.run(), group="classroom", exit_on_error=False)

    async def stop(self) -> None:
        if self.member is not None:
            await self.member.close()

    def opened(self, scenario: Any, challenge: bool) -> None:
        if self.member is not None:
            self.member.opened(scenario, challenge)

    def closed(self, switched: Any) -> None:
        if self.member is not None:
            self.member.closed(switched)

    async def before(self, what: str, scenario_run: Any) -> bool:
        return True if self.member is None else await self.member.before(what, scenario_run)

    def after(self, scenario_run: Any) -> None:
        if self.member is not None:
            self.member.after(scenario_run)

    def tab_shown(self, shown: bool) -> None:
        """Under serve, this app's tab came back or went (a learner's: the overview says away)."""
        if self.member is not None:
            self.member.tab_shown(shown)

    def quit(self) -> bool:
        """Alt+Q (and the palette's quit). In the teacher's tab it ends the class for every
        learner, after asking (True: this tab's part, asked or asking); elsewhere False: the
        app quits as always (a learner's Alt+Q ends their own tab's session only)."""
        if self.member is None or not self.member.teacher:
            return False
        if not any(worker.group == "class-end" and not worker.is_finished for worker in self.app.workers):
            self.app.run_worker(self._end_class, group="class-end", exit_on_error=False)  # (Alt+Q again: one question)
        return True

    async def _end_class(self) -> None:
        from playground.tui.dialogs.confirm import ConfirmScreen

        if self.member is None or not await self.app.push_screen_wait(ConfirmScreen(tr(
                "End the class for every learner? Their playgrounds end, and their tabs say the class is over. "
                "(To step away and come back, close this tab instead: your URL brings it back.)"))):
            return
        try:
            async with asyncio.timeout(END_WAIT):
                await self.member.end_class()
        except (TimeoutError, ClassError) as exc:  # the learners were not told: this tab stays, saying so
            self.app.notify(tr("Class mode: the class could not be ended: {error}",
                               error=str(exc) or tr("the class's Redis did not answer")), severity="error", timeout=10)
            return
        self.app.exit(return_code=ENDED_EXIT)

    def overview(self) -> None:
        """Alt+C (the teacher's tab): who is on which step, who won; m: follow me / own pace."""
        from playground.tui.class_mode.class_screens import ClassOverviewScreen

        if self.member is not None and self.member.teacher:
            if isinstance(self.app.screen, ClassOverviewScreen):
                self.app.pop_screen()
            else:
                self.app.push_screen(ClassOverviewScreen(self.member))
