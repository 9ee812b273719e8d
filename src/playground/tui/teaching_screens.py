"""Modals of teaching mode: pick a scenario, predict before a step, see the timeline."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from playground.i18n import tr
from playground.scenario.model import Prediction, Scenario

_MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical, {name} > VerticalScroll {{ width: 90%; max-width: 110; height: auto; max-height: 90%;
    border: thick $accent; background: $surface; padding: 1 2; }}
"""


class ScenarioPicker(ModalScreen[tuple[Scenario, bool] | None]):
    """Every scenario with its title, tags and lesson; Enter opens it, c as a challenge."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ScenarioPicker") + """
    ScenarioPicker OptionList { height: auto; max-height: 20; }
    ScenarioPicker #lesson { margin-top: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close"),
                Binding("c", "challenge", "Open as challenge")]

    def __init__(self, scenarios: list[Scenario]) -> None:
        super().__init__()
        self.scenarios = scenarios

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Open a scenario  (Enter: step through it · c: challenge mode · Esc: close)")
            options = []
            for s in self.scenarios:
                label = Text(f"{s.id:<24}", style="bold")
                label.append(s.title)
                if s.challenge:
                    label.append(tr("  [challenge]"), style="magenta")
                label.append("  " + ", ".join(s.tags), style="dim")
                options.append(Option(label, id=s.id))
            yield OptionList(*options)
            yield Static(id="lesson")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._show(0)

    def _show(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.scenarios):
            self.query_one("#lesson", Static).update(self.scenarios[index].lesson)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss((self.scenarios[event.option_index], False))

    def action_challenge(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None:
            return
        scenario = self.scenarios[index]
        if scenario.challenge is None:
            self.notify(tr("{id} has no challenge", id=scenario.id), severity="warning")
            return
        self.dismiss((scenario, True))


class PredictScreen(ModalScreen[int]):
    """Asks the step's question before it runs; dismisses with the chosen number (1-based)."""

    DEFAULT_CSS = _MODAL_CSS.format(name="PredictScreen") + """
    PredictScreen OptionList { height: auto; margin-top: 1; }
    """
    BINDINGS = [Binding(str(i), f"choose({i})", show=False) for i in range(1, 10)]

    def __init__(self, prediction: Prediction, command: str) -> None:
        super().__init__()
        self.prediction = prediction
        self.command = command

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Predict, then see")
            yield Label(Text(self.command, style="bold"))
            yield Label(self.prediction.question)
            yield OptionList(*[Option(f"{i}. {c}", id=str(i))
                               for i, c in enumerate(self.prediction.choices, 1)])

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index + 1)

    def action_choose(self, number: int) -> None:
        if 1 <= number <= len(self.prediction.choices):
            self.dismiss(number)


class TimelineScreen(ModalScreen[None]):
    """The commands in the order the server ran them; x exports it as Markdown."""

    DEFAULT_CSS = _MODAL_CSS.format(name="TimelineScreen") + """
    TimelineScreen > VerticalScroll { height: 90%; }
    """
    BINDINGS = [Binding("escape,q,t", "dismiss", "Close"), Binding("x", "export", "Export Markdown")]

    def __init__(self, text: str, export) -> None:
        super().__init__()
        self.text = text
        self.export = export

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = tr("Timeline: what the server executed, in order  (x: export · Esc: close)")
            yield Static(Text(self.text), id="timeline")

    def action_export(self) -> None:
        path = self.export()
        self.notify(tr("timeline written to {path}", path=path))


class JumpScreen(ModalScreen[int | None]):
    """Asks which step to go to."""

    DEFAULT_CSS = _MODAL_CSS.format(name="JumpScreen")
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(tr("Go to step (1 to {total}); the server replays the steps before it", total=self.total))
            yield Input(type="integer", id="n")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            n = int(event.value)
        except ValueError:
            return
        if 1 <= n <= self.total:
            self.dismiss(n)
