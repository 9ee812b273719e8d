"""The server order and the whys in the app: Ctrl+T (lanes view, gutter numbers), Ctrl+Y
(why notes), in free play and in a stepped scenario."""

import pytest
import re

from textual.widgets import Static

from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.lanes_view import LanesView
from playground.tui.dialogs.scenario_dialogs import PredictScreen
from pilot import log_text, started, type_command, wait_until
from servers import shared

RACE = [("A", "SET balance 100"), ("A", "WATCH balance"), ("B", "DECRBY balance 30"), ("A", "MULTI"),
        ("A", "DECRBY balance 50"), ("A", "EXEC")]


def lanes_text(app) -> str:
    return str(app.mode_screen.query_one("#lanes-text", Static).render())


@pytest.mark.slow
async def test_ctrl_t_shows_lanes_and_gutters_and_ctrl_y_hides_the_whys(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 45)) as pilot:
        await started(pilot, app)
        for client, line in RACE:
            await type_command(pilot, app, client, line)
        log = log_text(app, "A")
        assert log[log.index("A> EXEC") + 1] == "(nil)"  # redis-cli's text, untouched
        note = log[log.index("(nil)") + 1:]
        assert note[0].startswith("  ↳ why: ")  # wrapped lines hang under the note's own text:
        assert all(line.startswith(" " * len("  ↳ why: ")) for line in note[1:] if line)
        why = " ".join(" ".join(note).split())
        assert why.startswith("↳ why: B changed WATCHed balance (DECRBY balance 30, #3)")
        lanes = app.mode_screen.query_one(LanesView)
        assert not lanes.display

        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: lanes.display and "MULTI" in lanes_text(app))
        text = lanes_text(app)
        assert [line[:4].strip() for line in text.splitlines() if line[:4].strip().isdigit()] == ["1", "2", "3", "6"]
        assert "↳ why: B changed WATCHed balance" in text
        log = log_text(app, "A")
        assert "  6 (nil)" in log and "    A> EXEC" in log      # the number in the gutter
        assert "  3 (integer) 70" in log_text(app, "B")

        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: not any("why:" in line for line in log_text(app, "A")))
        assert "why:" not in lanes_text(app)
        await type_command(pilot, app, "B", "SET balance 1")
        await wait_until(pilot, lambda: "SET balance 1" in lanes_text(app))  # follows free typing

        await pilot.press("ctrl+t", "ctrl+y")
        await wait_until(pilot, lambda: not lanes.display and any("why:" in line for line in log_text(app, "A")))
        assert "(nil)" in log_text(app, "A") and "  6 (nil)" not in log_text(app, "A")


@pytest.mark.slow
async def test_stepped_scenario_shows_its_why_and_its_part_in_the_lanes(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(resolve("watch-abort")))
    async with app.run_test(size=(120, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and app.scenario_run.stepper is not None
                         and not app.mode_screen.busy)
        app.scenario_run.speed_index = 0  # no typing animation
        while "A> EXEC" not in log_text(app, "A"):
            await pilot.press("space")
            if isinstance(app.screen, PredictScreen):
                await pilot.press("1")
            await wait_until(pilot, lambda: not app.mode_screen.busy)
        await wait_until(pilot, lambda: "↳ why: B changed WATCHed balance (SET balance 200, #3)"
                         in " ".join(" ".join(log_text(app, "A")).split()))
        checks = [line for line in log_text(app, "A") if line.lstrip().startswith("✓")]
        assert checks  # the folded check marks of each step
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: "EXEC" in lanes_text(app))
        text = lanes_text(app)
        assert "fresh start" in text and "↳ why: B changed WATCHed balance" in text
        redrawn = [line.strip() for line in log_text(app, "A") if line.strip().startswith("✓")]
        assert redrawn == [line.strip() for line in checks]  # the redraw with gutters keeps them


@pytest.mark.slow
async def test_lanes_beside_the_keys_when_wide_and_their_header_stays(server_binary):
    from playground.tui.widgets.key_inspector import KeyInspector

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        for client, line in RACE * 3:  # more rows than the lanes have room for
            await type_command(pilot, app, client, line)
        await pilot.press("ctrl+t")
        lanes = app.mode_screen.query_one(LanesView)
        inspector = app.mode_screen.query_one(KeyInspector)
        await wait_until(pilot, lambda: lanes.display and "MULTI" in lanes_text(app)
                         and lanes.scroll_y == lanes.max_scroll_y > 0)  # scrolled after a refresh (scroll_end's)
        assert inspector.display and inspector.region.width and lanes.region.width
        assert lanes.region.y == inspector.region.y and lanes.region.x < inspector.region.x  # side by side
        head = str(app.mode_screen.query_one("#lanes-head", Static).render())
        assert head.split()[:4] == ["#", "│", "A", "│"] and "#" not in lanes_text(app).split("\n")[0]
        assert lanes.max_scroll_y > 0 and lanes.scroll_y == lanes.max_scroll_y  # the newest rows, under the header
        header = app.mode_screen.query_one("#lanes-head", Static)
        assert header.region.y == lanes.region.y + 1  # under the border, though the rows are scrolled
        await pilot.resize_terminal(120, 45)
        await wait_until(pilot, lambda: not inspector.display)  # narrower: the lanes replace the keys
        assert lanes.display


async def test_lanes_keep_their_rows_in_the_presenter_layout_at_80x24(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        app.mode_screen.action_presenter()
        await pilot.press("ctrl+t")
        lanes = app.mode_screen.query_one(LanesView)
        await wait_until(pilot, lambda: lanes.display and lanes.region.height > 0)
        await pilot.pause()
        assert lanes.region.height >= 8  # not the inspector's 5 rows: the header takes 2 of them


@pytest.mark.slow
async def test_lanes_scroll_from_the_keyboard_and_wrap_at_spaces(server_binary):
    """The teacher's walkthrough: the lanes could be scrolled with the mouse only, and a
    long command was cut mid-word ('befo' / 're')."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        words = " ".join(f"word{i:02}" for i in range(40))
        await type_command(pilot, app, "A", f'ECHO "{words}"')
        for i in range(12):
            await type_command(pilot, app, "B", f"SET k{i} v")
        await pilot.press("ctrl+t")
        lanes = app.mode_screen.query_one(LanesView)
        await wait_until(pilot, lambda: lanes.display and "k11" in lanes_text(app) and lanes.max_scroll_y > 5)
        pieces = [piece for line in lanes_text(app).splitlines() for piece in line.split("│")]
        tokens = re.findall(r"\w+", " ".join(pieces))
        assert all(tokens.count(f"word{i:02}") == 2 for i in range(40))  # the command and its reply, no word cut
        await wait_until(pilot, lambda: lanes.scroll_y == lanes.max_scroll_y)
        bottom = lanes.scroll_y
        assert app.focused is app.mode_screen.query_one("#pane-B CommandInput")  # typing stays in the pane
        await pilot.press("ctrl+up", "ctrl+up")
        await wait_until(pilot, lambda: lanes.scroll_y == bottom - 6)
        await pilot.press("ctrl+down")
        await wait_until(pilot, lambda: lanes.scroll_y == bottom - 3)
