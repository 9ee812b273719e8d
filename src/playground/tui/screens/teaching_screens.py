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
from playground.cells import cut, pad, width
from playground.scenario.library import course_order, is_recording
from playground.scenario.model import Prediction, Scenario
from playground.scenario.tags import tag_names
from playground.tui.plain_text import lines, plain, visible, visible_text

_MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical, {name} > VerticalScroll {{ width: 90%; max-width: 110; height: auto; max-height: 90%;
    border: thick $accent; background: $surface; padding: 1 2; }}
"""


class ScenarioPicker(ModalScreen[tuple[Scenario, bool] | None]):
    """Every scenario with its title, tags and lesson. Typing searches ids and titles
    (letters never trigger an action here); ↑/↓ pick, Enter opens, Ctrl+E as a challenge."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ScenarioPicker") + """
    ScenarioPicker OptionList { height: auto; max-height: 18; }
    ScenarioPicker #lesson { margin-top: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "dismiss(None)", "Close"),
                Binding("ctrl+e", "challenge", "Open as challenge", priority=True),  # over Input's ctrl+e
                Binding("down", "move(1)", "Next", show=False),
                Binding("up", "move(-1)", "Previous", show=False),
                Binding("pagedown", "move(8)", "Page down", show=False),
                Binding("pageup", "move(-8)", "Page up", show=False)]

    def __init__(self, scenarios: list[Scenario]) -> None:
        super().__init__()
        self.all_scenarios = course_order(scenarios)
        self.scenarios = list(self.all_scenarios)  # those the search keeps, in course order

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Open a scenario  (type to search · Enter: step through it · "
                                  "Ctrl+E: challenge mode · Esc: close)")
            yield Input(placeholder=tr("search by id or title"), id="search")
            yield OptionList(*self._options())
            yield Static(id="lesson")

    def _options(self) -> list[Option]:
        """One line per scenario, cut to the box (cells, not characters): the whole id,
        then as much of the title and tags as fits."""
        inner = max(30, min(110, int(self.app.size.width * 0.9)) - 14)  # borders, padding, scrollbar
        numbered = [(f"{s.order:>2}. " if isinstance(getattr(s, "order", None), int) else "") + s.id
                    for s in self.scenarios]
        idw = min(max((width(n) for n in numbered), default=0) + 2, inner)
        options = []
        for s, name in zip(self.scenarios, numbered):
            label = Text(pad(cut(name, idw), idw), style="bold")
            tag = tr("  [challenge]") if s.challenge else ""
            tags = "  " + visible(tag_names(s.tags)) if s.tags else ""
            room = max(0, inner - idw)
            shown = cut(visible(s.title), max(0, room - width(tag)))  # the mark keeps its room at every width
            label.append(shown)
            label.append(tag, style="magenta")
            label.append(cut(tags, max(0, room - width(shown) - width(tag))), style="dim")
            options.append(Option(label, id=s.id))
        return options

    def on_mount(self) -> None:
        self.query_one("#search", Input).focus()
        self.query_one(OptionList).highlighted = 0 if self.scenarios else None
        self._show(0)

    def on_input_changed(self, event: Input.Changed) -> None:
        words = event.value.casefold().split()
        self.scenarios = [s for s in self.all_scenarios
                          if all(w in f"{s.id} {s.title} {' '.join(s.tags)} {tag_names(s.tags)}".casefold()
                                 for w in words)]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        options.highlighted = 0 if self.scenarios else None
        self._show(0 if self.scenarios else None)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.scenarios:
            return
        current = options.highlighted if options.highlighted is not None else 0
        options.highlighted = max(0, min(len(self.scenarios) - 1, current + step))

    def _show(self, index: int | None) -> None:
        lesson = self.query_one("#lesson", Static)
        if index is None or not 0 <= index < len(self.scenarios):
            lesson.update(tr("No scenario matches.") if not self.scenarios else "")
            return
        scenario = self.scenarios[index]
        text = lines(scenario.lesson.strip())
        if is_recording(scenario):
            text.append("\n" + tr("Recorded with F9: {path}\nTo narrate it, add narration = \"…\" "
                                   "(and pause, predict) under its steps; docs/scenarios.md shows how.",
                                   path=scenario.path), style="italic")
        lesson.update(text)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss((self.scenarios[event.option_index], False))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None and 0 <= index < len(self.scenarios):
            self.dismiss((self.scenarios[index], False))

    def action_challenge(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.scenarios):
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
    PredictScreen #keys { margin-top: 1; color: $text-muted; width: 100%; }
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
            yield Label(plain(self.command, style="bold"))
            if self.script:
                yield Static(visible_text(self.script), id="script")
            yield Label(plain(self.prediction.question, style="bold"))
            yield OptionList(*[Option(plain(choice_label(i, c)), id=str(i))
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
            yield Static(lines(self.text), id="timeline")

    def action_export(self) -> None:
        self.export()  # says where (or sends it to the browser under serve), or why it could not


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
