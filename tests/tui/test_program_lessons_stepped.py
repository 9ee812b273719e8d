"""A program lesson stepped in the app (Pilot, real server): each Space lets one program
command through, the panes show what the programs sent, rewinding re-runs them, and no
program outlives the app."""

import os

import pytest

from playground.tui.app import make_app
from pilot import log_text
from pilot import opened, panel_text, press_and_wait, scenario
from servers import shared

pytestmark = pytest.mark.usefixtures("quick_autoplay")

pytest.importorskip("redis")


async def test_stepping_a_program_lesson(server_binary):
    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update-python"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(4):
            await press_and_wait(pilot, app, "space")
        assert log_text(app, "A") == ['A> GET counter', '"4"', '  ✓ reply', 'A> SET counter 5', 'OK', '  ✓ reply']
        assert log_text(app, "B")[-3:] == ['B> SET counter 5', 'OK', '  ✓ reply · state counter']
        await press_and_wait(pilot, app, "p")  # back one step: the programs run again from the start
        assert "step 4 of 4" in panel_text(app)
        assert log_text(app, "B") == ['B> GET counter', '"4"', '  ✓ reply']
        programs = app.scenario_run.stepper.runner.programs.running
        pids = [p.process.pid for p in programs.values()]
        assert len(pids) == 2
    for pid in pids:  # the app has quit (this process goes on): its programs are gone
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_stepping_a_lesson_of_programs_without_steps(server_binary, tmp_path):
    """Its moves are the programs' commands in `run`'s order (A to its end, then B), one
    per Space; rewinding runs the programs again."""
    from playground.scenario.loader import load_scenario

    (tmp_path / "p.py").write_text('import os, redis\nr = redis.Redis.from_url(os.environ["REDIS_URL"])\n'
                                   'r.set("counter", int(r.get("counter")) + 1)\n')
    (tmp_path / "lesson.toml").write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 5"]\n'
                                          '[programs]\nA = ["python", "p.py"]\nB = ["python", "p.py"]\n')
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(tmp_path / "lesson.toml"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        assert len(app.scenario_run.stepper.flat) == 4
        for _ in range(3):
            await press_and_wait(pilot, app, "space")
        assert log_text(app, "A") == ['A> GET counter', '"5"', 'A> SET counter 6', 'OK']
        assert log_text(app, "B") == ['B> GET counter', '"6"']
        assert "step 4 of 4" in panel_text(app)
        await press_and_wait(pilot, app, "p")  # back one step: the programs run again from the start
        assert log_text(app, "B") == []


async def test_a_typed_watch_beside_the_program_of_the_same_name_is_two_badges_told_apart(server_binary):
    """In a program lesson pane A takes typed lines too: A's program and a typed A both
    WATCHing counter showed "A A". The program's badge is its connection's name then."""
    from playground.tui.widgets.key_inspector import KeyInspector
    from pilot import type_command, wait_until

    app = make_app(server=shared(server_binary), open_scenario=scenario("watch-retry-python"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")   # A's program: WATCH counter
        inspector = app.mode_screen.query_one(KeyInspector)
        await wait_until(pilot, lambda: inspector.watchers.get(b"counter") == [("A", False)])
        await type_command(pilot, app, "A", "WATCH counter")
        both = [("A", False), ("A#1", False)]
        await wait_until(pilot, lambda: sorted(inspector.watchers.get(b"counter", [])) == both)
