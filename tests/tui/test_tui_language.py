"""Switching the TUI's language live (F12, or the palette's "Language" entry): the panes,
footer, inspector and an open scenario's texts change; the replies in the panes do not."""

import pytest

from playground.i18n import current_language, set_language
from playground.i18n import language_name, tr_in, trn_in
from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.key_inspector import KeyInspector
from pilot import log_text, reply_to, started, type_command, untimed, wait_until
from servers import shared
from pilot import _footer_descriptions


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en")


async def test_f12_switches_panes_footer_and_inspector_and_back():
    app = make_app("bundled")
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET 余额 100")
        pane = app.mode_screen.query_one("#pane-A", ClientPane)
        assert "Client A" in pane.border_title and "Help" in _footer_descriptions(app)

        await pilot.press("f12")
        await pilot.pause()
        assert current_language() == "zh" and app.lang == "zh"
        assert tr_in("zh", "Client {name}", name="A") in pane.border_title
        await wait_until(pilot, lambda: tr_in("zh", "Help") in _footer_descriptions(app))
        inspector = app.mode_screen.query_one(KeyInspector)
        assert inspector.border_title == tr_in("zh", "Keys")
        await wait_until(pilot, lambda: trn_in("zh", "{n:,} key", "{n:,} keys", 1)
                         in str(inspector.query_one("#summary").render()))
        from playground.cells import width
        from playground.tui.widgets.key_table import KeyTable

        table = inspector.query_one(KeyTable)
        await pilot.pause()
        header, row = table.render_line(0).text, table.render_line(1).text
        for title, cell in ((tr_in("zh", "type"), "string"), (tr_in("zh", "value"), '"100"'), (tr_in("zh", "changed"),
                                                                                               "A")):
            # each column starts at the same cell in the header and in the row (余额 is two cells wide)
            assert width(header[:header.index(title)]) == width(row[:row.index(cell, len("余额"))]), (header, row)
        await type_command(pilot, app, "A", "GET 余额")
        assert untimed(reply_to(app, "A", "GET 余额")) == ['"100"']  # a reply stays exactly redis-cli's

        await pilot.press("f12")
        await pilot.pause()
        assert current_language() == "en" and "Client A" in pane.border_title
        await wait_until(pilot, lambda: "Help" in _footer_descriptions(app))


async def test_switching_reloads_the_open_scenario_in_the_new_language():
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario

    path = bundled_dir() / "watch-abort.toml"
    english, chinese = load_scenario(path), load_scenario(path, "zh")
    app = make_app("bundled", open_scenario=english)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in app.narration.body.plain)
        app.scenario_run.speed_index = 0
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.mode_screen.busy and app.scenario_run.stepper.cursor == 1)
        assert english.steps[0].narration in app.narration.body.plain

        app.action_switch_language()
        await pilot.pause()
        body = app.narration.body.plain
        assert chinese.title in body and chinese.steps[0].narration in body
        assert english.title not in body
        assert tr_in("zh", "step {n} of {total}", n=2, total=len(chinese.steps)) in body
        await pilot.press("space")  # the next step runs on, in Chinese
        await wait_until(pilot, lambda: not app.mode_screen.busy and app.scenario_run.stepper.cursor == 2)
        assert chinese.steps[1].narration in app.narration.body.plain


async def test_the_palette_offers_the_language_switch():
    app = make_app("bundled")
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Language: English / 中文" in titles
        app.action_switch_language()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert tr_in("zh", "Language: {languages}",
                     languages="English / " + language_name("zh")) in titles and tr_in("zh", "Restart server") in titles
        from textual.command import CommandInput, CommandPalette

        await pilot.press("ctrl+p")  # the palette's own placeholder, in Chinese too (issue 28)
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert app.screen.query_one(CommandInput).placeholder == tr_in("zh",
                                                                       "Search for commands…") != "Search for commands…"


@pytest.mark.parametrize("mode", ["free_play", "lesson", "challenge"])
def test_f1_help_in_chinese_every_line_translated_and_the_keys_in_one_column(mode):
    import importlib
    import re

    from playground.cells import width
    from playground.tui.help_text import help_for

    module = importlib.import_module(f"playground.tui.screens.{mode}_screen")
    mode = next(v for k, v in vars(module).items() if k.endswith("Screen") and v.__module__ == module.__name__)
    set_language("zh")
    lines = [line for line in help_for(mode).plain.splitlines() if line.strip()]
    han = re.compile("[\u4e00-\u9fff]")
    untranslated = [line for line in lines if not han.search(line)]
    assert not untranslated, untranslated  # a description (or title) left in English
    keyed = [line for line in lines if line.startswith("  ")]
    assert len(keyed) > 10
    # the description starts in the same terminal column on every key's line
    starts = {width(line[:re.match(r"  (.+?) {2,}(\S)", line).start(2)]) for line in keyed}
    assert len(starts) == 1, starts


async def test_the_lesson_picker_names_tags_in_chinese_and_finds_them():
    from textual.widgets import Input, OptionList

    from playground.i18n import trp_in
    from playground.tui.dialogs.scenario_dialogs import ScenarioPicker

    app = make_app("bundled")
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await pilot.press("f12")
        await wait_until(pilot, lambda: current_language() == "zh")
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        picker, race = app.screen, trp_in("zh", "lesson tag", "race")
        options = picker.query_one(OptionList)
        labels = [options.get_option_at_index(i).prompt.plain for i in range(options.option_count)]
        assert any(race in label for label in labels) and not any(", race" in label for label in labels)
        picker.query_one("#search", Input).value = race
        await wait_until(pilot, lambda: picker.scenarios and all("race" in s.tags for s in picker.scenarios))
        assert "lost-update" in [s.id for s in picker.scenarios]


async def test_f12_says_the_notes_already_in_a_pane_again_in_the_new_language():
    """A why-note drawn in English before F12 is redrawn in Chinese (and back); the
    replies around it stay exactly redis-cli's."""
    from playground.engine.why_text import LABEL

    app = make_app("bundled")
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        for client, line in [("A", "WATCH k"), ("B", "SET k 1"), ("A", "MULTI"), ("A", "INCR k"), ("A", "EXEC")]:
            await type_command(pilot, app, client, line)
        await wait_until(pilot, lambda: any("B changed WATCHed k" in line for line in log_text(app, "A")))
        replies = [line for line in log_text(app, "A") if line in ("OK", "QUEUED", "(nil)")]

        await pilot.press("f12")
        await wait_until(pilot, lambda: any(line.lstrip().startswith(f"↳ {tr_in('zh', LABEL)}")
                                            for line in log_text(app, "A")))
        text = "\n".join(log_text(app, "A"))
        assert "B changed WATCHed k" not in text and "WATCH" in text
        assert [line for line in log_text(app, "A") if line in ("OK", "QUEUED", "(nil)")] == replies

        await pilot.press("f12")
        await wait_until(pilot, lambda: any("B changed WATCHed k" in line for line in log_text(app, "A")))


async def test_f12_says_a_lessons_check_lines_in_the_new_language(server_binary):
    """The folded "✓ reply" under a stepped command is the app's, not the server's: after
    F12 it is in Chinese; the command and its reply are untouched."""
    from pilot import opened, panel_text, press_and_wait, scenario

    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        assert "step 2 of 11" in panel_text(app)
        assert "  ✓ reply" in log_text(app, "A")
        before = [line for line in log_text(app, "A") if "✓" not in line]
        await pilot.press("f12")
        await wait_until(pilot, lambda: "  ✓ 回复" in log_text(app, "A") and "  ✓ reply" not in log_text(app, "A"))
        assert [line for line in log_text(app, "A") if "✓" not in line] == before
