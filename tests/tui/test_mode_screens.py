"""One screen per mode (free play, a lesson, a challenge): each has its own bindings,
F1 lists every one of them (from the bindings, not a hand-kept list), and the footer
keeps F1 in sight at 80×24."""

import os
import subprocess
import sys

import pytest

from textual.widgets import Static

from playground.i18n import set_language, tr
from playground.tui.app import PlaygroundApp, make_app
from playground.tui.screens.challenge_screen import ChallengeScreen
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.command_input import CommandInput
from playground.tui.screens.free_play_screen import FreePlayScreen
from playground.tui.help_text import help_for, key_label
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.key_footer import KeyFooter
from playground.tui.screens.lesson_screen import LessonScreen
from pilot import started, wait_until
from pilot import scenario
from servers import shared

MODES = [FreePlayScreen, LessonScreen, ChallengeScreen]


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("en")


@pytest.mark.parametrize("screen", MODES, ids=lambda s: s.__name__)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_key_of_each_mode_is_in_its_help(screen, lang):
    set_language(lang)
    shown = help_for(screen).plain
    everything = [*screen.BINDINGS, *PlaygroundApp.BINDINGS, *ClientPane.BINDINGS, *CommandInput.BINDINGS]
    for binding in everything:
        lines = [line for line in shown.splitlines() if line.startswith("  " + key_label(binding.key) + " ")]
        assert any(tr(binding.tooltip or binding.description) in line for line in lines), (binding.key, shown)
    assert tr(screen.INTRO) in shown


def test_modes_keep_their_keys_to_themselves():
    def actions(screen):
        return {b.action for b in screen.BINDINGS}

    assert "record" in actions(FreePlayScreen) and "record" not in actions(LessonScreen) | actions(ChallengeScreen)
    assert "teach('next')" in actions(LessonScreen) and "teach('next')" not in actions(ChallengeScreen)
    assert "teach('move:A')" in actions(ChallengeScreen) and "teach('move:A')" not in actions(LessonScreen)
    for screen in MODES:
        assert screen.BINDINGS[0].key == "f1"  # first: the footer shows it at 80 columns


def test_served_help_names_the_keys_that_reach_the_page():
    code = ("from playground.tui.help_text import help_for\n"
            "from playground.tui.screens.lesson_screen import LessonScreen\n"
            "from playground.tui.screens.free_play_screen import FreePlayScreen\n"
            "print(help_for(LessonScreen).plain)\nprint(help_for(FreePlayScreen).plain)\n")
    env = dict(os.environ, REDIS_PLAYGROUND_SERVED="1", PYTHONPATH="src")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    keys = [line.split("  ")[1] for line in out.splitlines() if line.startswith("  ")]
    assert {"Alt+N", "Alt+T", "Alt+Q", "Alt+W"} <= set(keys)  # the word to the left too, served
    assert not {"Ctrl+N", "Ctrl+T", "Ctrl+Q"} & set(keys)  # the browser keeps those
    for browsers in ("Ctrl+N", "Ctrl+T", "Ctrl+Q"):  # nor does what a key does name them ("Alt+T shows them")
        assert browsers not in out, [line for line in out.splitlines() if browsers in line]
    assert "(Alt+T shows them)" in out
    assert all(line.split()[0] == "Alt+W" for line in out.splitlines() if "Ctrl+W" in line)  # (why Alt+W)


def footer_keys(app) -> list[str]:
    """The keys the footer shows whole at the app's width."""
    footer = app.mode_screen.query_one(KeyFooter)
    return [getattr(w, "key", "") for w in footer.children
            if w.region.width and w.region.right <= app.size.width]


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (160, 45)])
async def test_each_mode_on_its_screen_with_f1_in_the_footer(server_binary, size):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=size) as pilot:
        await started(pilot, app)
        assert isinstance(app.mode_screen, FreePlayScreen) and app.scenario_run is None
        # (the footer's keys laid out: they come a frame after the screen)
        await wait_until(pilot, lambda: "f1" in footer_keys(app))
        for sid, challenge, screen, key in (("watch-abort", False, LessonScreen, "space"),
                                            ("lost-update", True, ChallengeScreen, "a")):
            app.open_scenario(scenario(sid), challenge=challenge)
            await wait_until(pilot, lambda screen=screen: (isinstance(app.mode_screen, screen)
                                                           and app.scenario_run is not None and not app.mode_screen.busy
                                                           and app.mode_screen.focused is app.narration))
            await wait_until(pilot, lambda key=key: "f1" in footer_keys(app) and key in footer_keys(app))
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
            body = str(app.screen.query_one(Static).render())  # (the help as drawn)
            assert tr(screen.INTRO) in body and all(key_label(b.key) in body for b in screen.BINDINGS)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, InfoScreen))
        app.close_scenario()
        await wait_until(pilot, lambda: isinstance(app.mode_screen, FreePlayScreen) and app.mode_screen.is_mounted)


async def test_pane_history_reflows_when_the_terminal_is_resized(server_binary):
    from playground.tui.widgets.pane_log import PaneLog
    from pilot import log_text, type_command

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        value = " ".join(f"word{i}" for i in range(20))  # 139 characters: one line in a wide pane
        await type_command(pilot, app, "A", f'ECHO "{value}"')
        log = app.mode_screen.query_one("#pane-A PaneLog", PaneLog)
        wide = len(log.lines)
        await pilot.resize_terminal(80, 45)
        await wait_until(pilot, lambda: len(log.lines) > wide)  # wrapped at the new width
        # the command and its reply: nothing lost or doubled
        assert " ".join(" ".join(log_text(app, "A")).split()).count(value) == 2
        await pilot.resize_terminal(160, 45)
        await wait_until(pilot, lambda: len(log.lines) == wide)


@pytest.mark.parametrize("screen", ["lesson", "challenge"])
def test_the_narrations_key_line_comes_from_the_bindings(screen):
    """The line under the narration names each key of the screen (but those it leaves to
    F1), with the footer's word: a key added to a screen is in it, none is hand-kept."""
    from playground.tui.screens.challenge_screen import ChallengeScreen
    from playground.tui.help_text import key_hint, key_label
    from playground.tui.screens.lesson_screen import LessonScreen

    cls = LessonScreen if screen == "lesson" else ChallengeScreen
    hint = key_hint(cls)
    shown = [b for b in cls.BINDINGS if b.action not in cls.HINT_SKIP]
    assert len(shown) >= 6
    named = {}  # word -> its keys, as the line shows them ("Space/Ctrl+N next")
    for item in hint.partition(": ")[2].split(" · "):
        keys_shown, _, word = item.partition(" ")
        named[word] = keys_shown.split("/")
    for binding in shown:
        key = binding.key_display or key_label(binding.key).split(" / ")[0]
        word = binding.description[:1].lower() + binding.description[1:]
        assert key in named.get(word, []), (binding, hint)
    left_to_f1 = {b.description[:1].lower() + b.description[1:] for b in cls.BINDINGS if b.action in cls.HINT_SKIP}
    assert not left_to_f1 & set(named), hint
