"""What the key inspector shows where (issue 35): the key that just changed stays in
view, the keys get the rows the presenter layout's panes do not need, and in a lesson
the filter line shows only once / asks for it. Pilot on a real server."""

import asyncio
import time

from rich.text import Text
from textual.widgets import Input

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.key_table import KeyTable
from pilot import started, type_command, wait_until
from pilot import opened, press_and_wait
from pilot import screen
from servers import shared


def keys_in_table(table: KeyTable) -> list[str]:
    return [table.row_key(i) for i in range(table.row_count)]


async def test_the_key_changed_last_comes_into_view(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        names = [f"k:{i:02}" for i in range(1, 31)]
        await type_command(pilot, app, "A", "MSET " + " ".join(f"{name} 1" for name in names))
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: keys_in_table(table) == names)
        assert not table.in_view(names.index("k:29"))  # (the rows in view are the first ones)
        await type_command(pilot, app, "B", "SET k:29 changed")
        await wait_until(pilot, lambda: table.in_view(names.index("k:29")))
        # (B's write is attributed when its reply has been read and its key events taken; a
        # refresh may read the new value first, then the next one, after the attribution,
        # says who: a CI run saw "by A" in between)
        await wait_until(pilot, lambda: str(table.row(names.index("k:29"))[4]) == "by B")
        await type_command(pilot, app, "A", "SET k:02 again")
        await wait_until(pilot, lambda: table.in_view(names.index("k:02")))


async def test_a_key_changed_before_its_write_is_attributed_names_no_writer(server_binary):
    """A read of the keys can see B's new value before B's write is attributed (its reply
    read, its key events taken): the changed cell then names nobody, not A, whose write
    was the last attributed; it says B once B's is. (B's attribution is held here until
    the new value is on screen.)"""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k old")
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: keys_in_table(table) == ["k"] and str(table.row(0)[4]) == "by A")
        writes, release = app.playground.writes, asyncio.Event()
        note = writes.note_unit

        async def held(unit):
            if unit.client == "B":
                await release.wait()
            return await note(unit)
        writes.note_unit = held
        line = app.mode_screen.query_one("#pane-B Input", Input)
        line.focus()
        await wait_until(pilot, lambda: line.has_focus)
        line.value = "SET k new"
        await pilot.press("enter")   # (not type_command: it waits for the attribution held here)
        await wait_until(pilot, lambda: "new" in str(table.row(0)[3]))
        assert str(table.row(0)[4]) == ""   # (not "by A": B's write is not attributed yet)
        release.set()
        await wait_until(pilot, lambda: str(table.row(0)[4]) == "by B")


def _lesson(name="watch-abort"):
    return make_app("bundled", open_scenario=load_scenario(bundled_dir() / f"{name}.toml"))


async def test_presenter_layout_gives_the_keys_their_rows():
    """It kept 2 rows for the keys (1 at 120x35) while the panes had 28 rows of room."""
    app = _lesson()
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "f")
        assert app.mode_screen.has_class("-presenter")
        await type_command(pilot, app, "B", "MSET a 1 b 1 c 1 d 1 e 1 f 1")
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: table.row_count == 7)
        await wait_until(pilot, lambda: table.size.height == 8)  # the header and every key
        assert all(table.in_view(i) for i in range(7))


async def test_in_a_lesson_the_filter_line_shows_only_after_slash():
    app = _lesson()
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        inspector = app.mode_screen.query_one(KeyInspector)
        field = inspector.query_one("#filter", Input)
        assert not field.display
        await pilot.press("f4", "slash")
        await wait_until(pilot, lambda: field.display and field.has_focus)
        await pilot.press(*"bal*", "enter")
        await wait_until(pilot, lambda: not field.display and inspector.pattern == "bal*")


HELD = '''
title = "a short TTL"
lesson = "x"

[[steps]]
client = "A"
command = "SET k v PX 6000"
reply = "OK"

[[steps]]
client = "B"
command = "GET k"
reply = '"v"'
'''


async def test_a_ttl_held_while_the_lesson_waits_shows_as_held(server_binary, tmp_path):
    """While the lesson waits for the class the clock holds k's TTL (the server has it up
    to MARGIN_MS longer, set again every half second); the inspector shows what the next
    step will find, the held TTL, and it neither counts down nor jumps back."""
    path = tmp_path / "short-ttl.toml"
    path.write_text(HELD)
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(path))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        clock = app.scenario_run.source.runner.clock
        assert await clock.holding() == {b"k"}
        held = clock.held_ttl(b"k")
        assert held is not None and 5000 < held <= 6000
        inspector = app.mode_screen.query_one(KeyInspector)
        table = inspector.query_one(KeyTable)
        inspector.refresh_keys()
        await wait_until(pilot, lambda: not inspector._loading and keys_in_table(table) == ["k"])
        assert inspector.snapshot.keys[0].pttl > held  # the server's TTL is the held one plus the margin
        shown = f"{held / 1000:.1f}s"
        assert str(table.row(0)[2]) == shown
        inspector._tick_ttls()  # a tick later: still the held TTL, not a countdown from the read
        assert str(table.row(0)[2]) == shown
        releasing = asyncio.ensure_future(clock.release())  # the lesson runs again: the TTL counts down
        await asyncio.sleep(0)   # (one turn: the release is under way, the server's TTL still has the margin)
        assert not releasing.done()
        meanwhile = clock.shown_ttl(b"k", time.monotonic())  # a read now is not shown (CI: "7.9s" after 6.0s)
        assert meanwhile is not None and meanwhile[0] == held
        await releasing
        assert clock.held_ttl(b"k") is None
        inspector._tick_ttls()  # the snapshot read during the hold (held + margin) is not shown: no jump up
        assert float(str(table.row(0)[2]).rstrip("s")) <= float(shown.rstrip("s"))


async def test_a_table_grown_taller_draws_the_rows_that_came_into_view():
    """The presenter layout gives the table a row more: the view moved up a row at the resize,
    but the row drawn before it stayed on screen (shown only once something else laid the
    screen out)."""
    from textual.app import App

    class OneTable(App):
        def compose(self):
            yield KeyTable("key", "value")

    app = OneTable()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.query_one(KeyTable)
        table.styles.height = 2  # the header and one row
        table.set_rows([("first", (Text("first"), Text("1"))), ("second", (Text("second"), Text("2")))])
        table.cursor = 1
        await wait_until(pilot, lambda: table.size.height == 2 and table.in_view(1) and not table.in_view(0))
        table.styles.height = 3  # the header and both rows
        await wait_until(pilot, lambda: "first" in screen(app))
