"""Switching the TUI's language while it runs (F12, or "Language" in the palette).

Everything the app draws from then on comes out in the new language (every text goes
through i18n.tr where it is shown); what is already on screen is drawn again here: the
panes' titles and state lines, the footer, the key table's header and summary, the
server bar, and an open scenario, whose texts are read again from its file in the new
language (the steps already run stay where they are).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rich.text import Text

from playground import i18n
from playground.i18n import N_, NP_, language_name, set_language, tr, trp
from playground.served import label


# Textual's own palette entries (App.get_system_commands), for the catalogue.
# Their titles in the context "textual" ("Keys" there is the key bindings; ours is the inspector).
TEXTUAL_TEXTS = (
    NP_("textual", "Theme"), N_("Change the current theme"), NP_("textual", "Quit"),
    N_("Quit the application as soon as possible"), NP_("textual", "Keys"),
    N_("Hide the keys and widget help panel"), N_("Show help for the focused widget and a summary of available keys"),
    NP_("textual", "Minimize"), N_("Minimize the widget and restore to normal size"), NP_("textual", "Maximize"),
    N_("Maximize the focused widget"), NP_("textual", "Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"),
)


@runtime_checkable
class SaysAgain(Protocol):
    """A screen (a dialog) that can say what it shows again in the language shown now."""

    def say_again(self) -> None:
        """Draw its texts again in the current language (F12)."""


def textual_commands(commands):
    """Textual's palette entries with their title and help in the interface's language."""
    for command in commands:
        yield command._replace(title=trp("textual", command.title), help=tr(command.help))


def next_language(lang: str) -> str:
    """The language F12 switches to from `lang`."""
    return i18n.next_language(lang)


def switch_language(app, lang: str | None = None) -> str:
    """Show the app in `lang` (default: the next language); returns the language shown."""
    lang = lang or next_language(app.lang)
    app.lang = lang
    set_language(lang)
    from playground.tui.widgets.client_pane import ClientPane
    from playground.tui.widgets.key_inspector import KeyInspector
    from playground.tui.widgets.key_table import KeyTable
    from playground.tui.widgets.lanes_view import LanesView
    from playground.tui.widgets.server_bar import ServerBar

    for screen in app.mode_screens.kept():  # every mode's screen, also those kept for later (mode_screens.py)
        shown = screen is app.mode_screen
        for pane in screen.query(ClientPane):  # its title, state line, notes and whys in the new language (replies
            pane.say_again(redraw=shown)        # stay redis-cli's); a kept screen's panes take over the shown one's
        inspector = screen.query_one(KeyInspector)
        inspector.border_title = tr("Keys")
        inspector.query_one("#filter").placeholder = tr("filter: a SCAN pattern, e.g. user:*  (Enter applies)")
        inspector.query_one(KeyTable).relabel()
        lanes = screen.query_one(LanesView)
        lanes.border_title = label(tr("Server order (Ctrl+T hides)"))
        if lanes.has_class("-shown"):
            lanes.draw()
        screen.query_one(ServerBar).refresh()
        waiting = getattr(screen, "language_switched", None)  # (a lesson's screen waiting for a class's lesson)
        if waiting is not None:
            waiting()
    app.refresh_everything()
    app.refresh_bindings()
    from playground.tui.widgets.key_footer import KeyFooter

    for footer in app.mode_screen.query(KeyFooter):  # (under a dialog too: it shows behind it)
        footer.call_later(footer.recompose)
    app.first_run_hints_again()
    _reload_scenario(app, lang)
    for screen in app.screen_stack:  # the dialogs open: a question, a help, the list of lessons ...
        if isinstance(screen, SaysAgain) and screen is not app.mode_screen:
            screen.say_again()
    app.notify(tr("Interface language: {name}", name=language_name(lang)))
    return lang


def _reload_scenario(app, lang: str) -> None:
    """The open scenario's texts (title, lesson, narration, predictions) in `lang`."""
    run = app.scenario_run
    if run is None:
        return
    from playground.scenario.model import ScenarioError
    from playground.scenario.loader import load_scenario

    if run.scenario.path is None or run.scenario.path.stem != run.scenario.id:
        # made in the app (a schedule the explorer made): no file of its own, its texts say themselves again
        from playground.scenario.translations import scenario_in

        scenario = scenario_in(run.scenario, lang)
    else:
        try:
            scenario = load_scenario(run.scenario.path, lang)
        except (OSError, ScenarioError) as exc:  # the file changed or went away meanwhile
            app.notify(str(exc), severity="error")
            return
    run.scenario = scenario
    stepper = run.stepper or run.challenge
    if stepper is not None:
        stepper.say_in(scenario)
    st = run.stepper
    if st is not None:
        if st.results:  # the last step's explanation, in the new language
            run.message = run.explain_last()
        else:
            run.message = Text(tr("Press Space (or n) for the first step.") + "\n", style="italic")
        from playground.tui.dialogs.scenario_dialogs import PredictScreen

        if isinstance(app.screen, PredictScreen) and not st.finished:  # the open question, in the new language
            step = st.flat[st.cursor][1]
            if step.predict is not None:
                app.screen.prediction = step.predict  # (its say_again draws it)
    elif run.won is not None:  # a challenge's verdict, in the new language
        run.message = run.verdict()
    elif not run.challenge.moves:
        run.message = Text(tr("Choose who moves: a for A, b for B. u undoes a move.") + "\n", style="italic")
    run.render()
