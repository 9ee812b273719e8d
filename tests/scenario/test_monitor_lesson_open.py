"""`open` on a lesson imported from a real MONITOR capture: the teacher steps it in the
app, every step's check holds, and the panes show what each service did."""

from __future__ import annotations

import asyncio

import pytest
from monitor_captures import MonitorCapture, lost_update
from pilot import log_text  # noqa: F401
from pilot import opened, press_and_wait  # noqa: F401

from playground.cli.main import main
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app

pytestmark = [pytest.mark.server, pytest.mark.tui, pytest.mark.slow]


async def test_an_imported_lesson_steps_in_the_app(server_binary, tmp_path, capsys):
    capture = MonitorCapture(server_binary, tmp_path / "captured")
    try:
        lost_update(capture, tmp_path / "capture.txt")
    finally:
        capture.close()
    lesson_path = tmp_path / "incident.toml"
    assert await asyncio.to_thread(main, ["import", "monitor", str(tmp_path / "capture.txt"), "--setup",
                                          "SET counter 10", "-o", str(lesson_path), "--server",
                                          server_binary.path]) == 0
    capsys.readouterr()
    lesson = load_scenario(lesson_path)
    app = make_app(server_binary.path, clients=lesson.clients, open_scenario=lesson)
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        for _ in lesson.steps:
            await press_and_wait(pilot, app, "space")
        stepper = app.scenario_run.stepper
        assert stepper.cursor == len(lesson.steps) == 6
        assert all(check.ok for result in stepper.results for check in result.checks)
        assert sum(len(result.checks) for result in stepper.results) == 6
        assert [line for line in log_text(app, "B") if line.startswith("B> ")] == [
            "B> GET counter", "B> SET counter 11", "B> EVAL $script1 1 visits"]
        assert [line for line in log_text(app, "svc-a") if line.startswith("svc-a> ")][:2] == [
            "svc-a> GET counter", "svc-a> SET counter 11"]
