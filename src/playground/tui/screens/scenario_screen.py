"""What a lesson's screen and a challenge's screen share: the narration panel, the open
scenario (a tui ScenarioRun), one step at a time, the clock, closing.

The scenario's keys act wherever letters do not type (the narration panel, where the
class looks, the keys, the lanes); in a pane or a filter the same letters type:
check_action hides them there, as the footer shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Input

from playground.i18n import N_, tr
from playground.tui.screens.mode_screen import ModeScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.focus import focus_now

if TYPE_CHECKING:
    from playground.scenario.model import Scenario
    from playground.tui.scenario_runs.scenario_run import ScenarioRun

AUTOPLAY_PAUSE = 2.5  # seconds between steps in autoplay
WAITING_LINES = 12  # the narration's lines while waiting for a class's lesson: its full height (its
# max-height, 14 rows, less its border), which most lessons' texts reach at their start

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
"""teach(what) -> the ScenarioRun's method, where the names differ."""

IN_NARRATION = {"teach", "presenter", "toggle_inspector"}
"""Actions whose keys are letters: they act from the narration panel only."""


class ScenarioScreen(ModeScreen):
    """An open scenario; lesson_screen.py and challenge_screen.py say how it moves.

    Mounted once (tui/mode_screens.py) and bound to each scenario the app opens (`bind`):
    a new ScenarioRun on the same widgets. Unbound (`unbind`), it has no scenario: its
    narration says what it waits for (a class's learner waits for the teacher's lesson)."""

    SCENARIO_RUN: type[ScenarioRun]  # the scenario's ScenarioRun for this mode (lesson_run.py, challenge_run.py)

    def __init__(self, clients: list[str]) -> None:
        super().__init__(clients)
        self.scenario: Scenario | None = None
        self.busy = True  # until the scenario has begun (its setup on a fresh server)
        self._next: Scenario | None = None
        """The scenario `bind` was given, until it is bound (at once, or once the screen enters)."""
        self._waiting: Callable[[], Text] | None = None  # unbound: what the narration says (made in the language shown)

    def on_mount(self) -> None:
        self.query_one(KeyInspector).held_ttl = self._held_ttl  # TTLs held while the lesson waits
        self.set_interval(0.5, self._tick_clock)
        super().on_mount()

    def enter(self) -> None:
        super().enter()
        if self._next is not None:
            self._bind_next()
        elif self.scenario_run is None:
            self._show_waiting()

    def bind(self, scenario: Scenario) -> None:
        """Open `scenario` here: at once if this is the mode's screen, else once it enters
        (after its panes took over what the screen before showed)."""
        self._next = scenario
        if self.is_mounted and self.shown and not self._entering:
            self._bind_next()

    def _bind_next(self) -> None:
        scenario, self._next = self._next, None
        if scenario is None:
            return
        retired = self._retire()
        self.scenario = scenario
        self.scenario_run = run = self.SCENARIO_RUN(self, scenario)
        run.message = Text(tr("Setting up the lesson's server…") + "\n", style="italic")  # one line, as
        # its start's will be (a class's push: the panel's height stays, no layout of the screen for it)
        self.narration.add_class("-open")
        run.render()  # the lesson in the screen's first frame (a class's push: in every
        self.busy = True       # learner's app at once), its server set up behind
        self.refresh_bindings()  # (follow me dims the lesson's keys)
        self._teach("begin", retired)

    def unbind(self, waiting: Callable[[], Text] | None = None) -> None:
        """No scenario here any more (the app leaves it, or a class's lesson closed);
        `waiting`: what the narration says meanwhile (None: the narration is hidden)."""
        self._next = None
        retired = self._retire()
        self.scenario = None
        self.scenario_run = None
        self.busy = False
        self._waiting = waiting
        if self.is_mounted:
            self._show_waiting()
            if retired is not None:
                self.run_worker(self._close_clock(retired), group="retire", exit_on_error=False)

    def _show_waiting(self) -> None:
        narration = self.narration
        narration.set_class(self._waiting is not None, "-open")
        if self._waiting is not None and not self.app.has_class("-short"):  # a class's learner: the panel
            narration.reserve(WAITING_LINES)  # as high as a lesson's from now on (a lesson comes in place)
        else:
            narration.steady = False
        narration.body = self._waiting() if self._waiting is not None else Text()
        self.refresh_bindings()

    def language_switched(self) -> None:
        """F12: what the narration says while no scenario is bound, in the new language."""
        if self.scenario_run is None and self._waiting is not None and self.is_mounted:
            self._show_waiting()

    def _retire(self) -> ScenarioRun | None:
        """The scenario bound until now stops: its steps (a worker) cancelled, its autoplay
        off. Returns its ScenarioRun (its clock is closed by whoever binds next), or None."""
        old = self.scenario_run
        if old is None:
            return None
        old.autoplay = False
        self.workers.cancel_group(self, "teach")
        self.pending = None
        return old

    @staticmethod
    async def _close_clock(run: ScenarioRun | None) -> None:
        """The lesson's keys run on the wall clock again (scenario/lesson_clock.py)."""
        source = run.source if run is not None else None
        if source is not None:
            await source.runner.close_clock()

    def leave(self) -> None:
        super().leave()
        self.unbind()

    async def on_unmount(self) -> None:
        """Closed: the lesson's keys run on the wall clock again (scenario/lesson_clock.py)."""
        await self._close_clock(self.scenario_run)

    def _held_ttl(self, key: bytes, read_at: float) -> tuple[int, float] | None:
        source = self.scenario_run.source if self.scenario_run is not None else None
        return source.runner.clock.shown_ttl(key, read_at) if source is not None else None

    def focus_start(self) -> None:
        focus_now(self.narration)  # where Space steps

    def _tick_clock(self) -> None:
        if self.scenario_run is None:
            return
        try:
            self.scenario_run.tick()
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
        run = self.scenario_run
        if run is None:  # a class's learner waiting for the teacher's lesson (its keys stay in the footer:
            if self._waiting is not None:  # the footer is not made again when the lesson comes)
                self.notify(tr("No lesson yet: your teacher opens one.") if self.host.class_mode.leads("open_scenario")
                            else tr("No lesson yet: your teacher opens one (F7 opens one of your own)."), timeout=3)
            return
        if self.host.class_mode.refused("teach", (what,)):  # serve --class: follow me
            return
        if what == "close":
            self._ask_close()
            return
        if what in ("faster", "slower"):
            getattr(run, what)()
            return
        if what == "autoplay":
            run.autoplay = not run.autoplay
            run.render()
            if run.autoplay:
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
    async def _teach(self, what: str, retired: ScenarioRun | None = None) -> None:
        run = self.scenario_run
        self.busy = True
        try:
            if run is None:  # (unbound meanwhile)
                return
            if retired is not None:  # the scenario this screen was bound to before
                await self._close_clock(retired)
            if not await self.host.class_mode.before(what, run):  # serve --class: the histogram, follow me
                return
            if what.startswith("move:"):
                await run.move(what.split(":", 1)[1])
            else:
                await getattr(run, STEPS.get(what, what))()
        except Exception as exc:  # never a traceback in front of the class
            self.notify(f"{what}: {exc}", severity="error")
        finally:
            if self.scenario_run is run:  # (not a scenario bound here since: bind cancelled this)
                self.busy = False
        if run is None:
            return
        self.host.class_mode.after(run)
        pending, self.pending = self.pending, None
        if pending is not None and self.is_attached:
            self.action_teach(pending)
            return
        if run.autoplay and self.is_attached:
            self.set_timer(AUTOPLAY_PAUSE, lambda: self.action_teach("next") if run.autoplay else None)

    def _ask_close(self) -> None:
        """x: close the scenario, after asking (a stray key must not end the lesson)."""
        from playground.tui.dialogs.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes and not self.host.class_mode.refused("teach", ("close",)):  # follow me chosen meanwhile
                if self.scenario_run is not None:
                    self.scenario_run.autoplay = False
                self.host.close_scenario()

        scenario_id = self.scenario.id if self.scenario is not None else ""
        self.app.push_screen(ConfirmScreen(tr("Close {id}? The server keeps its keys; F7 opens a scenario again.",
                                              id=scenario_id)), answered)
