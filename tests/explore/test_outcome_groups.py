"""A stream's consumer groups are part of an outcome: an entry left pending for a
consumer that crashed is another outcome than one acknowledged, although the stream's
entries are the same. Checked against the test's own brute force on each server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from brute import run_every_order

from playground.explore.explorer import explore
from playground.explore.report import render_json, render_text
from playground.scenario.loader import load_scenario

pytestmark = [pytest.mark.server]

LESSONS = Path(__file__).parent / "lessons"


def pending_of(r) -> tuple:
    """The server's own word: each pending entry of the group (id, consumer, deliveries),
    and the group's last-delivered id."""
    entries = r.xpending_range("jobs", "workers", "-", "+", 10)
    group, = r.xinfo_groups("jobs")
    return (tuple(sorted((e["message_id"].decode(), e["consumer"].decode(), e["times_delivered"]) for e in entries)),
            group["last-delivered-id"].decode())


async def test_a_job_left_pending_by_a_crashed_consumer_is_its_own_outcome(pg, private_server):
    lesson = load_scenario(LESSONS / "exactly-once-crash.toml")
    result = await explore(pg, lesson, reduce=False)
    part = lesson.parts[0]
    programs = {c: [list(map(bytes.decode, s.argv)) for s in part.steps if s.client == c] for c in lesson.clients}
    setup = [list(map(bytes.decode, argv)) for argv in part.setup]
    truth = run_every_order(private_server.socket_path, setup, programs, pending_of)
    # every schedule's groups, as the explorer compared them, are the server's own
    mine = {}
    for cls in result.classes:
        group, = cls.snapshot.keys["jobs"].groups
        mine[(tuple(group.pending), group.last_delivered)] = cls
    assert set(mine) == set(truth.values())
    assert (((("1-1", "a", 1),), "1-1")) in mine     # the job stays pending for A, who is gone
    assert ((), "1-1") in mine                        # B recovered it and acknowledged it
    # the entries alone are the same in every outcome: the groups are what splits them
    assert len({c.snapshot.keys["jobs"].shown for c in result.classes}) == 1
    assert len(result.classes) >= 2
    text = render_text(result)
    assert "jobs group workers: last delivered 1-1 (1 read); pending: 1-1 for a (delivered 1×)" in text
    assert "Every schedule ends the same" not in text
    data = json.loads(render_json(result))
    groups = [c["state"]["jobs"]["groups"][0] for c in data["classes"]]
    assert {"id": "1-1", "consumer": "a", "deliveries": 1} in [p for g in groups for p in g["pending"]]


async def test_the_groups_of_a_stream_with_clock_made_ids_compare_equal(pg, tmp_path):
    """An id the server made from the clock (`XADD *`) differs from run to run: a group's
    last-delivered id and pending ids are shown as `*` as the entries are, so two runs of
    one schedule are one outcome."""
    path = tmp_path / "clock-ids.toml"
    path.write_text('title = "t"\nlesson = "x"\nsetup = ["XGROUP CREATE jobs workers $ MKSTREAM"]\n'
                    '[[steps]]\nclient = "A"\ncommand = "XADD jobs * job charge"\n'
                    '[[steps]]\nclient = "B"\ncommand = "XREADGROUP GROUP workers b COUNT 1 STREAMS jobs >"\n')
    result = await explore(pg, load_scenario(path), reduce=False)
    pendings = {c.snapshot.keys["jobs"].groups[0].pending for c in result.classes}
    assert pendings == {(), (("*", "b", 1),)}     # B read before or after A added the job
    assert len(result.classes) == 2
