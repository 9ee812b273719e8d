"""A subscriber's frames are its replies: its SUBSCRIBE's confirmation and each message
another client published after it, compared in `--by replies` and drawn in the
witness's lanes. Checked against the test's own brute force (redis-py's PubSub, a PING
of its own after the last step so that every message is in) on each server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import redis
from brute import interleavings

from playground.explore.explorer import explore
from playground.explore.report import render_text
from playground.scenario.loader import load_scenario

pytestmark = [pytest.mark.server]

LESSONS = Path(__file__).parent / "lessons"


def heard(socket_path: str, order) -> tuple:
    """What A hears in this order of A's SUBSCRIBE and B's PUBLISHes: the channel's
    messages' data, in order, and each PUBLISH's count."""
    r = redis.Redis(unix_socket_path=socket_path, decode_responses=True)
    p = r.pubsub()
    counts = []
    try:
        for client, argv in order:
            if client == "A":
                p.subscribe(argv[1])
            else:
                counts.append(r.publish(argv[1], argv[2]))
        if not p.subscribed:
            return (), tuple(counts)
        p.ping()   # answered after every message sent before it
        data = []
        while (m := p.get_message(timeout=5)) is not None and m["type"] in ("subscribe", "message"):
            if m["type"] == "message":
                data.append(m["data"])
        return tuple(data), tuple(counts)
    finally:
        p.close()
        r.close()


async def test_a_subscribers_messages_are_its_replies(pg, private_server):
    lesson = load_scenario(LESSONS / "subscriber-news.toml")
    part = lesson.parts[0]
    programs = {c: [list(map(bytes.decode, s.argv)) for s in part.steps if s.client == c] for c in lesson.clients}
    # (first: after the exploration the playground's A is still subscribed, and would count)
    truth = {heard(private_server.socket_path, order) for order in interleavings(programs)}
    result = await explore(pg, lesson, reduce=False)
    mine = set()
    for cls in result.classes:
        replies = dict(cls.first_run.replies)
        a = replies["A"]
        assert a[0] == '1) "subscribe" 2) "news" 3) (integer) 1'     # never blank
        messages = tuple(re.fullmatch(r'1\) "message" 2\) "news" 3\) "(.*)"', m).group(1) for m in a[1:])
        counts = tuple(int(r.split()[1]) for r in replies["B"])
        mine.add((messages, counts))
    assert mine == truth
    assert len(result.classes) == 3
    text = render_text(result)
    assert "A saw: -" not in text
    # the lanes: A's SUBSCRIBE with its confirmation, and each message A receives after the PUBLISH
    first = next(c for c in result.classes if c.witness.label == "A1 B1 B2")
    rows = [(row.client, row.lines[0], row.reply) for row in first.witness.rows]
    assert rows == [("A", "A1  SUBSCRIBE news", '1) "subscribe" 2) "news" 3) (integer) 1'),
                    ("B", "B1  PUBLISH news hello", "(integer) 1"),
                    ("A", "A receives", '1) "message" 2) "news" 3) "hello"'),
                    ("B", "B2  PUBLISH news again", "(integer) 1"),
                    ("A", "A receives", '1) "message" 2) "news" 3) "again"')]
