"""The TUI under stress, on real servers: busy scripts, a server killed from a pane,
big values, many keys, binary names, resizing, a server that will not start."""

import time

from textual.widgets import Static

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.server_bar import ServerBar
from playground.tui.widgets.key_table import KeyTable
from pilot import log_text, reply_to, shutdown_then_f5, started, state_text, type_command, untimed, wait_until
from commands import send
from servers import shared

BUSY = "local t = redis.call('TIME')[1] + 10 while tonumber(redis.call('TIME')[1]) < t do end return 1"
UNKILLABLE = ("redis.call('SET', KEYS[1], 'x') local t = redis.call('TIME')[1] + 10 "
              "while tonumber(redis.call('TIME')[1]) < t do end return 1")


def last_reply(app, client: str) -> str:
    """Everything the pane printed after its last command line, wrapped lines joined."""
    lines = log_text(app, client)
    start = max(i for i, line in enumerate(lines) if line.startswith(f"{client}> "))
    return " ".join(lines[start + 1:])


async def start_waiting(pilot, app, client, line, state):
    """Send a line that keeps its client waiting, until the state line says `state`."""
    pane = app.mode_screen.query_one(f"#pane-{client}", ClientPane)
    pane.query_one("CommandInput").value = line
    pane.query_one("CommandInput").focus()
    await pilot.press("enter")
    await wait_until(pilot, lambda: state in state_text(app, client))


async def start_eval(pilot, app, client, script, *args):
    """A script that keeps its client busy; others get BUSY after 0.1 s, as in busy-script
    (the server's own default is 5 s)."""
    await app.playground.set_script_time_limit(100)
    await start_waiting(pilot, app, client, f'EVAL "{script}" ' + " ".join(args), "running script")


async def test_busy_script_other_pane_gets_busy_and_ui_stays_live(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await start_eval(pilot, app, "A", BUSY, "0")
        await type_command(pilot, app, "B", "GET k")
        assert last_reply(app, "B").startswith("(error) BUSY")
        await type_command(pilot, app, "B", "SCRIPT KILL")
        assert untimed(reply_to(app, "B", "SCRIPT KILL")) == ["OK"]
        a = app.mode_screen.query_one("#pane-A", ClientPane)
        await wait_until(pilot, lambda: not a.running)
        assert any("Script killed by user" in line for line in log_text(app, "A"))


async def test_unkillable_then_shutdown_then_restart(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await start_eval(pilot, app, "A", UNKILLABLE, "1", "k")
        await type_command(pilot, app, "B", "SCRIPT KILL")
        assert last_reply(app, "B").startswith("(error) UNKILLABLE")
        banner = await shutdown_then_f5(pilot, app, "B")
        assert "gone" in banner and "F5" in banner
        await type_command(pilot, app, "A", "EXISTS k")
        assert untimed(reply_to(app, "A", "EXISTS k")) == ["(integer) 0"]


async def test_ten_megabyte_value(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        await send(app.executor, "B", [b"SET", b"big", b"x" * 10_000_000], quiet=True)
        started_at = time.monotonic()
        await type_command(pilot, app, "A", "GET big")
        assert "more bytes of this reply not shown" in last_reply(app, "A")
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        app.mode_screen.query_one(KeyInspector).refresh_keys()
        await wait_until(pilot, lambda: table.row_count == 1)
        preview = str(table.row(0)[3])
        assert preview.startswith('"xxxx') and preview.endswith("…") and len(preview) < 100
        await type_command(pilot, app, "A", "STRLEN big")
        assert untimed(reply_to(app, "A", "STRLEN big")) == ["(integer) 10000000"]
        assert time.monotonic() - started_at < 60  # generous: a hang, not a benchmark


async def test_hundred_thousand_keys(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        await send(app.executor, "B", [b"EVAL", b"for i = 1, 100000 do redis.call('SET', 'key:' .. i, i) end return 1",
                                       b"0"], quiet=True)
        inspector = app.mode_screen.query_one(KeyInspector)
        inspector.refresh_keys()
        summary = inspector.query_one("#summary", Static)
        await wait_until(pilot, lambda: "100 of 100,000 keys shown (a sample: SCAN)" in str(summary.render()))
        table = inspector.query_one(KeyTable)
        assert table.row_count == inspector.inspector.cap
        await type_command(pilot, app, "A", "GET key:77")
        assert untimed(reply_to(app, "A", "GET key:77")) == ['"77"']


async def test_binary_keys_and_values(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", r'SET "bin\x00\xff" "\x01\x02caf\xc3\xa9"')
        await type_command(pilot, app, "A", r'GET "bin\x00\xff"')
        assert untimed(reply_to(app, "A", r'GET "bin\x00\xff"')) == [r'"\x01\x02caf\xc3\xa9"']
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: table.row_count == 1)
        assert str(table.row(0)[3]) == r'"\x01\x02caf\xc3\xa9"'


async def test_resize_small_and_back(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        a, b = app.mode_screen.query_one("#pane-A"), app.mode_screen.query_one("#pane-B")
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: b.region.right <= 80)  # laid out at 80 columns (at 160 the same held)
        assert a.region.y == b.region.y and a.region.width >= 38  # still side by side
        await type_command(pilot, app, "A", "PING")
        assert untimed(reply_to(app, "A", "PING")) == ["PONG"]
        await pilot.resize_terminal(60, 30)
        await wait_until(pilot, lambda: a.region.y < b.region.y)  # stacked
        await pilot.resize_terminal(160, 45)
        await wait_until(pilot, lambda: a.region.y == b.region.y and b.region.right > 80)  # side by side again


async def test_server_that_fails_to_start_gives_a_readable_screen(tmp_path):
    fake = tmp_path / "redis-server"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Redis server v=7.0.0 sha=0'; exit 0; fi\n"
                    "echo 'FATAL: cannot start for a test' >&2\nexit 1\n")
    fake.chmod(0o755)
    app = make_app(str(fake))
    async with app.run_test(size=(120, 30)) as pilot:
        banner = app.mode_screen.query_one("#banner", Static)
        await wait_until(pilot, lambda: banner.has_class("-shown"))
        text = str(banner.render())
        assert "could not start" in text and "FATAL: cannot start for a test" in text
        assert app.mode_screen.query_one(ServerBar).stopped
        await type_command(pilot, app, "A", "PING")  # typing says what is wrong, no traceback
        assert "not connected" in last_reply(app, "A")


async def test_ctrl_c_on_a_busy_script_says_what_happened_and_the_app_lives(server_binary):
    """As the state line advises: Ctrl+C while A's script runs. Redis refuses the new
    connection's handshake with BUSY (it used to crash the app with a traceback)."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await start_eval(pilot, app, "A", BUSY, "0")
        a = app.mode_screen.query_one("#pane-A", ClientPane)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not a.running and any("client A:" in line for line in log_text(app, "A")))
        await type_command(pilot, app, "B", "SCRIPT KILL")
        assert untimed(reply_to(app, "B", "SCRIPT KILL")) == ["OK"]
        await type_command(pilot, app, "A", "PING")
        # (Redis 7.0: the reconnection, refused while the script ran, is said under the line first)
        assert untimed(reply_to(app, "A", "PING"))[-1:] == ["PONG"]


async def test_a_line_typed_into_a_blocked_pane_waits_its_turn(server_binary):
    """As in a terminal: typed while BLPOP blocks, the line is sent once BLPOP returns
    (it was refused and left in the line: issue 35)."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        a = app.mode_screen.query_one("#pane-A", ClientPane)
        await start_waiting(pilot, app, "A", "BLPOP q 0", "blocked")
        a.query_one("CommandInput").value = "SET x 1"
        await pilot.press("enter")
        await wait_until(pilot, lambda: a.queued() == ["SET x 1"])
        assert "A> SET x 1" not in log_text(app, "A")
        assert a.query_one("CommandInput").value == ""
        await type_command(pilot, app, "B", "EXISTS x")
        assert untimed(reply_to(app, "B", "EXISTS x")) == ["(integer) 0"]  # not sent while A waits
        await type_command(pilot, app, "B", "RPUSH q j")
        await wait_until(pilot, lambda: not a.running and untimed(reply_to(app, "A", "SET x 1")) == ["OK"])
        lines = log_text(app, "A")
        assert lines.index('2) "j"') < lines.index("A> SET x 1")  # BLPOP's reply, then the line (its reply last)
        await type_command(pilot, app, "B", "EXISTS x")
        assert untimed(reply_to(app, "B", "EXISTS x")) == ["(integer) 1"]


async def test_other_client_names_work_everywhere(server_binary):
    """--clients X,Y: F2/F3 focus X and Y and the footer names them (F2 crashed with
    NoMatches '#pane-A Input')."""
    from textual.widgets import Input

    app = make_app(server=shared(server_binary), clients=("X", "Y"))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.focused is app.mode_screen.query_one("#pane-Y",
                                                                                 ClientPane).query_one(Input))
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.focused is app.mode_screen.query_one("#pane-X",
                                                                                 ClientPane).query_one(Input))
        from playground.tui.widgets.key_footer import KeyFooter

        footer = app.mode_screen.query_one(KeyFooter)
        descriptions = {getattr(w, "description", "") for w in footer.query("*")
                        if getattr(w, "action", "").startswith("focus_client")}
        assert descriptions == {"X", "Y"}  # the footer names them (short: it fits)
        await type_command(pilot, app, "Y", "CLIENT GETNAME")
        assert untimed(reply_to(app, "Y", "CLIENT GETNAME")) == ['"Y"']


async def test_a_server_killed_from_outside_is_noticed_without_a_command(server_binary):
    """kill -9 of the private server: the bar says STOPPED and the banner offers F5
    before anybody types (it used to wait for the next command)."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        process = app.playground.server.process
        process.kill()
        process.wait()
        banner = app.mode_screen.query_one("#banner", Static)
        await wait_until(pilot, lambda: banner.has_class("-shown"))
        assert app.mode_screen.query_one(ServerBar).stopped
        assert "stopped" in str(banner.render()) and "F5" in str(banner.render())


async def test_an_unreachable_url_does_not_offer_f5(tmp_path):
    """F5 restarts only the playground's own server: under --url it is refused, so
    neither the banner nor the bar offers it."""
    app = make_app(url=f"unix://{tmp_path}/nobody-listens.sock")
    async with app.run_test(size=(120, 35)) as pilot:
        banner = app.mode_screen.query_one("#banner", Static)
        await wait_until(pilot, lambda: banner.has_class("-shown"))
        bar = app.mode_screen.query_one(ServerBar)
        assert bar.stopped and "F5" not in str(bar.render()) and "UNREACHABLE" in str(bar.render())
        assert "--url" in str(banner.render()) and "F5" not in str(banner.render())


async def test_a_lesson_that_restarts_a_killed_server_takes_the_bar_and_inspector_along(server_binary):
    """kill -9 mid-lesson, then the lesson's next reset starts a fresh server: the bar stops
    saying STOPPED and the inspector reads the new server at once (they stayed on the dead one)."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        process = app.playground.server.process
        process.kill()
        process.wait()
        bar, banner = app.mode_screen.query_one(ServerBar), app.mode_screen.query_one("#banner", Static)
        await wait_until(pilot, lambda: bar.stopped and banner.has_class("-shown"))
        await app.playground.reset(setup=[[b"SET", b"fresh", b"1"]])  # what a lesson's next part does
        await wait_until(pilot, lambda: not bar.stopped and not banner.has_class("-shown"))
        assert app.inspector is app.playground.reader
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await wait_until(pilot, lambda: any("fresh" in table.row_key(i) for i in range(table.row_count)))
