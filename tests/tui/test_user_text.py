"""Text that others wrote is shown as text, on real servers: a learner's name, a lesson
sent through the class, a key's name and value, a reply, a scenario's title, narration and
choices, a notice. Markup in it (`[/]` would crash the app, `[@click=app.quit]` would quit
it when clicked, `[bold]` would restyle) is shown literally, and an escape sequence
(`\\x1b[2J` clears the terminal) is written out, never sent to the terminal."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from textual.app import App

from playground.classroom import class_server
from playground.classroom.protocol import ClassLink, Learner
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.class_mode.class_screens import ClassOverviewScreen
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.widgets.key_table import KeyTable
from playground.tui.class_mode.class_member import ClassMember
from playground.tui.class_mode.class_mode import ClassMode
from playground.tui.dialogs.scenario_dialogs import PredictScreen
from pilot import gate_opened, log_text, started, type_command, wait_until
from servers import shared
from pilot import screen

ESC = "\x1b"
CLEAR = r"\x1b[2J"  # how an escape sequence is shown: written out


async def shows(pilot, app, *texts: str) -> str:
    """Waits until the screen shows each of `texts` literally; no escape character ever."""
    try:
        await wait_until(pilot, lambda: all(t in screen(app) for t in texts))
    except AssertionError:
        missing = [t for t in texts if t not in screen(app)]
        raise AssertionError(f"not shown literally: {missing}\n{screen(app)}") from None
    drawn = screen(app)
    assert ESC not in drawn and "\r" not in drawn
    return drawn


async def test_learner_names_and_the_lesson_are_text_in_the_class_overview(private_server):
    address = class_server.address(class_server.private_url(private_server))
    learners = ClassLink(address)
    epoch = await learners.open_lesson("[bold]lesson[/]", challenge=False)
    names = {"a1": "[/]", "b2": "[@click=app.quit]Eve[/]", "c3": "[bold]Bo",
             "d4": "[@click=screen.toggle_mode]Cy[/]", "e5": f"Di{ESC}[2J\rx"}
    for learner_id, name in names.items():
        await learners.progress(Learner(learner_id, name, epoch, "[bold]lesson[/]", step=1))

    class Host(App):
        scenario_run = None   # (class_mode.ClassHost: no scenario open in this tab)

    app = Host()
    async with app.run_test(size=(160, 30)) as pilot:
        classroom = ClassMember(app, ClassMode(app), ClassLink(address), teacher=True)
        app.run_worker(classroom.run(), group="classroom", exit_on_error=False)
        await app.push_screen(ClassOverviewScreen(classroom))
        await shows(pilot, app, "[/]", "[@click=app.quit]Eve[/]", "[bold]Bo", "[@click=screen.toggle_mode]Cy[/]",
                    f"Di{CLEAR}\\rx", "Lesson: [bold]lesson[/]")
        assert app.is_running
        await classroom.close()
    await learners.close()


@pytest.mark.slow
async def test_keys_values_replies_and_notices_are_text(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(200, 45), notifications=True) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", r'SET "[@click=app.quit]k[/]" "[bold]v\x1b[2J"')
        await type_command(pilot, app, "A", r'GET "[@click=app.quit]k[/]"')
        await type_command(pilot, app, "B", r"""EVAL "return redis.error_reply('[/] no\x1b[2J')" 0""")
        await type_command(pilot, app, "B", r"""EVAL "return redis.status_reply('[bold]ok\x1b]0;title\x07')" 0""")
        await shows(pilot, app, '"[bold]v\\x1b[2J"',  # A's reply, as redis-cli quotes it
                    # B's replies, which redis-cli prints raw: a colour (SGR, as in redis-cli's Lua
                    # debugger) would be kept, another CSI sequence dropped, anything else written out
                    "(error) [/] no", r"[bold]ok\x1b]0;title",  # (the bell: dropped, as Rich drops it)
                    "[@click=app.quit]k[/]")  # the key inspector's name
        assert "(error) [/] no" in log_text(app, "B")  # the CSI sequence is not drawn at all
        app.notify(f"[/] [@click=app.quit]n[/] {ESC}[2J")
        app.mode_screen.notify("[bold]widget's[/]")  # a widget's notice says markup=True: still text
        await shows(pilot, app, f"[/] [@click=app.quit]n[/] {CLEAR}", "[bold]widget's[/]")
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        table.focus()
        await pilot.press("enter")  # the key's details: its name is the modal's title
        await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
        await shows(pilot, app, 'key "[@click=app.quit]k[/]"')
        assert app.is_running


SCENARIO = r'''title = "[bold]Title[/] [@click=app.quit]q[/]"
lesson = "Lesson [/] \u001b[2J end"
[[steps]]
client = "A"
command = "SET k v"
narration = "Said [@click=app.quit]n[/] [bold]b \u001b[2J"
[steps.predict]
question = "Asked [/]?"
choices = ["[bold]one", "[@click=app.quit]two[/]"]
answer = 1
explain = "Because [/]."
'''


async def test_a_scenarios_words_are_text(server_binary, tmp_path):
    path = tmp_path / "markup.toml"
    path.write_text(SCENARIO)
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(path))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None)
        app.scenario_run.speed_index = 0  # no typing animation
        await shows(pilot, app, f"Lesson [/] {CLEAR} end")
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await shows(pilot, app, "Asked [/]?", "1. [bold]one", "2. [@click=app.quit]two[/]")
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, PredictScreen))
        await shows(pilot, app, f"Said [@click=app.quit]n[/] [bold]b {CLEAR}")
        await pilot.press("f7")  # the picker: the scenario's title
        await shows(pilot, app, "[bold]Title[/] [@click=app.quit]q[/]")
        assert app.is_running


HOSTILE_PROGRAM = r"""
import ctypes, os, redis
ctypes.CDLL(None).prctl(15, b"[/]\x1b[2J")  # PR_SET_NAME: the name the programs panel shows
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.set("[@click=app.quit]p[/]", "v")
"""


async def test_a_programs_name_and_commands_are_text_in_the_programs_panel(server_binary):
    import os
    import subprocess
    import sys

    pytest.importorskip("redis")
    from playground.tui.widgets.own_programs import ProgramsPanel

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 40)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        program = subprocess.Popen([sys.executable, "-c", HOSTILE_PROGRAM],  # noqa: ASYNC220 (a user's program, polled)
                                   env=dict(os.environ, REDIS_URL=app.own_programs.url),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await wait_until(pilot, lambda: "[@click" in str(app.mode_screen.query_one(ProgramsPanel).render()))
            await shows(pilot, app, f"[/]{CLEAR}#1", "next: SET [@click=app.quit]p[/] v")
            assert app.is_running
        finally:
            program.kill()
            program.communicate()


async def test_what_a_server_that_fails_to_start_says_is_text():
    # a short path of a fixed length (not tmp_path, whose length differs under xdist's workers):
    # the banner quotes it, and where the line wraps must not depend on it
    folder = Path(tempfile.mkdtemp(prefix="rp-fake-"))
    try:
        await _fails_to_start(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _fails_to_start(folder) -> None:
    fake = folder / "redis-server"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Redis server v=7.0.0 sha=0'; exit 0; fi\n"
                    "printf '[/] [bold]FATAL \\033[2J at [@click=app.quit]x[/]\\n' >&2\nexit 1\n")
    fake.chmod(0o755)
    app = make_app(str(fake))
    async with app.run_test(size=(160, 30)) as pilot:
        await shows(pilot, app, f"[/] [bold]FATAL {CLEAR} at", "[@click=app.quit]x[/]")  # (wrapped)
        assert app.is_running
