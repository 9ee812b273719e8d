"""Free play's exploration while it runs: what it explores (the lines typed, every program
started from Ctrl+G), how many orders it runs, once the explorer has planned them, and a
progress bar moved by the explorer's progress (Explorer.progress) as messages from the
screen's worker. Esc or Ctrl+C cancels it: the worker's cancellation ends the programs it
started and its private server (explore/free_play.py) before the screen closes saying so.
It dismisses with the exploration (None: cancelled, or it failed and said why)."""

from __future__ import annotations

import asyncio

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
    its worker; `what`: the lines saying what is explored."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+c", "cancel", "Cancel", priority=True)]

    class Progress(Message):
        """The explorer's progress: schedules run, planned, the orders they stand for,
        and whether `planned` is exact."""

        def __init__(self, run: int, planned: int, total: int, exact: bool) -> None:
            super().__init__()
            self.run, self.planned, self.total, self.exact = run, planned, total, exact

    def __init__(self, explore, what: list[str]) -> None:
        super().__init__()
        self.explore = explore
        self.what = what
        self.cancelling = False
        self.told: ExploringScreen.Progress | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Could it have gone differently?  (Esc: cancel)")
            yield Static(Text("\n".join(self.what)), id="exploring-what")
            yield Static(Text(tr("Planning the orders to run, on a server of its own…")), id="exploring-plan")
            yield ProgressBar(show_eta=False, id="exploring-bar")
            yield Static(Text(tr("0 orders run")), id="exploring-count")

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
        if message.run == 0:
            if message.exact:
                plan = tr("{planned} orders to run", planned=f"{message.planned:,}")
                if message.total != message.planned:
                    plan += tr(" (they stand for all {total} orders)", total=f"{message.total:,}")
            else:
                plan = tr("About {planned} orders to run: the orders of your programs' commands as they ran "
                          "(in other orders a program may send more or fewer)", planned=f"{message.planned:,}")
                if message.total > message.planned:
                    plan += tr("; the search stops there, of about {total}", total=f"{message.total:,}")
            self.query_one("#exploring-plan", Static).update(Text(plan))
        self.query_one(ProgressBar).update(total=message.planned, progress=message.run)
        self.query_one("#exploring-count", Static).update(
            Text(tr("{run} of {planned} orders run", run=f"{message.run:,}", planned=f"{message.planned:,}")))

    def action_cancel(self) -> None:
        """Esc, Ctrl+C: the worker is cancelled; it closes the screen once everything it
        started has ended."""
        if self.cancelling:
            return
        self.cancelling = True
        self.query_one("#exploring-count", Static).update(Text(tr("Cancelling…")))
        self.workers.cancel_group(self, "exploring")
