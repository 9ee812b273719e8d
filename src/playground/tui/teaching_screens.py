"""Modals of teaching mode: pick a scenario, predict before a step, see the timeline."""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from playground.i18n import tr
from playground.served import delivered
from playground.cells import cut, pad, width
from playground.scenario.library import course_order, is_recording
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
        self.scenarios = course_order(scenarios)

    def compose(self) -> ComposeResult:
        # One line per scenario, cut to the box (cells, not characters): a long title or
        # its tags never wrap under the id column.
        inner = max(30, min(110, int(self.app.size.width * 0.9)) - 14)  # borders, padding, scrollbar
        with Vertical() as box:
            box.border_title = tr("Open a scenario  (Enter: step through it · c: challenge mode · Esc: close)")
            options = []
            for s in self.scenarios:
                order = getattr(s, "order", None)
                number = f"{order:>2}. " if isinstance(order, int) else ""
                idw = 24
                label = Text(pad(cut(number + s.id, idw - 1), idw), style="bold")  # a long id never touches the title
                tag = tr("  [challenge]")
                rest = s.title + (tag if s.challenge else "")
                tags = "  " + ", ".join(s.tags) if s.tags else ""
                room = inner - idw
                shown = cut(rest, room)
                label.append(shown.replace(tag, ""))
                if s.challenge and tag in shown:
                    label.append(tag, style="magenta")
                label.append(cut(tags, max(0, room - width(shown))), style="dim")
                options.append(Option(label, id=s.id))
            yield OptionList(*options)
            yield Static(id="lesson")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._show(0)

    def _show(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.scenarios):
            scenario = self.scenarios[index]
            text = Text(scenario.lesson.strip())
            if is_recording(scenario):
                text.append("\n" + tr("Recorded with F9: {path}\nTo narrate it, add narration = \"…\" "
                                       "(and pause, predict) under its steps; docs/scenarios.md shows how.",
                                       path=scenario.path), style="italic")
            self.query_one("#lesson", Static).update(text)

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


_OWN_NUMBER = re.compile(r"^\s*\(?\d+[.)]\s+")


def choice_label(number: int, choice: str) -> str:
    """One numbering only: a choice written as "1) (integer) 100" is shown "1. (integer) 100"."""
    return f"{number}. {_OWN_NUMBER.sub('', choice, count=1)}"


class PredictScreen(ModalScreen[int]):
    """Asks the step's question before it runs; dismisses with the chosen number
    (1-based), or 0 when skipped with Escape."""

    DEFAULT_CSS = _MODAL_CSS.format(name="PredictScreen") + """
    PredictScreen OptionList { height: auto; margin-top: 1; }
    PredictScreen #script { margin-top: 1; }
    PredictScreen #keys { margin-top: 1; color: $text-muted; }
    """
    BINDINGS = [Binding(str(i), f"choose({i})", show=False) for i in range(1, 10)] + [
        Binding("escape", "skip", "Skip the question")]

    def __init__(self, prediction: Prediction, command: str, script: Text | None = None) -> None:
        super().__init__()
        self.prediction = prediction
        self.command = command
        self.script = script

    def compose(self) -> ComposeResult:
        n = len(self.prediction.choices)
        with VerticalScroll() as box:
            box.border_title = tr("Predict, then see")
            box.border_subtitle = tr("1–{n} or ↑↓ Enter: answer · Esc: skip", n=n)
            yield Label(Text(self.command, style="bold"))
            if self.script:
                yield Static(self.script, id="script")
            yield Label(Text(self.prediction.question, style="bold"))
            yield OptionList(*[Option(choice_label(i, c), id=str(i))
                               for i, c in enumerate(self.prediction.choices, 1)])
            yield Label(tr("Keys: 1–{n} answer · ↑↓ then Enter · Esc skips this question (not scored)", n=n), id="keys")

    def action_skip(self) -> None:
        self.dismiss(0)

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
        if not delivered(self.app, path):
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
