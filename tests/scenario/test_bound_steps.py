"""`bound = true`: a step that runs right after the one before it (TTL lessons), in the
loader, the TUI stepper (one Space), the challenge (it moves with the step before it) and
`explore` (no other client's step between them). On real servers."""

import pytest

from playground.errors import ScenarioError
from playground.explore.explorer import explore
from playground.scenario.loader import load_scenario
from playground.scenario.challenge import Challenge
from playground.tui.app import make_app
from pilot import log_text, started, wait_until
from pilot import panel_text, press_and_wait
from servers import shared

LOCK = '''
title = "bound"
lesson = "A lock with a short TTL, tried by B at once."

[challenge]
goal = "B is refused."

[challenge.state]
lock = "a"

[[steps]]
client = "A"
command = "SET lock a NX PX 2000"
reply = "OK"

[[steps]]
client = "B"
command = "SET lock b NX PX 2000"
bound = true
reply = "(nil)"

[[steps]]
client = "A"
command = "GET lock"
'''


def write(tmp_path, text, name="bound.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_loader_reads_bound_and_refuses_it_where_it_means_nothing(tmp_path):
    steps = load_scenario(write(tmp_path, LOCK)).steps
    assert [s.bound for s in steps] == [False, True, False]
    first = LOCK.replace('reply = "OK"', 'reply = "OK"\nbound = true')
    with pytest.raises(ScenarioError, match="no step before it"):
        load_scenario(write(tmp_path, first))
    asked = LOCK.replace('bound = true', 'bound = true\npause = true')
    with pytest.raises(ScenarioError, match="cannot have pause"):
        load_scenario(write(tmp_path, asked))


async def test_space_runs_the_bound_step_with_the_one_before(server_binary, tmp_path):
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(write(tmp_path, LOCK)))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app))
        app.scenario_run.speed_index = 0
        await press_and_wait(pilot, app, "space")
        assert app.scenario_run.stepper.cursor == 2       # one Space: A's step and B's bound step
        assert log_text(app, "B")[:2] == ["B> SET lock b NX PX 2000", "(nil)"]
        assert all(c.ok for r in app.scenario_run.stepper.results for c in r.checks)
        await press_and_wait(pilot, app, "space", "p")  # a rewind never stops between them
        assert app.scenario_run.stepper.cursor == 2
        await press_and_wait(pilot, app, "p")
        assert app.scenario_run.stepper.cursor == 0


async def test_a_bound_step_moves_with_the_one_before_in_a_challenge(pg, tmp_path):
    challenge = Challenge(pg, load_scenario(write(tmp_path, LOCK)))
    await challenge.reset()
    assert challenge.bound_to("B") == "A"
    assert await challenge.move("B") is None and challenge.position("B") == 0   # never on its own
    await challenge.move("A")
    assert challenge.position("B") == 1 and challenge.moves == ["A"]
    assert challenge.bound_results[0].reply.strip() == "(nil)"
    assert challenge.next_for("B") is None
    await challenge.move("A")
    assert await challenge.won() is True
    await challenge.undo()
    assert challenge.position("A") == 1 and challenge.position("B") == 1


PAIR = '''
title = "pair"
lesson = "A writes and reads back at once; B writes."

[[steps]]
client = "A"
command = "SET k a"

[[steps]]
client = "A"
command = "GET k"
bound = true

[[steps]]
client = "B"
command = "SET k b"
'''


@pytest.mark.parametrize("reduce", [True, False])
async def test_explore_never_splits_a_bound_pair(pg, tmp_path, reduce):
    result = await explore(pg, load_scenario(write(tmp_path, PAIR)), reduce=reduce, by="replies")
    assert result.total == 2                  # A A B and B A A; never A B A
    schedules = [run.schedule for cls in result.classes for run in [cls.first_run]]
    assert ("A", "B", "A") not in schedules
    assert result.covered == 2
    seen = {reply for cls in result.classes for c, replies in cls.first_run.replies if c == "A"
            for reply in replies}
    assert not any("b" in r for r in seen)    # A's GET never sees B's write


async def test_the_challenge_screen_says_a_bound_step_waits_for_its_partner(server_binary, tmp_path):
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(write(tmp_path, LOCK)), challenge=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Challenge:" in panel_text(app))
        app.scenario_run.speed_index = 0
        await press_and_wait(pilot, app, "b")
        assert "bound to A's" in panel_text(app) and app.scenario_run.challenge.moves == []
        await press_and_wait(pilot, app, "a")
        assert log_text(app, "B")[:2] == ["B> SET lock b NX PX 2000", "(nil)"]
