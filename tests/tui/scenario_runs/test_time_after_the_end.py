"""Time after a lesson's last step runs again (issue 44): set-nx-lock's lock "expires by
itself", so after the end its TTL counts down on the server and on the screen, and a typed
PTTL never goes up; while the lesson waits between steps, a typed TTL says it is held."""

import pytest
from commands import send
from pilot import log_text, type_command, wait_until
from pilot import opened, panel_text, press_and_wait, scenario

from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.key_table import KeyTable

pytestmark = [pytest.mark.server, pytest.mark.tui]

TWO_STEPS = """
title = "A TTL between two steps"
lesson = "x"

[[steps]]
client = "A"
command = "SET k v EX 40"
reply = "OK"

[[steps]]
client = "B"
command = "GET k"
reply = '"v"'
"""


async def test_after_the_last_step_the_lock_counts_down(server_binary):
    app = make_app(server_binary.path, open_scenario=scenario("set-nx-lock"))
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")    # both steps (bound): the lesson is done
        assert app.scenario_run.stepper.finished
        clock = app.scenario_run.source.runner.clock
        assert await clock.holding() == set()        # nothing held any more: the wall clock runs
        assert "time runs again: TTLs count down" in panel_text(app)
        first = await send(app.executor, "A", [b"PEXPIRETIME", b"lock:job123"], quiet=True)
        await type_command(pilot, app, "A", "PTTL lock:job123")
        await type_command(pilot, app, "A", "PTTL lock:job123")
        typed = [int(line.split()[1]) for line in log_text(app, "A") if line.startswith("(integer)")]
        assert len(typed) == 2 and typed[1] <= typed[0] <= 30_000, typed
        assert not any("stands still" in line for line in log_text(app, "A"))
        # the server's absolute expiry stayed where the step left it: nobody set it back
        assert await send(app.executor, "A", [b"PEXPIRETIME", b"lock:job123"], quiet=True) == first
        inspector = app.mode_screen.query_one(KeyInspector)
        inspector.refresh_keys()
        await wait_until(pilot, lambda: inspector.snapshot is not None and inspector.snapshot.keys)
        key = inspector.snapshot.keys[0]
        assert inspector.held_ttl(key.name, key.read_at) is None  # shown as the server counts it
        shown = float(str(inspector.query_one(KeyTable).row(0)[2]).rstrip("s"))
        assert shown <= typed[1] / 1000 + 0.1


async def test_a_typed_ttl_between_steps_says_it_is_held(server_binary, tmp_path):
    path = tmp_path / "two-steps.toml"
    path.write_text(TWO_STEPS)
    app = make_app(server_binary.path, open_scenario=load_scenario(path), lang="zh")
    async with app.run_test(size=(120, 35)) as pilot:
        await opened_zh(pilot, app)
        await press_and_wait(pilot, app, "space")
        clock = app.scenario_run.source.runner.clock
        assert await clock.holding() == {b"k"}
        held = clock.held_ttl(b"k")
        await type_command(pilot, app, "B", "TTL k")
        note = [line for line in log_text(app, "B") if "课程时间在两步之间是停住的" in line]
        assert note and f"{held / 1000:.1f}" in note[0], log_text(app, "B")
        app.mode_screen.narration.focus()
        await press_and_wait(pilot, app, "space")    # the last step: the hold ends
        assert await clock.holding() == set()
        await type_command(pilot, app, "B", "TTL k")
        assert sum("课程时间" in line for line in log_text(app, "B")) == 1  # said once, while it was held


async def opened_zh(pilot, app):
    from pilot import started

    await started(pilot, app)
    await wait_until(pilot, lambda: app.scenario_run is not None and "Space" in panel_text(app))
    app.scenario_run.speed_index = 0
