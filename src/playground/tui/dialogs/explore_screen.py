"""The race explorer's outcomes in the app: one line per outcome class; Enter steps
through that class's first schedule like any scenario."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from playground.cells import pad, width
from playground.explore.outcomes import Exploration
from playground.i18n import tr
from playground.explore.report import GOAL_MARK, figures, outcome_lines, own_mark, summary_line


class ExploreScreen(ModalScreen[int | None]):
    """Every outcome of every schedule of the open scenario's part; dismisses with the
    index of the class to step through (None: closed)."""

    DEFAULT_CSS = """
    ExploreScreen { align: center middle; }
    ExploreScreen > Vertical { width: 95%; max-width: 130; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2; }
    ExploreScreen OptionList { height: auto; max-height: 20; margin-top: 1; }
    ExploreScreen #explore-summary { margin-top: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]
    AUTO_FOCUS = "OptionList"

    def __init__(self, result: Exploration) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        r = self.result
        rows = [(f"{c.count:,}", outcome_lines(r, c), c.label) for c in r.classes]
        heads = (tr("schedules"), tr("outcome"), tr("first schedule"))
        w_count = max([width(heads[0])] + [width(n) for n, _, _ in rows])
        w_out = max([width(heads[1])] + [width(x) for _, out, _ in rows for x in out])
        with Vertical() as box:
            box.border_title = tr("Every schedule  (Enter: step through it · Esc: close)")
            yield Static(Text(figures(r)), id="explore-figures")
            yield Static(Text("  " + "  ".join([pad(heads[0], w_count), pad(heads[1], w_out), heads[2]]),
                              style="bold"))
            options = []
            for (n, out, first), cls in zip(rows, r.classes, strict=True):  # (a row per class)
                label = Text()
                for i, line in enumerate(out):
                    if i:
                        label.append("\n")
                    label.append(pad(n if i == 0 else "", w_count) + "  ")
                    label.append(pad(line, w_out), style="bold red" if cls.deadlock and i == 0 else "")
                    if i == 0:
                        label.append("  " + first, style="cyan")
                        if cls.goal_reached:
                            label.append("  " + tr("{mark} the challenge's state", mark=GOAL_MARK),
                                         style="bold magenta")
                        if cls.own:
                            label.append("  " + own_mark(r), style="dim")
                options.append(Option(label))
            yield OptionList(*options)
            yield Static(Text(summary_line(r)), id="explore-summary")

    def say_again(self) -> None:
        """The outcomes in the language shown now (F12)."""
        self.refresh(recompose=True)
        self.call_after_refresh(self._focus_outcomes)

    def _focus_outcomes(self) -> None:
        """The outcomes focused again, unless the screen was closed meanwhile."""
        for outcomes in self.query(OptionList):
            outcomes.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)


FREE_PLAY_LINES = 10  # the last lines typed that free play explores (5 and 5: 252 schedules)


async def explore_typed_in_app(app) -> None:
    """"Could this have gone differently?": every order of the last lines typed in the
    panes, and of every program started by hand at the gate (each run again for every
    order), on a server of its own, its progress shown and Esc cancelling it
    (screens/exploring_screen.py); picking an outcome steps through its schedule."""
    from playground.explore.explorer import ExploreError
    from playground.explore.schedule_replay import schedule_scenario
    from playground.explore.free_play import explore_typed, hand_programs
    from playground.errors import ServerError
    from playground.tui.dialogs.exploring_screen import ExploringScreen

    typed = [(client, line) for client, line, _ in app.transcript if client in app.clients][-FREE_PLAY_LINES:]
    gate = app.own_programs.gate
    try:
        programs, order = hand_programs(gate, app.own_programs.url, tuple(app.clients)) if gate else ([], ())
    except ExploreError as exc:
        app.notify(str(exc), severity="error")
        return
    if len({client for client, _ in typed}) + len(programs) < 2:
        app.notify(tr("Type commands in at least two panes first: their orders are what gets explored.") if gate is None
                   else tr("Type commands in at least two panes, or start two programs of yours at the gate, first: "
                           "their orders are what gets explored."), severity="warning")
        return
    names = ", ".join(f"{p.client} = {p.shown}" for p in programs)

    def what() -> list[str]:
        lines = [tr("The last {count} commands typed in the panes.", count=len(typed))] if typed else []
        if programs:
            lines.append(tr("Every program of yours started at the gate ({programs}), each run again for every "
                            "order.", programs=names))
        return lines
    try:
        binary = app.playground.binary_apart()
    except (ServerError, OSError) as exc:
        app.notify(str(exc), severity="error")
        return

    async def explore(progress):
        return await explore_typed(typed, tuple(app.clients), binary, programs=programs, order=order,
                                   progress=progress)

    result = await app.push_screen_wait(ExploringScreen(explore, what))
    if result is None:
        return
    picked = await app.push_screen_wait(ExploreScreen(result))
    if picked is not None and programs:  # (a lesson's programs each have a pane; these have none)
        app.notify(tr("Your programs' schedules cannot be stepped through in the panes yet: {schedule} is the "
                      "order of that outcome", schedule=result.classes[picked].label), severity="warning")
    elif picked is not None:
        app.open_scenario(schedule_scenario(result, result.classes[picked]))
