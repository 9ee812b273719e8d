"""Free play's exploration while it runs: what it explores (the lines typed, every program
started from Ctrl+G), how many orders it runs, once the explorer has planned them, and a
progress bar moved by the explorer's progress (Explorer.progress) as messages from the
screen's worker. Esc or Ctrl+C cancels it: the worker's cancellation ends the programs it
started and its private server (explore/free_play.py) before the screen closes saying so.
It dismisses with the exploration (None: cancelled, or it failed and said why)."""

from __future__ import annotations

import asyncio
from typing import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static

from playground.explore.outcomes import Exploration
from playground.i18n import tr


class ExploringScreen(ModalScreen[Exploration | None]):
    """Runs `explore` (a coroutine function taking the explorer's progress callback) in
    its worker; `what()`: the lines saying what is explored (in the language shown)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+c", "cancel", "Cancel", priority=True)]

    class Progress(Message):
        """The explorer's progress: schedules run, planned, the orders they stand for,
        and whether `planned` is exact."""

        def __init__(self, run: int, planned: int, total: int, exact: bool) -> None:
            super().__init__()
            self.run, self.planned, self.total, self.exact = run, planned, total, exact

    def __init__(self, explore, what: Callable[[], list[str]]) -> None:
        super().__init__()
        self.explore = explore
        self.what = what
        self.cancelling = False
        self.told: ExploringScreen.Progress | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Could it have gone differently?  (Esc: cancel)")
            yield Static(Text("\n".join(self.what())), id="exploring-what")
            yield Static(Text(tr("Planning the orders to run, on a server of its own…")), id="exploring-plan")
            yield ProgressBar(show_eta=False, id="exploring-bar")
            yield Static(Text(tr("0 orders run")), id="exploring-count")

    def say_again(self) -> None:
        """Its texts in the language shown now (F12)."""
        self.query_one(Vertical).border_title = tr("Could it have gone differently?  (Esc: cancel)")
        self.query_one("#exploring-what", Static).update(Text("\n".join(self.what())))
        if self.told is not None:
            self._show(self.told)

    def on_mount(self) -> None:
        self.run_exploration()

    @work(exclusive=True, group="exploring", exit_on_error=False)
    async def run_exploration(self) -> None:
        def progress(run: int, planned: int, total: int, exact: bool) -> None:
            self.post_message(self.Progress(run, planned, total, exact))

        try:
            result = await self.explore(progress)
        except asyncio.CancelledError:
            # (its programs and its server have ended by now: the cancellation came through them)
            self.app.notify(tr("Exploration cancelled: its programs and its server have ended."))
            self.dismiss(None)
            raise
        except Exception as exc:  # (ExploreError, ServerError, OSError: one line, as before)
            self.app.notify(str(exc), severity="error")
            self.dismiss(None)
            return
        self.dismiss(result)

    def on_exploring_screen_progress(self, message: Progress) -> None:
        self.told = message
        self._show(message)

    def _show(self, told: Progress) -> None:
        """The plan (from the explorer's first word on: before the first order runs), the
        bar and the count, as `told`."""
        if told.exact:
            plan = tr("{planned} orders to run", planned=f"{told.planned:,}")
            if told.total != told.planned:
                plan += tr(" (they stand for all {total} orders)", total=f"{told.total:,}")
        else:
            plan = tr("About {planned} orders to run: the orders of the commands your programs sent "
                      "(in other orders a program may send more or fewer)", planned=f"{told.planned:,}")
            if told.total > told.planned:
                plan += tr("; the search stops there, of about {total}", total=f"{told.total:,}")
        self.query_one("#exploring-plan", Static).update(Text(plan))
        self.query_one(ProgressBar).update(total=told.planned, progress=told.run)
        if not self.cancelling:
            self.query_one("#exploring-count", Static).update(
                Text(tr("{run} of {planned} orders run", run=f"{told.run:,}", planned=f"{told.planned:,}")))

    def action_cancel(self) -> None:
        """Esc, Ctrl+C: the worker is cancelled; it closes the screen once everything it
        started has ended."""
        if self.cancelling:
            return
        self.cancelling = True
        self.query_one("#exploring-count", Static).update(Text(tr("Cancelling…")))
        self.workers.cancel_group(self, "exploring")
