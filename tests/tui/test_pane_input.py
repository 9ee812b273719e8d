"""Pane input conveniences and the other interactions, driven with Pilot on a real server."""

import pytest
from textual.widgets import Input, Static, TextArea

from playground.tui.app import make_app
from playground.tui.widgets.command_input import CommandInput
from playground.tui.dialogs.confirm import ConfirmScreen
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.dialogs.script_editor import ScriptEditor
from playground.tui.widgets.key_table import KeyTable
from pilot import log_text, reply_to, started, type_command, untimed, wait_until
from commands import send
from servers import shared


def hint(app, client="A") -> str:
    return str(app.mode_screen.query_one(f"#pane-{client} #hint", Static).render())


@pytest.mark.slow
async def test_history_up_down_and_persisted(server_binary, private_state_dir):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET a 1")
        await type_command(pilot, app, "A", "GET a")
        await type_command(pilot, app, "A", "AUTH secret")  # never saved
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press("up")
        assert field.value == "GET a"
        await pilot.press("up")
        assert field.value == "SET a 1"
        await pilot.press("down", "down")
        assert field.value == ""
    assert (private_state_dir / "history-A").read_text().splitlines() == ["SET a 1", "GET a"]
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:  # a new run remembers
        await started(pilot, app)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press("up")
        assert field.value == "GET a"
        assert app.mode_screen.query_one("#pane-B CommandInput", CommandInput).history.lines == []


async def test_reverse_search(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        for line in ["SET user:1 ada", "GET other", "SET user:2 bob", "PING"]:
            await type_command(pilot, app, "A", line)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press(*"user", "ctrl+r")
        assert field.value == "SET user:2 bob"
        await wait_until(pilot, lambda: "reverse-i-search" in hint(app))
        await pilot.press("ctrl+r")
        assert field.value == "SET user:1 ada"


async def test_tab_completes_command_names_and_hints_show_arguments(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        field.focus()
        await pilot.press(*"lpu", "tab")
        assert field.value == "LPUSH "
        await pilot.press("tab")
        assert field.value == "LPUSHX "
        field.value = "SET k "
        await wait_until(pilot, lambda: hint(app).startswith("value [NX|XX"))
        assert "—" in hint(app)  # the summary from COMMAND DOCS follows


async def test_help_is_answered_in_the_pane(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "HELP GET")
        lines = log_text(app, "A")
        assert "GET key" in lines[-4] and lines[-3].strip().startswith("summary:")


async def test_lua_editor_sends_one_eval(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        app.mode_screen.query_one("#pane-A CommandInput").focus()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, ScriptEditor))
        app.screen.query_one(TextArea).text = "local a = ARGV[1]\nlocal b = ARGV[2]\nreturn a .. b"
        app.screen.query_one("#args", Input).value = "0 x y"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: untimed(reply_to(app, "A", "EVAL <script, 3 lines> 0 x y")) == ['"xy"'])


async def test_subscribe_in_one_pane_publish_from_the_other(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SUBSCRIBE news")
        await wait_until(pilot, lambda: "subscribed (1)" in str(app.mode_screen.query_one("#pane-A #state",
                                                                                          Static).render()))
        await type_command(pilot, app, "B", "PUBLISH news hello")
        assert untimed(reply_to(app, "B", "PUBLISH news hello")) == ["(integer) 1"]
        await wait_until(pilot, lambda: log_text(app, "A")[-3:] == ['1) "message"', '2) "news"', '3) "hello"'])


async def test_flush_asks_first(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        assert await send(app.executor, "B", [b"EXISTS", b"k"], quiet=True) == 1
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        await app.workers.wait_for_complete()
        assert await send(app.executor, "B", [b"EXISTS", b"k"], quiet=True) == 0


@pytest.mark.slow
async def test_filter_and_detail_view(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        for line in ["SET user:1 ada", "SET user:2 bob", "SET other x"]:
            await type_command(pilot, app, "A", line)
        inspector = app.mode_screen.query_one(KeyInspector)
        table = inspector.query_one(KeyTable)
        await wait_until(pilot, lambda: table.row_count == 3)
        await pilot.press("f4", "slash")
        await pilot.press(*"user:*", "enter")
        await wait_until(pilot, lambda: table.row_count == 2)
        assert "2 keys matching user:* (3 in db)" in str(inspector.query_one("#summary", Static).render())
        table.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        body = str(app.screen.query_one(Static).render())
        assert 'key: "user:1"' in body and "type: string" in body and '"ada"' in body


async def test_watch_badge_in_inspector(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET balance 1")
        await type_command(pilot, app, "A", "WATCH balance")
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: table.row_count == 1 and str(table.row(0)[5]) == "A")
        await type_command(pilot, app, "B", "SET balance 2")
        await wait_until(pilot, lambda: str(table.row(0)[5]) == "A dirty")


async def test_cached_scripts_view(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", 'EVAL "return 1" 0')
        await type_command(pilot, app, "B", "SCRIPT FLUSH")
        await type_command(pilot, app, "A", 'SCRIPT LOAD "return 2"')
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        body = str(app.screen.query_one(Static).render())
        assert "e0e1f9fabfc9d4800c877a703b823ac0578ff8db  NOT cached" in body
        assert "7f923f79fe76194c868d7e1d0820de36700eb649  cached" in body
