"""An open scenario in the TUI, whatever its mode: its panes, the narration panel, the
clock, the timeline, the transcript and every schedule of a part. How it moves is its
mode's: lesson_run.py steps through it, challenge_run.py lets the learner
schedule it."""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.text import Text

from playground.scenario import transcript as report
from playground.cells import cut
from playground.i18n import N_, tr
from playground.scenario.runner import ScenarioResult, StepResult
from playground.scenario.model import Scenario
from playground.tui.scenario_runs.teaching_text import clock
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.dialogs.scenario_dialogs import TimelineScreen

if TYPE_CHECKING:
    from textual.geometry import Size

    from playground.engine.executor import Executor
    from playground.engine.playground import Playground
    from playground.scenario.challenge import Challenge
    from playground.scenario.stepper import Stepper
    from playground.tui.exports import Exports
    from textual.app import App

    from playground.tui.widgets.narration import NarrationPanel


class RunScreen(Protocol):
    """What a ScenarioRun needs of its screen (a lesson's or a challenge's ScenarioScreen,
    tui/screens/scenario_screen.py): its app, its panes and narration, its classes."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def narration(self) -> NarrationPanel: ...

    def pane(self, client: str) -> ClientPane: ...

    def has_class(self, *class_names: str) -> bool: ...


class LedKeys(Protocol):
    """Which of a scenario's keys wait for the teacher (class mode's `leads`: a learner in
    follow me), asked by the narration's line of keys."""

    def leads(self, action: str, parameters: tuple = ()) -> bool: ...


class ScenarioRunHost(Protocol):
    """What a ScenarioRun needs of the app: the playground and its one command path, the
    exports, the next scenario's opening, a refresh after a step, class mode (which keys
    wait for the teacher), and Textual's App (its size and classes, its dialogs)."""

    playground: Playground
    executor: Executor
    exports: Exports
    @property
    def class_mode(self) -> LedKeys: ...

    @property
    def size(self) -> Size: ...

    def has_class(self, *class_names: str) -> bool: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...

    async def push_screen_wait(self, screen: Any) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def open_scenario(self, scenario: Scenario, challenge: bool = False) -> Awaitable[None] | None: ...

    def refresh_everything(self) -> None: ...

TYPING_SPEEDS = [0, 20, 40, 80, 160]  # characters per second; 0 = no typing animation


class ScenarioRun:
    """One open scenario on its screen (lesson_screen.py, challenge_screen.py)."""

    stepper: Stepper | None = None        # a lesson's engine Stepper (lesson_run.py)
    challenge: Challenge | None = None    # a challenge's engine Challenge (challenge_run.py)
    won: bool | None = None  # a challenge's outcome once both are done

    def __init__(self, screen: RunScreen, scenario: Scenario) -> None:
        """Args:
            screen: the lesson's or the challenge's screen: its panes and narration.
            scenario: the scenario it opens.
        """
        self.screen = screen
        self.app = cast("ScenarioRunHost", screen.app)  # (a PlaygroundApp: tui/app.py checks that it is one)
        self.scenario = scenario
        self.speed_index = 2
        self.autoplay = False
        self.answers: dict[int, int] = {}     # step index -> chosen answer
        self.answers_kept = False             # a class's run: an answer stays through rewinds (it is the class's)
        self.message = Text()                 # what the last action has to say
        self.typed: list[tuple[str, str, int]] = []
        """Commands typed by hand since the last start or rewind that changed the lesson's
        path: (client, the command, the step the header showed)."""
        self.started_at = time.monotonic()    # the scenario clock (restarts with r)
        self.ran_at: list[float] = []         # when each step ran (to tell a TTL ran out)
        self.sleep_until: float | None = None  # a `sleep` step is letting time pass
        self.clock_shown = ""                 # the clock as the narration shows it (render)
        self.stepping: str | None = None      # the client whose step runs now (its pane shows the step whole)

    @property
    def source(self):
        """The engine's side: the Stepper or the Challenge (results, timeline)."""
        return self.stepper or self.challenge

    async def reset(self) -> None:
        """A fresh server holding the scenario's state before its first step."""
        raise NotImplementedError

    async def move(self, client: str) -> None:
        """A challenge: `client` moves one step (challenge_run.py); a lesson has no moves."""
        raise NotImplementedError

    def start_message(self) -> Text:
        """What the narration says before the first step."""
        raise NotImplementedError

    def spec_goal(self) -> str:
        """The challenge's goal, as the scenario states it ("" for a scenario without one)."""
        return self.scenario.challenge.goal if self.scenario.challenge else ""

    def explore_part(self) -> int:
        """The part (from 1) whose schedules `s` explores."""
        raise NotImplementedError

    # -- helpers ------------------------------------------------------------------

    @property
    def speed(self) -> int:
        return TYPING_SPEEDS[self.speed_index]

    def pane(self, client: str) -> ClientPane:
        return self.screen.pane(client)

    def show_result(self, result: StepResult) -> None:
        """A step in the panes: a client's step in its own pane; a server action (a server
        step) in every pane, as the server's, since no client typed it; `connect B node` in
        the pane of the client it moves."""
        step = result.step
        if step.kind != "server":
            self.pane(step.client).show_result(result)
            return
        words = (step.server or "").split()
        moved = words[1:2] if words[:1] == ["connect"] and words[1:2] and words[1] in self.scenario.clients else []
        for client in moved or self.scenario.clients:
            self.pane(client).show_result(result)

    def next_line(self, step) -> str:
        """A step about to run, as the narration's `next:` and a prediction show it: `A> SET
        k v` (its saved values filled in, a named script by its name), the server's action as
        the server's (`[server] kill primary`), or a pending reply."""
        if step.kind == "server":
            return step.display
        if step.wait:
            return tr("({client}'s pending reply arrives)", client=step.client)
        return f"{step.client}> {self.source.runner.preview(step)}"

    def clear_panes(self) -> None:
        for name in self.scenario.clients:
            self.pane(name).action_clear()
            self.pane(name).clear_input()

    def on_event(self, event) -> None:
        """The executor's events for the steps: the panes show each step whole
        (`show_result`), so only what happens besides the reply is drawn here."""
        from playground.engine import events as ev

        if isinstance(event, ev.Pushed):
            self.pane(event.client).handle(event)
        elif isinstance(event, ev.ServerGone):  # the step's own client: show_result says it; another one
            if event.client != self.stepping:   # (blocked meanwhile) has its connection closed under it
                self.pane(event.client).note(event.text)
        elif isinstance(event, ev.Notice) and not isinstance(event, ev.Refused):
            self.pane(event.client).note(event.text)

    async def after_step(self, result: StepResult | None) -> None:
        """State lines, inspector: once per step, like a typed command, once the
        executor has attributed the step's writes from its units."""
        await self.app.executor.attributed()
        self.app.refresh_everything()

    def part_separator(self, name: str) -> None:
        for client in self.scenario.clients:
            self.pane(client).separator(name)

    async def begin(self) -> None:
        """From the top, with nothing left of before: a fresh server holding only the first
        part's setup (the state before step 1), clients in no MULTI or WATCH, empty panes,
        no answers, no score, the clock at 0:00."""
        self.clear_panes()
        self.answers.clear()
        self.ran_at = []
        self.won = None
        self.sleep_until = None
        await self.reset()
        if self.app.playground.writes is not None:
            self.app.playground.writes.forget()
        self.started_at = time.monotonic()
        self.typed.clear()
        self.message = self.start_message()
        await self.after_step(None)
        self.render()

    async def restart(self) -> None:
        await self.begin()

    def faster(self) -> None:
        self.speed_index = min(self.speed_index + 1, len(TYPING_SPEEDS) - 1)
        self.render()

    def slower(self) -> None:
        self.speed_index = max(self.speed_index - 1, 0)
        self.render()

    # -- every schedule (the race explorer) -----------------------------------------

    async def explore(self) -> None:
        """Run every schedule of the current part (the challenge's in challenge mode) on
        servers of its own and show the outcomes; the one picked opens as a scenario of
        its own order. Esc comes back to the same step, with the same keys and clients
        (the lesson's server was never touched)."""
        from playground.errors import ServerError
        from playground.explore.explorer import ExploreError
        from playground.explore.free_play import explore_apart
        from playground.explore.schedule_replay import schedule_scenario
        from playground.tui.dialogs.explore_screen import ExploreScreen

        part = self.explore_part()
        before = self.message
        self.message = Text(tr("Running every schedule on a server of its own…"), style="italic")
        self.render()
        try:
            binary = self.app.playground.binary_apart()
            result = await explore_apart(self.scenario, part, binary)
        except (ExploreError, ServerError, OSError) as exc:
            self.message = Text(str(exc), style="bold red")
            self.render()
            return
        self.message = before
        self.render()
        picked = await self.app.push_screen_wait(ExploreScreen(result))
        if picked is not None:
            self.app.call_later(self.app.open_scenario, schedule_scenario(result, result.classes[picked]))

    # -- views --------------------------------------------------------------------

    def timeline_text(self) -> str:
        source = self.source
        lanes = len(self.scenario.clients) or 1
        box = min(110, int(self.app.size.width * 0.9)) - 8   # the timeline modal's inside
        width = max(24, min(60, (box - 3 * (lanes - 1)) // lanes))
        return source.timeline.render_text(self.scenario.clients, width)

    def export_timeline(self) -> Path | None:
        source = self.source
        text = f"# {self.scenario.title}\n\n" + source.timeline.render_markdown(self.scenario.clients)
        return self.app.exports.write(f"{self.scenario.id}-timeline.md", text, N_("timeline written to {path}"))

    async def show_timeline(self) -> None:
        self.app.push_screen(TimelineScreen(self.timeline_text, self.export_timeline))  # (made again after F12)

    def transcript_markdown(self) -> str:
        results = self.source.results
        result = ScenarioResult(self.scenario, self.app.playground.label, steps=list(results))
        return report.render_markdown(result)

    def score(self) -> tuple[int, int]:
        """Predictions right, predictions answered (a lesson's)."""
        return 0, 0

    @property
    def presenter(self) -> bool:
        return self.screen.has_class("-presenter")

    def tick(self) -> None:
        """Twice a second (more often while a `sleep` step waits): the clock moves. Nothing
        else in the narration moves with time: it is built again only for the clock's next
        second (every learner's app of a class ticks)."""
        if self.sleep_until is None and self.clock_shown == self._clock():
            return
        self.render()

    def _clock(self) -> str:
        """The scenario clock now, as the narration's header shows it."""
        return clock(time.monotonic() - self.started_at)

    def running(self) -> bool:
        """Past the first step and before the end (a challenge: once a move is made): the
        narration shows the steps, not the lesson's summary."""
        if self.stepper is not None:
            return 0 < self.stepper.cursor < len(self.stepper.flat)
        return self.challenge is not None and bool(self.challenge.moves)

    def render(self) -> None:
        from playground.tui.scenario_runs.run_view import narration_text

        self.clock_shown = self._clock()  # (the header's, read by narration_text)
        narration = self.screen.narration
        # The panes stay put from the lesson's start to its end, and from one lesson to the next
        # (its summary before step 1 included: the first step lays out nothing more than the
        # next ones, nor a class's next lesson more than a step); on a short screen (80×24)
        # rows count for more
        narration.steady = not self.app.has_class("-short")
        narration.body = narration_text(self)

    def note_free_command(self, keys: set[bytes], unit=None) -> None:
        """A command typed by hand wrote `keys` (a lesson warns when it depends on them)."""

    def typed_text(self) -> str:
        """The commands typed by hand since the lesson's last start or rewind that changed
        its path, e.g. "UNWATCH in A at step 2" (empty: none)."""
        shown = [tr("{command} in {client} at step {step}", command=cut(line, 40), client=client, step=step)
                 for client, line, step in self.typed[:3]]
        if len(self.typed) > 3:
            shown.append(tr("{count} more", count=len(self.typed) - 3))
        return ", ".join(shown)

    def note_typed(self, client: str, line: str, argv=()) -> None:
        """A command typed by hand in `client`'s pane ran (a lesson names it when it
        changes the lesson's path)."""
