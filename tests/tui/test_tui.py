"""The TUI driven with Pilot on a real private server: typing into both panes, the
state line, the inspector, cancel, and a server restart after SHUTDOWN NOSAVE."""

import pytest

from textual.widgets import Input

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.server_bar import ServerBar
from playground.tui.widgets.key_table import KeyTable
from commands import send
from servers import shared
from pilot import (log_text, reply_to, shutdown_then_f5, started, state_text, type_command, untimed, wait_until,
                   workers_finished)


async def test_watch_abort_by_hand(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        assert server_binary.version in app.mode_screen.query_one(ServerBar).label
        await type_command(pilot, app, "A", "SET balance 150")
        await type_command(pilot, app, "A", "WATCH balance")
        assert "WATCH balance" in state_text(app, "A") and "dirty" not in state_text(app, "A")
        await type_command(pilot, app, "B", "SET balance 200")
        await wait_until(pilot, lambda: "dirty" in state_text(app, "A"))
        await type_command(pilot, app, "A", "MULTI")
        await type_command(pilot, app, "A", "DECRBY balance 100")
        assert "(TX 1)" in state_text(app, "A")
        await type_command(pilot, app, "A", "EXEC")
        shown = untimed(reply_to(app, "A", "EXEC"))
        assert shown[0] == "(nil)" and shown[-1].endswith("EXEC aborted, nothing ran.")  # the why, after the reply
        assert "(TX" not in state_text(app, "A") and "WATCH balance" not in state_text(app, "A")
        assert "EXEC aborted: a WATCHed key changed" in state_text(app, "A")  # says why, until the next command
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: table.row_count == 1 and str(table.row(0)[3]) == '"200"')


@pytest.mark.slow
async def test_pane_prints_what_redis_cli_prints(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        app.mode_screen.query_one("#pane-A Input").focus()
        await pilot.press(*"RPUSH l a b", "enter")  # real key presses, once
        await wait_until(pilot, lambda: reply_to(app, "A", "RPUSH l a b")[:1] == ["(integer) 2"])
        await type_command(pilot, app, "A", "LRANGE l 0 -1")
        assert untimed(reply_to(app, "A", "LRANGE l 0 -1")) == ['1) "a"', '2) "b"']
        await type_command(pilot, app, "A", 'SET k "x')
        assert log_text(app, "A")[-1] == "Invalid argument(s)"


@pytest.mark.slow
async def test_blocked_pane_and_cancel(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        pane = app.mode_screen.query_one("#pane-A", ClientPane)
        pane.query_one(Input).focus()
        await pilot.press(*"BLPOP jobs 0", "enter")
        await wait_until(pilot, lambda: "blocked" in state_text(app, "A"))
        await type_command(pilot, app, "B", "PING")  # B is not blocked
        assert untimed(reply_to(app, "B", "PING")) == ["PONG"]
        pane.query_one(Input).focus()
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: any("cancelled" in line for line in log_text(app, "A")))
        await wait_until(pilot, lambda: not pane.running)
        await type_command(pilot, app, "A", "PING")
        assert untimed(reply_to(app, "A", "PING")) == ["PONG"]


async def test_shutdown_banner_and_restart(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        assert "F5" in await shutdown_then_f5(pilot, app, "B")
        await type_command(pilot, app, "A", "GET k")
        assert untimed(reply_to(app, "A", "GET k")) == ["(nil)"]


@pytest.mark.fresh_server
async def test_server_does_not_outlive_the_app(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        process, folder = app.playground.server.process, app.playground.server.dir
    assert process.poll() is not None
    import os
    assert not os.path.exists(folder)  # noqa: ASYNC240 (procfs or a local path: no wait)


async def test_f5_asks_before_wiping_a_live_server(server_binary):
    """F5 wiped the server without asking (F8 asked): now it asks like F8; No keeps everything."""
    from playground.tui.dialogs.confirm import ConfirmScreen

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET kept 1")
        generation = app.playground.server.generation
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.playground.server.generation == generation
        assert await send(app.executor, "A", [b"EXISTS", b"kept"], quiet=True) == 1
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.playground.server.generation == generation + 1)
        assert await send(app.executor, "A", [b"EXISTS", b"kept"], quiet=True) == 0


async def test_ctrl_c_at_an_idle_prompt_says_how_to_quit(server_binary):
    """redis-cli quits on Ctrl+C at its prompt; here it did nothing, with no hint."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        said = []
        app.notify = lambda message, **kw: said.append(message)
        app.mode_screen.query_one("#pane-A Input").value = "GET half-typed"
        await pilot.press("ctrl+c")
        await workers_finished(pilot, app)  # (its Ctrl+C awaits the executor: all it started, done)
        assert app.mode_screen.query_one("#pane-A Input").value == "" and not said
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: any("Ctrl+Q" in message for message in said))
        assert len(said) == 1, said  # the second Ctrl+C's: none from the first, however late


async def test_a_pane_scrolls_back_from_the_keyboard(server_binary):
    """PageUp/PageDown (and Shift+arrows) scroll the pane while its prompt has focus; only
    the mouse did before."""
    from playground.tui.widgets.pane_log import PaneLog

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "30 PING")
        log = app.mode_screen.query_one("#pane-A PaneLog", PaneLog)
        await wait_until(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y)
        bottom = log.scroll_y
        await pilot.press("pageup")
        await wait_until(pilot, lambda: log.scroll_y < bottom)
        await pilot.press("shift+down")
        up = log.scroll_y
        await pilot.press("pagedown", "pagedown", "pagedown")
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y > up)
        assert app.focused is app.mode_screen.query_one("#pane-A Input")  # still typing there


async def test_f4_never_focuses_a_hidden_inspector(server_binary):
    """F4 with the lanes open focused the inspector they had hidden: the lanes give way."""
    from playground.tui.widgets.key_inspector import KeyInspector

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: app.show_order)
        inspector = app.mode_screen.query_one(KeyInspector)
        assert not inspector.display
        await pilot.press("f4")
        await wait_until(pilot,
                         lambda: inspector.display and app.focused is app.mode_screen.query_one("#inspector #keys"))
        assert not app.show_order
