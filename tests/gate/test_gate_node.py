"""The gate is language-agnostic: the lost update as two Node.js programs with ioredis, on
both real servers. Where node or ioredis is missing the lesson must be skipped with the
reason (checked), and so is this test; no test installs anything."""

from __future__ import annotations

import pytest

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner

from node_programs import ioredis_missing

LESSON = bundled_dir() / "lost-update-node.toml"


async def test_node_lesson_with_ioredis(pg):
    missing = ioredis_missing()
    result = await Runner(pg).run(load_scenario(LESSON))
    if missing:
        assert result.skipped and result.skipped.startswith("needs node -e require.resolve('ioredis')")
        assert not result.steps
        pytest.skip(missing)
    assert result.ok, (result.error, result.failed_checks)
    assert [s.command for s in result.steps] == ["get counter", "get counter", "set counter 5", "set counter 5"]
