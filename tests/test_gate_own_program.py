"""A program the learner starts by hand against the gate's URL (Ctrl+G), in free play
(Pilot, real server, a real redis-py program run by this interpreter): its commands wait
as "next: …", Ctrl+N lets them through one at a time, the key inspector follows, a
program that disconnects is shown as gone, and no program outlives the test."""

import os
import subprocess
import sys

import pytest

from playground.gate.endpoint import socket_path
from playground.tui.app import make_app
from playground.tui.screens.info_screens import InfoScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.own_programs import ProgramsPanel, short_reply
from playground.tui.widgets.key_table import KeyTable
from test_tui import hear_notices, notices, started, wait_until
from test_tui_server_says import cells

@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)


pytest.importorskip("redis")

PROGRAM = """
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.set("mine", "x")
assert r.get("mine") == b"x"
print("done", flush=True)
"""


def lanes_text(app) -> str:
    from playground.tui.widgets.lanes_view import LanesView

    return screen_text(app.mode_screen.query_one(LanesView))


def panel_text(app) -> str:
    return str(app.mode_screen.query_one(ProgramsPanel).render())


def screen_text(screen) -> str:
    from textual.widgets import Static

    return "\n".join(str(s.render()) for s in screen.query(Static))


async def test_a_program_started_by_hand_is_stepped(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        assert not app.mode_screen.query_one(ProgramsPanel).display  # nothing changes until Ctrl+G
        assert app.own_programs.gate is None
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        url = app.own_programs.url
        assert url.startswith("unix://") and os.path.exists(socket_path(url))
        shown = screen_text(app.screen)
        assert url in shown and f"REDIS_URL={url} python myprog.py" in shown
        assert 'redis.Redis.from_url(os.environ["REDIS_URL"])' in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, InfoScreen))
        assert app.mode_screen.query_one(ProgramsPanel).display

        program = subprocess.Popen([sys.executable, "-c", PROGRAM], env=dict(os.environ, REDIS_URL=url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await wait_until(pilot, lambda: "next: SET mine x" in panel_text(app))
            assert "→" not in panel_text(app)  # nothing ran yet: redis-py's handshake (CLIENT SETINFO) is not shown
            panes, panel = app.mode_screen.query_one("#panes").size, app.mode_screen.query_one(ProgramsPanel).size
            assert panes.height >= 8 and panel.height <= 4  # the two panes stay usable at 80×24
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: "next: GET mine" in panel_text(app))
            assert "SET mine x → OK" in panel_text(app)
            inspector = app.mode_screen.query_one(KeyInspector)
            await wait_until(pilot, lambda: inspector.snapshot is not None
                             and b"mine" in [k.name for k in inspector.snapshot.keys])
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: program.poll() is not None, timeout=15)
            out, err = program.communicate()
            assert program.returncode == 0, err.decode()
            assert out == b"done\n"
            await wait_until(pilot, lambda: "gone" in panel_text(app))
            assert 'GET mine → "x"' in panel_text(app)
        finally:
            if program.poll() is None:
                program.kill()
            program.wait()
    assert not os.path.exists(socket_path(url))  # the gate closed with the app


async def test_ctrl_n_without_a_waiting_command_says_so(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        await pilot.press("escape")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: any("No program command" in m for m in notices(app)))


async def test_free_running_and_a_restart(server_binary):
    """Run free: a program's commands go at once; a fresh server closes the gate (its
    directory is gone) and Ctrl+G opens a new one."""
    app = make_app(server_binary.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        await pilot.press("escape")
        app.action_programs_free()
        assert "run free: on" in panel_text(app)
        program = subprocess.Popen([sys.executable, "-c", PROGRAM], env=dict(os.environ, REDIS_URL=app.own_programs.url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await wait_until(pilot, lambda: program.poll() is not None, timeout=15)
            assert program.returncode == 0, program.stderr.read().decode()
        finally:
            if program.poll() is None:
                program.kill()
            program.communicate()
        # its commands went through the executor's records: "changed by" and the lanes name it
        name = app.own_programs.gate.log[-1].client.name
        table = app.mode_screen.query_one(KeyTable)
        await wait_until(pilot, lambda: cells(table, "mine")[0] == f"by {name}")
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: name in lanes_text(app) and "SET mine x" in lanes_text(app))
        old = app.own_programs.url
        app._restart_server()
        await wait_until(pilot, lambda: app.own_programs.gate is None and not app.mode_screen.query_one(ProgramsPanel).display)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        assert app.own_programs.url not in (None, old)


def test_short_reply():
    assert short_reply(b"+OK\r\n") == "OK"
    assert short_reply(b"$1\r\nx\r\n") == '"x"'
    assert short_reply(b"$-1\r\n") == "(nil)"
    assert short_reply(b":3\r\n") == "(integer) 3"
    assert short_reply(b"-ERR no\r\n") == "(error) ERR no"
    assert short_reply(None) == "…"
    assert short_reply(b"$4\r\na\r\nb\r\n") == '"a\\r\\nb"'  # one line in the panel
    assert short_reply(b"$3\r\n\xe4\xbd\xa0\r\n") == '"你"'
    assert short_reply(b"$100\r\n" + b"x" * 100 + b"\r\n") == '"' + "x" * 60 + '…"'
    assert short_reply(b"*2\r\n$1\r\na\r\n$1\r\nb\r\n") == "(2 items)"
