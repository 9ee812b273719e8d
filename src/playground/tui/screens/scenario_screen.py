"""What a lesson's screen and a challenge's screen share: the narration panel, the open
scenario (a tui.teacher.Teacher), one step at a time, the clock, closing.

The scenario's keys act wherever letters do not type (the narration panel, where the
class looks, the keys, the lanes); in a pane or a filter the same letters type:
check_action hides them there, as the footer shows.
"""

from __future__ import annotations

from textual import work
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Input

from playground.i18n import N_, tr
from playground.tui.screens.mode_screen import ModeScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.focus import focus_now

AUTOPLAY_PAUSE = 2.5  # seconds between steps in autoplay

ESCAPE = Binding("escape", "focus_narration", "Narration", show=False, tooltip=N_("back to the narration panel"))
RESTART = Binding("r", "teach('restart')", "Restart", tooltip=N_("restart from step 1"))
TIMELINE = Binding("t", "teach('timeline')", "Timeline", show=False,
                   tooltip=N_("timeline: what the server ran, in order"))
SCHEDULES = Binding("s", "teach('explore')", "Every schedule", show=False,
                    tooltip=N_("every schedule of this part, on a server of its own (Esc comes back here)"))
PRESENTER = Binding("f", "presenter", "Presenter", tooltip=N_("presenter layout for a projector"))
INSPECTOR = Binding("i", "toggle_inspector", "Keys on/off", show=False, tooltip=N_("key inspector on/off"))
CLOSE = Binding("x", "teach('close')", "Close", tooltip=N_("close the scenario (asks)"))

STEPS = {"end": "run_to_end", "timeline": "show_timeline"}
"""teach(what) -> the Teacher's method, where the names differ."""

IN_NARRATION = {"teach", "presenter", "toggle_inspector"}
"""Actions whose keys are letters: they act from the narration panel only."""


class ScenarioScreen(ModeScreen):
    """An open scenario; lesson_screen.py and challenge_screen.py say how it moves."""

    TEACHER: type = None  # the scenario's Teacher for this mode (lesson_teacher.py, challenge_teacher.py)

    def __init__(self, clients: list[str], scenario, carried: ModeScreen | None = None) -> None:
        super().__init__(clients, carried)
        self.scenario = scenario
        self.busy = True  # until the scenario has begun (its setup on a fresh server)

    def on_mount(self) -> None:
        super().on_mount()
        self.teacher = self.TEACHER(self, self.scenario)
        self.query_one(KeyInspector).held_ttl = self._held_ttl  # TTLs held while the lesson waits
        self.narration.add_class("-open")
        self.teacher.render()  # the lesson in the screen's first frame (a class's push: in every
        self.set_interval(0.5, self._tick_clock)  # learner's app at once), its server set up behind
        self.busy = False
        self.action_teach("begin")

    async def on_unmount(self) -> None:
        """Closed: the lesson's keys run on the wall clock again (scenario/lesson_clock.py)."""
        source = self.teacher.source if self.teacher is not None else None
        if source is not None:
            await source.runner.close_clock()

    def _held_ttl(self, key: bytes, read_at: float) -> tuple[int, float] | None:
        source = self.teacher.source if self.teacher is not None else None
        return source.runner.clock.shown_ttl(key, read_at) if source is not None else None

    def focus_start(self) -> None:
        focus_now(self.narration)  # where Space steps

    def _tick_clock(self) -> None:
        try:
            self.teacher.tick()
        except NoMatches:  # the app is closing: its widgets are going
            pass

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in IN_NARRATION and isinstance(self.focused, Input):
            return False  # there the letters type (elsewhere, the keys or the lanes, they act)
        return super().check_action(action, parameters)  # (follow me dims some: mode_screen.py)

    def action_focus_narration(self) -> None:
        """Escape: back to the narration, where Space steps (from a pane, Space types)."""
        self.focus_chosen = True
        focus_now(self.narration)

    def action_teach(self, what: str) -> None:
        """A key of the narration panel (and Ctrl+N from anywhere in a lesson)."""
        teacher = self.teacher
        if teacher is None or self.app.class_refused("teach", (what,)):  # serve --class: follow me
            return
        if what == "close":
            self._ask_close()
            return
        if what in ("faster", "slower"):
            getattr(teacher, what)()
            return
        if what == "autoplay":
            teacher.autoplay = not teacher.autoplay
            teacher.render()
            if teacher.autoplay:
                self.action_teach("next")
            return
        if self.busy:  # the scenario's start or a step still runs: this key runs after it
            self.pending = what  # (the last key pressed meanwhile, not every one)
            return
        self.busy = True  # at once, not when the worker starts: a second key waits its turn
        self._teach(what)

    pending: str | None = None
    """A key pressed while a step ran (action_teach's `what`): it runs when the step ends."""

    @work(exclusive=False, group="teach", exit_on_error=False)
    async def _teach(self, what: str) -> None:
        teacher = self.teacher
        self.busy = True
        try:
            if not await self.app.class_before(what, teacher):  # serve --class: the histogram, follow me
                return
            if what.startswith("move:"):
                await teacher.move(what.split(":", 1)[1])
            else:
                await getattr(teacher, STEPS.get(what, what))()
        except Exception as exc:  # never a traceback in front of the class
            self.notify(f"{what}: {exc}", severity="error")
        finally:
            self.busy = False
        self.app.class_after(teacher)
        pending, self.pending = self.pending, None
        if pending is not None and self.is_attached:
            self.action_teach(pending)
            return
        if teacher.autoplay and self.is_attached:
            self.set_timer(AUTOPLAY_PAUSE, lambda: self.action_teach("next") if teacher.autoplay else None)

    def _ask_close(self) -> None:
        """x: close the scenario, after asking (a stray key must not end the lesson)."""
        from playground.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes and not self.app.class_refused("teach", ("close",)):  # follow me chosen meanwhile
                self.teacher.autoplay = False
                self.app.close_scenario()

        self.app.push_screen(ConfirmScreen(tr("Close {id}? The server keeps its keys; F7 opens a scenario again.",
                                              id=self.scenario.id)), answered)
