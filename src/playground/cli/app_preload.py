"""What serve's zygote (cli/app_zygote.py) imports once, before it forks any app: run in the
zygote's own process only, by name, so no module imports this one."""

from __future__ import annotations


def preload() -> None:
    """In the zygote, before any fork: what `python -m playground` imports on its way to a
    served app (cli/main.py's TUI path). Only imports: whatever those modules defer is
    imported by each app when it needs it, as without the zygote. And the catalogues,
    compiled once (every app's footer names the other language, in that language).
    tests/cli/test_app_preload.py checks the list against what an app really imports."""
    from playground.cli import app_start, main  # noqa: F401
    from playground.engine import exit_signals  # noqa: F401
    from playground.i18n import LANGUAGES, translation
    from playground.server import choose_binary, topology  # noqa: F401
    from playground.tui import app, served_driver  # noqa: F401
    # and what every app still imported on its way to its first screen (listed by comparing
    # sys.modules before and after an app's start): the class mode's hooks, the why-notes,
    # F1's texts, Textual's layouts and scroll bars, rich's table of character widths
    from playground.engine import why, why_text  # noqa: F401
    from playground.tui import class_mode, help_text  # noqa: F401
    from playground.tui.class_mode import class_member  # noqa: F401
    from rich.cells import cell_len
    from textual import scrollbar  # noqa: F401
    from textual.layouts import factory, horizontal, stream  # noqa: F401
    # and what an app imports when it opens its first lesson (the same comparison): a class's
    # lesson push opens it in every learner's app at once, ~55 ms of CPU each for these
    from playground.classroom import lesson_source  # noqa: F401
    from playground.tui.screens import challenge_screen, lesson_screen  # noqa: F401
    from playground.engine import server_actions  # noqa: F401
    from playground.scenario.programs import lesson  # noqa: F401
    from playground.scenario import lesson_clock, server_steps  # noqa: F401
    from playground.tui.scenario_runs import challenge_run, lesson_run, run_view  # noqa: F401

    cell_len("中")
    for lang in LANGUAGES:
        translation(lang)
