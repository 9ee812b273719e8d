"""What the narration and the panes say beside the server (issue 44): a server's action
is the server's, not a client's; a bound group is narrated in words; a connection closed
by SHUTDOWN says so in its pane; a command typed by hand that changed the lesson's path is
named, and the lesson's words are held back where the server did otherwise; a named
script keeps its name once a saved value is filled in. Each against the server's own state."""

import pytest
from commands import send
from pilot import log_text, started, state_text, type_command, wait_until
from pilot import opened, panel_text, press_and_wait, scenario

from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.server import make_server
from playground.tui.app import make_app
from playground.tui.dialogs.scenario_dialogs import PredictScreen

pytestmark = [pytest.mark.server, pytest.mark.tui]

SERVER_STEPS = """
title = "Server steps"
lesson = "The server acts; nobody typed it."
topology = "replica"

[[steps]]
client = "A"
command = "SET k v"
reply = "OK"

[[steps]]
server = "settle"
narration = "The replica catches up."

[[steps]]
server = "connect B replica-1"
narration = "B talks to the replica."

[[steps]]
client = "B"
command = "GET k"
reply = '"v"'
"""

SHUTDOWN = """
title = "Shutdown"
lesson = "A blocks, B shuts the server down."

[[steps]]
client = "A"
command = "BLPOP q 0"
blocking = true

[[steps]]
client = "B"
command = "SHUTDOWN NOSAVE"
server_stops = true

[[steps]]
client = "A"
command = "PING"
reply = "PONG"
"""

SCRIPT_SAVED = """
title = "A script with a saved argument"
lesson = "The script's name, not its source."

[scripts]
bump = '''
-- add ARGV[1] to the key
return redis.call('INCRBY', KEYS[1], ARGV[1])
'''

[[steps]]
client = "A"
command = "SET n 5"
reply = "OK"

[[steps]]
client = "A"
command = "GET n"
save = "n"
reply = '"5"'

[[steps]]
client = "A"
command = "EVAL $bump 1 n ${n}"
reply = "(integer) 10"
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return load_scenario(path)


async def test_a_server_action_is_previewed_and_shown_as_the_servers(server_binary, tmp_path):
    server = make_server(server_binary, "replica", None).spawn()
    try:
        app = make_app(open_scenario=write(tmp_path, "server-steps.toml", SERVER_STEPS), server=server)
        async with app.run_test(size=(140, 45)) as pilot:
            await started(pilot, app)
            await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app),
                             timeout=60)
            app.scenario_run.speed_index = 0
            await press_and_wait(pilot, app, "space")
            assert "next: [server] settle" in panel_text(app) and "A> [server]" not in panel_text(app)
            await press_and_wait(pilot, app, "space")      # the server's: in every pane
            assert "# [server] settle" in log_text(app, "A") and "# [server] settle" in log_text(app, "B")
            assert "next: [server] connect B replica-1" in panel_text(app)
            await press_and_wait(pilot, app, "space")      # B's connection moves: in B's pane only
            assert "# [server] connect B replica-1" in log_text(app, "B")
            assert not any("connect B" in line for line in log_text(app, "A")), log_text(app, "A")
            await press_and_wait(pilot, app, "space")
            replica = next(n for n in server.nodes if n.name == "replica-1")
            assert app.playground.session("B").address.port == replica.port  # the server's own word: B is on it
            assert log_text(app, "B")[-3:-1] == ["B> GET k", '"v"']
    finally:
        server.stop()


async def test_a_bound_group_is_narrated_in_words(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("set-nx-lock"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")    # A's SET NX, and B's bound to it
        text = panel_text(app)
        assert "✓ Steps 1–2 as one move (bound): the server agrees with all 3 checks." in text, text
        assert "the server agrees (1 check)" not in text and "(2 checks)" not in text
        assert "A gets the lock" in text and "B is refused" in text
        assert await send(app.executor, "A", [b"GET", b"lock:job123"], quiet=True) == b"worker-a"
        await pilot.press("f12")  # the same move, said again in Chinese: the whole group
        await wait_until(pilot, lambda: "第 1–2 步一起执行" in panel_text(app))
        assert "A 拿到锁" in panel_text(app) and "B 被拒绝" in panel_text(app)


async def test_a_connection_closed_by_shutdown_says_so_in_its_pane(server_binary, tmp_path):
    app = make_app(server_binary.path, open_scenario=write(tmp_path, "shutdown.toml", SHUTDOWN))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")    # A blocks
        await press_and_wait(pilot, app, "space")    # B: SHUTDOWN NOSAVE
        assert any(line.startswith("# client A: the server stopped") for line in log_text(app, "A")), \
            log_text(app, "A")
        await press_and_wait(pilot, app, "space")
        assert log_text(app, "A")[-3:-1] == ["A> PING", "PONG"]


async def test_free_play_a_blocked_client_is_not_blocked_once_the_server_stopped(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        pane = app.pane("B")
        pane.query_one("#input").value = "BLPOP q 0"
        pane.query_one("#input").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: "blocked" in state_text(app, "B"))
        await type_command(pilot, app, "A", "SHUTDOWN NOSAVE")
        await wait_until(pilot, lambda: "connection closed: the server stopped" in state_text(app, "B"))
        assert app.playground.server_stopped()  # the server's process is gone
        assert "blocked" not in state_text(app, "B") and "connection closed" in state_text(app, "A")


async def test_a_typed_unwatch_is_named_and_the_lessons_words_held_back(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("watch-abort"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")             # A: WATCH balance
        await type_command(pilot, app, "A", "UNWATCH")        # nothing written: A's connection changed
        await wait_until(pilot, lambda: "You typed UNWATCH in A at step 2 by hand" in panel_text(app))
        app.mode_screen.narration.focus()
        for _ in range(4):                                    # GET, B's SET, MULTI, DECRBY
            await press_and_wait(pilot, app, "space")
        await pilot.press("space")                            # EXEC, and its question
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert await send(app.executor, "B", [b"GET", b"balance"], quiet=True) == b"100"  # EXEC ran: 200 - 100
        text = panel_text(app)
        assert "Your own typing, not the server: you typed UNWATCH in A at step 2" in text, text
        assert "EXEC returns nil" not in text and "held back" in text
        assert "The server disagrees with the lesson" not in text
        await press_and_wait(pilot, app, "p")                 # back before EXEC, replayed without it
        assert "You typed" not in panel_text(app)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.mode_screen.busy)
        assert "EXEC returns nil" in panel_text(app) and "MISMATCH" not in panel_text(app)
        assert await send(app.executor, "B", [b"GET", b"balance"], quiet=True) == b"200"


async def test_a_named_script_keeps_its_name_with_a_saved_value(server_binary, tmp_path):
    lesson = write(tmp_path, "script-saved.toml", SCRIPT_SAVED)
    app = make_app(server_binary.path, open_scenario=lesson)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(2):
            await press_and_wait(pilot, app, "space")
        assert "next: A> EVAL $bump 1 n 5" in panel_text(app)
        await press_and_wait(pilot, app, "space")
        assert log_text(app, "A")[-3:-1] == ["A> EVAL $bump 1 n 5", "(integer) 10"]
        assert await send(app.executor, "A", [b"GET", b"n"], quiet=True) == b"10"  # the script ran, with 5


async def test_run_shows_a_named_script_by_its_name_with_a_saved_value(pg, tmp_path):
    result = await Runner(pg).run(write(tmp_path, "script-saved.toml", SCRIPT_SAVED))
    assert [s.command for s in result.steps][2] == "EVAL $bump 1 n 5"
    assert result.steps[2].argv[1].startswith(b"-- add ARGV[1]") and result.steps[2].argv[4] == b"5"  # as sent
    assert await send(pg, "A", [b"GET", b"n"]) == b"10"
