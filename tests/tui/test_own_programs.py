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
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.engine.events import LineResult
from playground.resp.connection import parse_reply
from playground.tui.widgets.own_programs import ProgramsPanel, reply_line
from playground.tui.widgets.key_table import KeyTable
from pilot import gate_opened, hear_notices, notices, started, type_command, wait_until
from pilot import cells
from servers import shared

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
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        assert not app.mode_screen.query_one(ProgramsPanel).display  # nothing changes until Ctrl+G
        assert app.own_programs.gate is None
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        url = app.own_programs.url
        assert url.startswith("unix://") and os.path.exists(socket_path(url))  # noqa: ASYNC240 (procfs or a local path: no wait)
        shown = screen_text(app.screen)
        assert url in shown and f"REDIS_URL={url} python myprog.py" in shown
        assert 'redis.Redis.from_url(os.environ["REDIS_URL"])' in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, InfoScreen))
        assert app.mode_screen.query_one(ProgramsPanel).display

        program = subprocess.Popen([sys.executable, "-c", PROGRAM], env=dict(os.environ, REDIS_URL=url),  # noqa: ASYNC220 (a user's program, polled)
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
            await wait_until(pilot, lambda: "gone" in panel_text(app) and 'GET mine → "x"' in panel_text(app))
        finally:
            if program.poll() is None:
                program.kill()
            program.wait()
    assert not os.path.exists(socket_path(url))  # noqa: ASYNC240 (procfs or a local path: no wait) — the gate closed with the app


async def test_ctrl_n_without_a_waiting_command_says_so(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: any("No program command" in m for m in notices(app)))


async def test_free_running_and_a_restart(server_binary):
    """Run free: a program's commands go at once; a fresh server closes the gate (its
    directory is gone) and Ctrl+G opens a new one."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        app.action_programs_free()
        assert "run free: on" in panel_text(app)
        program = subprocess.Popen([sys.executable, "-c", PROGRAM], env=dict(os.environ,  # noqa: ASYNC220 (a user's program, polled)
                                                                             REDIS_URL=app.own_programs.url),
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
        app.server_control.restart()
        await wait_until(pilot,
                         lambda: app.own_programs.gate is None and not app.mode_screen.query_one(ProgramsPanel).display)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        assert app.own_programs.url not in (None, old)


RESP3_PROGRAM = """
import os, redis
url = os.environ["REDIS_URL"]
one, two, three = (redis.Redis.from_url(url, protocol=3) for _ in range(3))
one.hset("h", "f", "v")
one.hgetall("h")
two.rpush("l", "a", "b")
two.lrange("l", 0, -1)
three.get("missing")
print("done", flush=True)
"""


async def test_the_panel_shows_replies_as_redis_cli_prints_them(server_binary):
    """A RESP3 program's map, array and nil, each its connection's last reply: the first
    line of what redis-cli prints for it, from the executor's record of the line."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        app.action_programs_free()
        program = subprocess.Popen([sys.executable, "-c", RESP3_PROGRAM],  # noqa: ASYNC220 (a user's program, polled)
                                   env=dict(os.environ, REDIS_URL=app.own_programs.url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await wait_until(pilot, lambda: program.poll() is not None, timeout=15)
            assert program.returncode == 0, program.stderr.read().decode()
        finally:
            if program.poll() is None:
                program.kill()
            program.communicate()
        shown = ['HGETALL h → 1# "f" => "v"', 'LRANGE l 0 -1 → 1) "a" …', "GET missing → (nil)"]
        await wait_until(pilot, lambda: all(line in panel_text(app) for line in shown))


LONG = "x" * 100


@pytest.mark.parametrize("argv, frame, shown", [
    ([b"SET", b"k", b"v"], b"+OK\r\n", "OK"),
    ([b"GET", b"k"], b"$1\r\nx\r\n", '"x"'),
    ([b"GET", b"k"], b"$-1\r\n", "(nil)"),
    ([b"GET", b"k"], b"_\r\n", "(nil)"),                                  # RESP3's null
    ([b"INCR", b"n"], b":3\r\n", "(integer) 3"),
    ([b"NOSUCH"], b"-ERR no\r\n", "(error) ERR no"),
    ([b"GET", b"k"], b"$4\r\na\r\nb\r\n", '"a\\r\\nb"'),                # one line in the panel
    ([b"GET", b"k"], b"$3\r\n\xe4\xbd\xa0\r\n", '"\\xe4\\xbd\\xa0"'),     # redis-cli escapes every non-ASCII byte
    ([b"GET", b"k"], b"$100\r\n" + LONG.encode() + b"\r\n", '"' + "x" * 59 + "…"),
    ([b"LRANGE", b"l", b"0", b"-1"], b"*2\r\n$1\r\na\r\n$1\r\nb\r\n", '1) "a" …'),
    ([b"LRANGE", b"l", b"0", b"-1"], b"*0\r\n", "(empty array)"),
    ([b"HGETALL", b"h"], b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n", '1# "f" => "v"'),
    ([b"SMEMBERS", b"s"], b"~1\r\n$1\r\na\r\n", '1~ "a"'),
    ([b"INCRBYFLOAT", b"f", b"1.5"], b",1.5\r\n", "(double) 1.5"),
    ([b"SISMEMBER", b"s", b"a"], b"#t\r\n", "(true)"),
    ([b"PING"], b"+O\x1bK\r\n", "O\\x1bK"),                              # an escape is read, not obeyed
    ([b"INFO"], b"$31\r\n# Server\r\nredis_version:7.0.0\r\n\r\n", "# Server …"),  # printed raw, as redis-cli does
])
async def test_reply_line_is_the_first_line_redis_cli_prints(argv, frame, shown):
    line = LineResult("python3#1", tuple(argv), replies=[await parse_reply(frame)])
    assert reply_line(line) == shown


def test_a_line_without_a_reply_yet_shows_an_ellipsis():
    assert reply_line(None) == "…"
    assert reply_line(LineResult("python3#1", (b"GET", b"k"))) == "…"


WATCHING = """
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.set("k", "1")
with r.pipeline() as pipe:
    pipe.watch("k")
    pipe.get("k")
    pipe.multi()
    pipe.set("k", "mine")
    try:
        pipe.execute()
        print("committed", flush=True)
    except redis.WatchError:
        print("aborted", flush=True)
"""


async def test_a_programs_watch_is_a_badge_under_its_name(server_binary):
    """The inspector's WATCH column shows a program's WATCHed key under the program's name,
    dirty once B wrote it (the server agrees: its EXEC aborts), and no more after."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        inspector = app.mode_screen.query_one(KeyInspector)
        table = app.mode_screen.query_one(KeyTable)
        program = subprocess.Popen([sys.executable, "-c", WATCHING],  # noqa: ASYNC220 (a user's program, polled)
                                   env=dict(os.environ, REDIS_URL=app.own_programs.url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await wait_until(pilot, lambda: "next: SET k 1" in panel_text(app))
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: "next: WATCH k" in panel_text(app))
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: "next: GET k" in panel_text(app))
            name = app.own_programs.gate.clients[0].name
            await wait_until(pilot, lambda: inspector.watchers.get(b"k") == [(name, False)])
            await wait_until(pilot, lambda: cells(table, "k")[1] == name)
            await type_command(pilot, app, "B", "SET k 2")
            await wait_until(pilot, lambda: inspector.watchers.get(b"k") == [(name, True)])
            assert cells(table, "k")[1] == f"{name} dirty"
            app.action_programs_free()
            await wait_until(pilot, lambda: program.poll() is not None, timeout=15)
            out, err = program.communicate()
            assert program.returncode == 0, err.decode()
            assert out == b"aborted\n"
            await wait_until(pilot, lambda: b"k" not in inspector.watchers)
            assert cells(table, "k")[1] == ""
        finally:
            if program.poll() is None:
                program.kill()
            program.communicate()
