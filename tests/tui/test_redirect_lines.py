"""A cluster's `-> Redirected to slot [N] located at ...` lines in a stepped lesson's panes
and in `run`'s transcripts, as free play prints them, apart from the reply (its checks
still pass); transcripts name the node (no random port). On real servers."""

import pytest
import json
import re

from playground.engine.playground import Playground
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.scenario.transcript import json_step, render_markdown, render_text
from playground.server import make_server
from playground.server.topology import Topology
from playground.tui.app import make_app
from pilot import log_text, started, wait_until
from pilot import panel_text, press_and_wait
from paths import SCENARIOS as SCENARIOS_DIR

SCENARIOS = SCENARIOS_DIR
LINE = re.compile(r"^-> Redirected to slot \[\d+\] located at node-\d$")


@pytest.mark.slow
async def test_run_shows_the_redirects_naming_the_node_the_same_every_run(server_binary):
    scenario = load_scenario(SCENARIOS / "cluster-watch.toml")
    transcripts = []
    for _ in range(2):   # each on a cluster of its own: other ports, the same transcript
        async with Playground(server=Topology(server_binary, "cluster", 0), clients=("A", "B")) as pg:
            result = await Runner(pg).run(scenario)
        assert result.ok, [(s.step.number, c.what, c.detail) for s, c in result.failed_checks]
        redirected = [s for s in result.steps if s.redirects]
        assert redirected and all(LINE.match(r.stable_line) for s in redirected for r in s.redirects)
        assert not any("Redirected" in (s.reply or "") for s in result.steps)  # not part of the reply
        assert all(re.match(r"127\.0\.0\.1:\d+$", r.address) for s in redirected for r in s.redirects)
        text = render_text(result)
        assert "-> Redirected to slot" in text and "127.0.0.1" not in text
        assert "-> Redirected to slot" in render_markdown(result)
        line = json.loads(json_step(result.server, scenario, redirected[0]))
        assert line["redirects"] and LINE.match(line["redirects"][0])
        transcripts.append(re.sub(r"on .*\n", "", text, count=1))
    assert transcripts[0] == transcripts[1]


@pytest.mark.slow
async def test_a_stepped_lesson_pane_prints_the_redirect_as_free_play_does(server_binary):
    server = make_server(server_binary, "cluster", None).spawn()   # as `open` starts it
    try:
        await _stepped_lesson(server)
    finally:
        server.stop()


async def _stepped_lesson(server):
    app = make_app(open_scenario=load_scenario(SCENARIOS / "cluster-watch.toml"), server=server)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app), timeout=60)
        app.scenario_run.speed_index = 0
        await press_and_wait(pilot, app, "space")                 # WATCH account:alice
        app.scenario_run.answers[1] = 2                                # (the prediction of step 2)
        await press_and_wait(pilot, app, "space")                 # GET account:bob: redirected
        lines = log_text(app, "A")
        at = lines.index("A> GET account:bob")
        assert re.match(r"-> Redirected to slot \[\d+\] located at 127\.0\.0\.1:\d+$", lines[at + 1])
        assert lines[at + 2] == '"50"'
        assert all(c.ok for c in app.scenario_run.stepper.results[-1].checks)
