"""Modals of teaching mode: pick a scenario, predict before a step, see the timeline."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
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
    """Every scenario with its title, tags and lesson. Typing searches ids, titles, tags
    and the lessons' text (letters never trigger an action here); ↑/↓ pick, Enter opens,
    Ctrl+E as a challenge."""

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
        self._texts: dict[tuple[int, bool], str] = {}  # (id(scenario), whole) -> what a search looks through

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("Open a scenario  (type to search · Enter: step through it · "
                                  "Ctrl+E: challenge mode · Esc: close)")
            yield Input(placeholder=tr("search by id or title, tags or text"), id="search")
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
        for s, name in zip(self.scenarios, numbered, strict=True):
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

    def say_again(self) -> None:
        """The list in the language shown now (F12): each scenario read again in it (its
        title and lesson), the same search, the same one highlighted."""
        from playground.i18n import current_language
        from playground.scenario.loader import load_scenario
        from playground.scenario.model import ScenarioError

        again = []
        for scenario in self.all_scenarios:
            try:
                again.append(load_scenario(scenario.path, current_language()) if scenario.path else scenario)
            except (OSError, ScenarioError):  # changed or gone meanwhile: as it was
                again.append(scenario)
        self.all_scenarios = again
        box = self.query_one(Vertical)
        box.border_title = tr("Open a scenario  (type to search · Enter: step through it · "
                              "Ctrl+E: challenge mode · Esc: close)")
        search = self.query_one("#search", Input)
        search.placeholder = tr("search by id or title, tags or text")
        highlighted = self.query_one(OptionList).highlighted
        self._search(search.value)
        if highlighted is not None and self.scenarios:
            self.query_one(OptionList).highlighted = min(highlighted, len(self.scenarios) - 1)
            self._show(self.query_one(OptionList).highlighted)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._search(event.value)

    def _search(self, value: str) -> None:
        """Keep the scenarios whose id, title, tags or text (lesson, narration, commands,
        goal, questions) hold every word typed: those named so (id, title, tags) first,
        then those whose text alone holds them, each in course order."""
        words = value.casefold().split()
        hits = [s for s in self.all_scenarios if all(found(w, self._text_of(s)) for w in words)]
        named = [s for s in hits if all(found(w, self._text_of(s, whole=False)) for w in words)]
        self.scenarios = named + [s for s in hits if s not in named]  # by id, title or tag first
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        options.highlighted = 0 if self.scenarios else None
        self._show(0 if self.scenarios else None)

    def _text_of(self, scenario: Scenario, whole: bool = True) -> str:
        """What a search looks through, folded to lower case (made once per scenario): all
        of it, or (not `whole`) its id, title and tags alone."""
        key = (id(scenario), whole)
        if key not in self._texts:
            self._texts[key] = search_text(scenario, whole).casefold()
        return self._texts[key]

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


def found(word: str, text: str) -> bool:
    """Whether a search `word` is in `text` (both folded): a word in Latin letters or digits
    where a word of the text starts ("ttl" finds "TTL k" and "ttl:", not "settle"); any
    other word (Chinese has no spaces between words) anywhere.

    Args:
        word: one word typed, folded to lower case.
        text: what is searched, folded to lower case.
    """
    if not word.isascii():
        return word in text
    return re.search(r"(?<![a-z0-9])" + re.escape(word), text) is not None


def search_text(scenario: Scenario, whole: bool = True) -> str:
    """Everything F7's search looks through for one scenario: its id, title, tags (as
    written and as shown), then (`whole`) its lesson, challenge goal, and each step's
    command, narration and question.

    Args:
        scenario: a scenario loaded in the language shown.
        whole: the text too, not only the id, title and tags.
    """
    parts = [scenario.id, scenario.title, " ".join(scenario.tags), tag_names(scenario.tags)]
    if not whole:
        return "\n".join(parts)
    parts.append(scenario.lesson)
    if scenario.challenge is not None:
        parts.append(scenario.challenge.goal)
    for part in scenario.parts:
        parts.append(part.name or "")
        for step in part.steps:
            parts += [step.display, step.narration or ""]
            if step.predict is not None:
                parts += [step.predict.question, *step.predict.choices]
    return "\n".join(parts)


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
    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(i), f"choose({i})", show=False) for i in range(1, 10)],
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
            yield Static(plain(self.command, style="bold"))  # (a Static wraps; a Label was cut at the edge)
            if self.script:
                yield Static(visible_text(self.script), id="script")
            yield Static(plain(self.prediction.question, style="bold"), id="question")
            yield OptionList(*[Option(plain(choice_label(i, c)), id=str(i))
                               for i, c in enumerate(self.prediction.choices, 1)])
            yield Label(tr("Keys: 1–{n} answer · ↑↓ then Enter · Esc skips this question (not scored)", n=n), id="keys")

    def action_skip(self) -> None:
        self.dismiss(0)

    def say_again(self) -> None:
        """The question in the language shown now (F12: the open scenario, read again, gave
        `prediction` in it), the same answer highlighted (or none)."""
        highlighted = self.query_one(OptionList).highlighted
        self.refresh(recompose=True)

        def again() -> None:
            options = self.query_one(OptionList)
            options.highlighted = highlighted
            options.focus()

        self.call_after_refresh(again)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = None  # no answer given for the learner: Enter alone chooses nothing (a class's
        options.focus()             # learner typing a line as the question came answered 1 with its Enter)

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

    def __init__(self, text, export) -> None:
        """Args:
            text: the timeline, or what makes it (made again in the language shown after F12).
            export: writes it as Markdown and says where.
        """
        super().__init__()
        self.text = text
        self.export = export

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = tr("Timeline: what the server executed, in order  (x: export · Esc: close)")
            yield Static(lines(self.text() if callable(self.text) else self.text), id="timeline")

    def say_again(self) -> None:
        """The timeline in the language shown now (F12)."""
        self.refresh(recompose=True)

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

    def say_again(self) -> None:
        """The question in the language shown now (F12); what was typed stays."""
        self.query_one(Label).update(tr("Go to step (1 to {total}); the server replays the steps before it",
                                        total=self.total))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        try:
            n = int(event.value)
        except ValueError:
            return
        if 1 <= n <= self.total:
            self.dismiss(n)
