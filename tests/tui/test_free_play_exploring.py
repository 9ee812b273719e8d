"""Free play's exploration while it runs (Pilot, real servers, real redis-py programs
started by hand at the gate): it says what it explores (every program, by its name) and
how many orders it runs before the first one, its progress bar moves as schedules run,
and Esc (or Ctrl+C) cancels it: it says so, and the programs it ran again and its private
server are gone (looked for in /proc)."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap

import pytest
from textual.widgets import ProgressBar, Static

from playground.server.children import PROGRAM_MARK, proc_stat
from playground.tui.app import make_app
from playground.tui.dialogs.exploring_screen import ExploringScreen
from pilot import gate_opened, hear_notices, notices, started, wait_until
from servers import shared

pytest.importorskip("redis")
pytestmark = [pytest.mark.slow]

# two commands each way, three times: 6 commands a program, 924 orders of two programs' commands
# (many left, with programs run again among them, when the first is done). Run
# again by the exploration (REDIS_PLAYGROUND_RERUN) once the test has made the file "hold", a
# program says so ("held") and waits at its end for a file that never comes: the key is pressed
# while the exploration runs, however fast the machine (it once ended first).
PROGRAM = '''
import os, pathlib, time, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
for _ in range(3):
    value = int(r.get("counter") or 0)
    r.set("counter", value + 1)
if os.environ.get("REDIS_PLAYGROUND_RERUN") and pathlib.Path("hold").exists():
    pathlib.Path("held").touch()
    while not pathlib.Path("go").exists():
        time.sleep(0.01)
'''


def ours() -> set[int]:
    """This process's children still running, and every process running a program of
    this process (the mark the app puts in a program's environment: gate/programs.py)."""
    me, found = os.getpid(), set()
    mark = f"\0{PROGRAM_MARK}={me}.".encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = proc_stat(int(name))
        if fields is None or fields[0] in (b"Z", b"X"):
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                marked = mark in b"\0" + f.read()
        except OSError:
            marked = False
        if marked or fields[1] == b"%d" % me:
            found.add(int(name))
    return found


def screen_text(screen) -> str:
    return "\n".join(str(s.render()) for s in screen.query(Static))


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_exploring_shows_its_plan_and_progress_and_esc_ends_it_with_everything_it_started(
        server_binary, tmp_path, monkeypatch, key):
    hear_notices(monkeypatch)
    (tmp_path / "p.py").write_text(textwrap.dedent(PROGRAM))
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        gate = app.own_programs.gate
        gate.run_free()   # (as Ctrl+P "Programs run free" does: no Ctrl+N for each command)
        for _ in range(2):   # (one after the other: the order they ran in is C's six, then D's)
            process = await asyncio.create_subprocess_exec(
                sys.executable, "p.py", cwd=tmp_path, env=dict(os.environ, REDIS_URL=app.own_programs.url),
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await asyncio.wait_for(process.communicate(), 60)
            assert process.returncode == 0, err.decode()
        before = ours()

        app.action_explore_typed()
        await wait_until(pilot, lambda: isinstance(app.screen, ExploringScreen), timeout=30)
        screen = app.screen
        shown = screen_text(screen)
        names = [client.name for client in gate.clients]
        assert f"C = {names[0]}" in shown and f"D = {names[1]}" in shown, shown   # both programs, by name
        bar = screen.query_one(ProgressBar)
        await wait_until(pilot, lambda: screen.told is not None and bar.progress >= 1, timeout=60)
        assert "About 924 orders to run" in screen_text(screen) and bar.total == 924
        assert "of 924 orders run" in screen_text(screen)
        assert ours() - before   # the exploration's own server, and a program of its running or between runs

        (tmp_path / "hold").touch()   # the next program it runs again waits at its end
        await wait_until(pilot, lambda: (tmp_path / "held").exists(), timeout=60)
        await pilot.press(key)
        await wait_until(pilot, lambda: not isinstance(app.screen, ExploringScreen), timeout=30)
        assert screen.told.run < 924   # (cancelled, not done)
        assert any("Exploration cancelled" in m for m in notices(app)), notices(app)
        assert ours() <= before   # its server and every program it ran again are gone
