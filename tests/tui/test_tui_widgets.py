"""The key table and the pane log on their own (no server needed for their behaviour),
and, on real servers, that typing commands does not redraw a key table that did not change."""

import pytest
import os
import sys
import time

from rich.text import Text
from textual.app import App
from textual.widgets import Static

from playground.tui.app import make_app
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.key_table import KeyTable
from playground.tui.widgets.pane_log import PaneLog
from pilot import started, type_command, wait_until
from servers import shared


def rows(*names: str) -> list[tuple[str, tuple[Text, ...]]]:
    return [(n, (Text(n), Text("string"), Text("—"), Text(f'"{n}-value"'))) for n in names]


class TableApp(App):
    def __init__(self) -> None:
        super().__init__()
        self.selected: list[str] = []

    def compose(self):
        yield KeyTable("key", "type", "TTL", "value")

    def on_key_table_selected(self, event: KeyTable.Selected) -> None:
        self.selected.append(event.key)


def line(table: KeyTable, y: int) -> str:
    return table.render_line(y).text.rstrip()


async def test_key_table_draws_header_rows_and_which_rows_are_in_view():
    app = TableApp()
    async with app.run_test(size=(60, 6)) as pilot:  # a header and 5 rows fit
        table = app.query_one(KeyTable)
        table.set_rows(rows(*(f"k{i:02}" for i in range(12))))
        await pilot.pause()
        assert line(table, 0).split() == ["key", "type", "TTL", "value", "1–5/12"]
        assert line(table, 1).split() == ["k00", "string", "—", '"k00-value"']
        table.focus()
        await pilot.press("pagedown", "pagedown")
        assert table.cursor == 10 and line(table, 0).endswith("7–11/12")
        await pilot.press("end")
        assert table.cursor == 11 and line(table, 5).split()[0] == "k11"
        await pilot.press("home", "down", "enter")
        assert app.selected == ["k01"]


async def test_key_table_keeps_the_cursor_on_its_key_and_fits_long_values():
    app = TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.query_one(KeyTable)
        table.set_rows(rows("a", "b", "c"))
        table.focus()
        await pilot.press("down", "down")
        assert table.row_key(table.cursor) == "c"
        table.set_rows(rows("0", "a", "c", "d"))  # b deleted, 0 created: the cursor stays on c
        assert table.row_key(table.cursor) == "c"
        table.set_rows(rows("0"))  # c gone: the cursor stays in the table
        assert table.cursor == 0
        long = [("k", (Text("k"), Text("string"), Text("—"), Text("x" * 200)))]
        table.set_rows(long)
        await pilot.pause()
        drawn = line(table, 1)
        assert len(drawn) <= 40 and drawn.endswith("…")  # the value gives way, with an ellipsis
        table.update_cell(0, 2, "9.5s")
        assert table.row(0)[2].plain == "9.5s" and "9.5s" in line(table, 1)


async def test_key_table_click_moves_the_cursor_and_a_second_click_selects():
    app = TableApp()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(KeyTable)
        table.set_rows(rows("a", "b", "c"))
        await pilot.pause()
        await pilot.click(KeyTable, offset=(2, 3))
        assert table.cursor == 2 and app.selected == []
        await pilot.click(KeyTable, offset=(2, 3))
        assert app.selected == ["c"]


class LogApp(App):
    def compose(self):
        yield PaneLog()


async def test_pane_log_shows_its_scrollbar_only_while_reading_back():
    app = LogApp()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(PaneLog)
        for i in range(50):
            log.write(f"line {i}")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y and not log.has_class("-reading-back")
        assert log.styles.scrollbar_size_vertical == 0
        log.scroll_to(y=10, animate=False)
        await pilot.pause()
        assert log.has_class("-reading-back") and log.styles.scrollbar_size_vertical == 1
        log.write("new output")  # follows the output again, as a terminal does
        await wait_until(pilot, lambda: not log.has_class("-reading-back"))
        assert log.scroll_y == log.max_scroll_y


@pytest.mark.slow
async def test_commands_that_change_no_key_do_not_redraw_the_key_table(server_binary, monkeypatch):
    monkeypatch.setattr(KeyInspector, "FLASH_SECONDS", 0.0)  # no highlight ends (a change of its row) meanwhile
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        for i in range(5):
            await type_command(pilot, app, "A", f"SET key:{i} {i}")
        table = app.mode_screen.query_one(KeyTable)
        inspector = app.mode_screen.query_one(KeyInspector)
        await wait_until(pilot, lambda: table.row_count == 5)
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: not inspector._loading)
        await pilot.pause()  # the last read's rows drawn
        drawn: list[int] = []
        render_line = table.render_line
        table.render_line = lambda y: drawn.append(y) or render_line(y)
        hooked = time.monotonic()
        for i in range(10):
            await type_command(pilot, app, "A", f"GET key:{i % 5}")
        await wait_until(pilot, lambda: inspector._last_read > hooked and not inspector._loading)  # read again since
        await pilot.pause()
        assert drawn == []
        await type_command(pilot, app, "B", "SET key:3 9")  # as wide as before: no column moves
        await wait_until(pilot, lambda: table.row(3)[3].plain == '"9"')
        await pilot.pause()
        assert 4 in drawn and 1 not in drawn  # row 3 is line 4; row 0 was not drawn again


async def test_key_table_cursor_keeps_a_cells_own_background():
    """The WATCH badge "A dirty" is white on red; the cursor row must not hide that."""
    app = TableApp()
    async with app.run_test(size=(60, 6)) as pilot:
        table = app.query_one(KeyTable)
        badge = Text("A dirty", style="bold white on red")
        table.set_rows([("k", (Text("k"), Text("string"), Text("—"), badge))])
        await pilot.pause()
        assert table.cursor == 0
        drawn = [seg for seg in table.render_line(1) if "dirty" in seg.text]
        assert drawn and drawn[0].style.bgcolor.name == "red"
        cursor_bg = table.get_component_rich_style("key-table--cursor").bgcolor
        first = list(table.render_line(1))[0]
        assert first.text.startswith(" k") and first.style.bgcolor == cursor_bg  # the rest shows the cursor


def test_summary_line_counts_in_plain_english():
    from playground.engine.key_reader import KeyInfo, Snapshot
    from playground.tui.widgets.key_inspector import summary_line

    def snap(n: int, total: int, more: int = 0, complete: bool = True, progress=None) -> Snapshot:
        return Snapshot([KeyInfo(b"k%d" % i, "string", -1, 1, '"v"', 0.0) for i in range(n)], more, total,
                        complete, progress)

    assert summary_line(snap(1, 1), "*") == "1 key"
    assert summary_line(snap(3, 3), "*") == "3 keys"
    assert summary_line(snap(100, 255, 155), "*") == "100 of 255 keys shown (the first by name)"
    assert summary_line(snap(100, 200001, -1, False), "*") == "100 of 200,001 keys shown (a sample: SCAN)"
    assert summary_line(snap(1, 40), "user:*") == "1 key matching user:* (40 in db)"
    assert summary_line(snap(100, 400, 50), "user:*") == \
        "100 of 150 keys matching user:* shown (the first by name; 400 in db)"
    assert summary_line(snap(100, 4000, -1, False), "user:*") == \
        "100 keys matching user:* shown (a sample: SCAN; 4,000 in db)"
    assert summary_line(snap(1, 200001, -1, False, 0.4), "key:7") == \
        "1 key matching key:7 so far (scanning… 40% of 200,001 keys)"


class Special(Static, can_focus=True):
    BINDINGS = [("f5", "noop", "Special")]

    def action_noop(self) -> None:
        pass


class FooterApp(App):
    BINDINGS = [("f2", "focus('one')", "One"), ("f3", "focus('two')", "Two"), ("f4", "focus('special')", "")]

    def compose(self):
        from textual.widgets import Input

        from playground.tui.widgets.key_footer import KeyFooter

        yield Input(id="one")
        yield Input(id="two")
        yield Special("special", id="special")
        yield KeyFooter()

    def action_focus(self, name: str) -> None:
        self.query_one(f"#{name}").focus()


async def test_footer_is_rebuilt_only_when_its_keys_change(monkeypatch):
    from textual.widgets._footer import FooterKey

    from playground.tui.widgets.key_footer import KeyFooter

    told: list[str] = []  # the widget focused each time the footer was told the keys changed, once it was done
    recompose = KeyFooter.recompose

    async def heard(self) -> None:
        await recompose(self)
        told.append(self.app.focused.id if self.app.focused else "")

    monkeypatch.setattr(KeyFooter, "recompose", heard)
    app = FooterApp()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.press("f2")
        await wait_until(pilot, lambda: "one" in told)
        before = list(app.query(FooterKey))
        assert {"One", "Two"} <= {k.description for k in before}
        await pilot.press("f3")  # another Input: the same keys, so the same widgets
        await wait_until(pilot, lambda: "two" in told)  # (Textual tells the footer after a refresh: not at once)
        assert list(app.query(FooterKey)) == before
        await pilot.press("f4")  # a widget with a key of its own: the footer shows it
        await wait_until(pilot, lambda: "Special" in {k.description for k in app.query(FooterKey)})
        await pilot.press("f2")
        await wait_until(pilot, lambda: "Special" not in {k.description for k in app.query(FooterKey)})


def _layout_requests(monkeypatch, kinds) -> list[tuple[str, bool]]:
    """Every refresh that reaches Textual's Widget.refresh from a widget of `kinds`: (kind, layout)."""
    from textual.widget import Widget

    asked: list[tuple[str, bool]] = []
    refresh = Widget.refresh

    def spy(self, *regions, repaint=True, layout=False, recompose=False):
        if isinstance(self, kinds):
            asked.append((type(self).__name__, layout))
        return refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(Widget, "refresh", spy)
    return asked


class LineApp(App):
    CSS = "CommandInput { border: none; height: 1; width: 1fr; padding: 0; }"

    def compose(self):
        from playground.engine.help import HelpIndex
        from playground.history import History
        from playground.tui.widgets.command_input import CommandInput

        yield CommandInput(History(None), HelpIndex.bundled)
        yield PaneLog()


@pytest.mark.slow
async def test_typing_and_a_following_log_ask_for_no_layout_pass_yet_scroll_as_before(monkeypatch):
    """A keystroke repaints the command line, a line written repaints the log: neither asks
    Textual to lay the screen out again (that was most of a served keystroke's CPU). The
    line still scrolls to its cursor, the log still follows its output; a line wider than
    the log, or a log read back, still gets its layout pass."""
    from playground.tui.widgets.command_input import CommandInput

    app = LineApp()
    async with app.run_test(size=(30, 12)) as pilot:
        line, log = app.query_one(CommandInput), app.query_one(PaneLog)
        line.focus()
        await pilot.pause()
        asked = _layout_requests(monkeypatch, (CommandInput, PaneLog))
        typed = "SET key-with-a-long-name " + "v" * 20 + "END"
        await pilot.press(*typed)
        for i in range(30):
            log.write(f"line {i}")
        # the log scrolled to its end (scroll_end: after a refresh), and whatever that asked for, asked
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y > 0)
        await pilot.pause()
        assert asked and not any(layout for _, layout in asked), asked
        assert line.value == typed and line.scroll_x > 0  # scrolled to the cursor, at the end
        assert line.render_line(0).text.rstrip().endswith("END")
        assert log.scroll_y == log.max_scroll_y > 0 and "line 29" in log.render_line(log.size.height - 1).text
        asked.clear()
        log.write("x" * 60)  # wider than the log (this one does not wrap): a horizontal scrollbar
        await pilot.pause()
        assert ("PaneLog", True) in asked
        log.scroll_to(y=3, animate=False)
        await pilot.pause()
        asked.clear()
        log.write("while reading back")
        assert ("PaneLog", True) in asked


def test_a_hint_and_a_lookup_find_what_a_scan_of_every_entry_finds():
    """HelpIndex looks a line's command up among its own entries: the same entry as the scan
    of every entry it replaced, for every command and subcommand, in any case."""
    from playground.engine.help import HelpIndex

    index = HelpIndex.bundled()

    def scan(argv):
        best = None
        for e in index.entries:
            # (e.argv a prefix of argv: the rest of argv is left over)
            if len(e.argv) <= len(argv) and all(a.lower() == b.lower() for a, b in zip(e.argv, argv, strict=False)):
                if best is None or len(e.argv) > len(best.argv):
                    best = e
        return best

    for entry in index.entries:
        for argv in (list(entry.argv), [w.lower() for w in entry.argv] + ["x"], [entry.argv[0].swapcase()]):
            assert index.lookup(argv) is scan(argv)
    assert index.lookup(["NOSUCHCOMMAND"]) is None and index.lookup([]) is None
    assert index.hint("client kill ") == scan(["client", "kill"]).params


async def test_the_served_driver_passes_on_a_resize_only_when_the_size_changes(monkeypatch):
    """A tab's page says its size when it opens, mostly the size its app started at: that
    costs no layout pass and frame; a real change is passed on as before."""
    from textual import events

    from playground.tui.served_driver import ServedDriver

    class Posted:
        def __init__(self) -> None:
            self.messages = []

        def post_message(self, message) -> None:
            self.messages.append(message)

    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("ROWS", "40")
    read, write = os.pipe()  # the driver watches its stdin (serve's pipe); pytest's is not one
    stdin = os.fdopen(read, "rb")
    monkeypatch.setattr(sys, "__stdin__", stdin)
    app = Posted()
    driver = ServedDriver(app)
    driver.on_meta("resize", {"width": 120, "height": 40})
    assert app.messages == []
    driver.on_meta("resize", {"width": 100, "height": 30})
    driver.on_meta("resize", {"width": 100, "height": 30})
    driver.on_meta("resize", {"width": 120, "height": 40})
    assert [(m.size.width, m.size.height) for m in app.messages if isinstance(m, events.Resize)] == [(100, 30), (120,
                                                                                                                 40)]
    stdin.close()
    os.close(write)


@pytest.mark.slow
async def test_a_changed_keys_highlight_ends_after_its_time(server_binary, monkeypatch):
    """A key a command changed is drawn bold and reversed for FLASH_SECONDS, then plain.
    The table compared cells with Text's ==, which leaves the style out: the highlight, a
    style of the whole cell, stayed on until something else in its row changed."""
    monkeypatch.setattr(KeyInspector, "FLASH_SECONDS", 3600.0)  # (highlighted however late it is drawn)
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        table = app.mode_screen.query_one(KeyTable)
        inspector = app.mode_screen.query_one(KeyInspector)
        await type_command(pilot, app, "A", "SET k 1")
        await wait_until(pilot, lambda: table.row_count == 1)
        await type_command(pilot, app, "A", "SET j 1")   # (a change: a key that was not there before)
        await wait_until(pilot, lambda: table.row_count == 2 and table.row(0)[0].style == "bold reverse")
        assert table.row(0)[0].plain == "j" and table.row(1)[0].style == ""
        inspector.FLASH_SECONDS = 0.0   # its time is up: the once-a-second read draws it plain
        await wait_until(pilot, lambda: table.row(0)[0].style == "" and table.row(0)[4].style == "dim")
