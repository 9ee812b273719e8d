"""Lesson notes and the course: transcripts carry predictions and script sources,
JSON lines carry the part's keys on every step, `list` follows the course's order and
shows the user's recordings with how to narrate them."""

import os
import subprocess
import sys

import pytest

from playground.scenario.library import bundled_dir, course_order, load_all
from playground.scenario.model import ScenarioError
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.scenario.transcript import render_markdown, render_text

SEED_ORDER = ["lost-update", "incr-is-atomic", "multi-queues", "watch-abort", "pcall", "rate-limit-lua",
              "session-create", "refresh-double-spend"]  # the seed lesson's order


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env or {})))


async def _run(pg, sid):
    return await Runner(pg, record_touched=True).run(load_scenario(bundled_dir() / f"{sid}.toml"))


async def test_text_notes_carry_the_script_once_and_the_prediction(pg):
    result = await _run(pg, "pcall")
    text = render_text(result)
    assert text.count("script $three_writes:") == 1
    assert "     │ redis.call('LPUSH', KEYS[2], 'item')" in text.splitlines()
    lines = text.splitlines()
    question = next(i for i, line in enumerate(lines) if line.startswith("      ? "))
    answer = result.scenario.steps[0].predict.answer
    marked = [line for line in lines[question:] if line.startswith("      ▸ ")]
    assert marked and marked[0].startswith(f"      ▸ {answer}) ")
    assert any(line.startswith("      = ") for line in lines[question:])  # the explanation


async def test_markdown_notes_carry_the_script_and_the_prediction(pg):
    md = render_markdown(await _run(pg, "pcall"))
    assert md.count("```lua") == 2  # $three_writes and $handle, once each
    assert "redis.pcall('LPUSH', KEYS[1], 'item')" in md
    assert "**Predict:**" in md and "✓" in md


async def test_json_state_on_multi_and_queued_steps_shows_the_parts_keys(pg):
    result = await _run(pg, "watch-abort")
    multi = next(s for s in result.steps if s.step.display == "MULTI")
    assert multi.touched["balance"]["value"] == "200"  # not {}: the key B changed
    exec_ = next(s for s in result.steps if s.step.display == "EXEC")
    assert exec_.touched["balance"]["value"] == "200"  # the EXEC aborted: unchanged


def test_the_library_follows_the_seed_lessons_order():
    ids = [s.id for s in course_order(load_all())]
    assert [i for i in ids if i in SEED_ORDER] == SEED_ORDER
    assert all(s.order for s in load_all())  # every bundled scenario has its place


def test_order_must_be_a_place_in_the_course(tmp_path):
    path = tmp_path / "bad-order.toml"
    path.write_text('title = "t"\nlesson = "l"\norder = "first"\n[[steps]]\nclient = "A"\ncommand = "PING"\n')
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: order: its place in the course: a whole number from 1 to 9999"


def test_list_follows_the_course_and_shows_recordings_last(tmp_path):
    recordings = tmp_path / "scenarios"
    recordings.mkdir()
    (recordings / "aaa-my-race.toml").write_text(
        'title = "My race"\nlesson = "Recorded."\n[[steps]]\nclient = "A"\ncommand = "PING"\n')
    result = _cli("list", env={"REDIS_PLAYGROUND_STATE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    ids = [line.split()[0] for line in lines if line and not line.startswith("Your recordings")]
    assert ids[0] == "lost-update" and ids[-1] == "aaa-my-race"  # alphabetically it would be first
    hint = next(line for line in lines if line.startswith("Your recordings"))
    assert str(recordings) in hint and "narration" in hint and "check" in hint
    assert _cli("run", "aaa-my-race", "--server", "bundled",
                env={"REDIS_PLAYGROUND_STATE_DIR": str(tmp_path)}).returncode == 0  # found by id
