"""Replies that hold readings of the clock (an idle time, a TTL, OBJECT FREQ) are
named and compared without them: milliseconds never split outcomes, and whatever else
differs still does. The server's own tips say which commands (a subcommand's own:
OBJECT IDLETIME); checked against the test's own brute force on each server."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from brute import interleavings, raw

from playground.engine.catalogue import CLOCK_MASK, clock_free
from playground.explore.explorer import explore
from playground.explore.report import render_text
from playground.resp.replies import Array, Bulk, Int, Map
from playground.scenario.loader import load_scenario

LESSONS = Path(__file__).parent / "lessons"


def test_clock_free_masks_only_the_clock():
    pending = Array([Array([Bulk(b"1-1"), Bulk(b"a"), Int(1234), Int(2)])])
    assert clock_free([b"XPENDING", b"s", b"g", b"-", b"+", b"10"], pending) == \
        Array([Array([Bulk(b"1-1"), Bulk(b"a"), CLOCK_MASK, Int(2)])])            # the idle, not the count
    assert clock_free([b"XPENDING", b"s", b"g"], Array([Int(1), Bulk(b"1-1")])) == Array([Int(1), Bulk(b"1-1")])
    assert clock_free([b"PTTL", b"k"], Int(49876)) == CLOCK_MASK
    assert clock_free([b"PTTL", b"k"], Int(-2)) == Int(-2)                      # absent: that says something
    consumers = Array([Array([Bulk(b"name"), Bulk(b"a"), Bulk(b"pending"), Int(1), Bulk(b"idle"), Int(7),
                              Bulk(b"inactive"), Int(9)])])
    assert clock_free([b"XINFO", b"CONSUMERS", b"s", b"g"], consumers) == Array([Array([
        Bulk(b"name"), Bulk(b"a"), Bulk(b"pending"), Int(1), Bulk(b"idle"), CLOCK_MASK, Bulk(b"inactive"),
        CLOCK_MASK])])
    resp3 = Map([(Bulk(b"name"), Bulk(b"a")), (Bulk(b"idle"), Int(7))])
    assert clock_free([b"XINFO", b"CONSUMERS", b"s", b"g"], Array([resp3])) == \
        Array([Map([(Bulk(b"name"), Bulk(b"a")), (Bulk(b"idle"), CLOCK_MASK)])])
    full = Array([Bulk(b"groups"), Array([Array([Bulk(b"name"), Bulk(b"g"), Bulk(b"pending"),
                                                 Array([Array([Bulk(b"1-1"), Bulk(b"a"), Int(17), Int(1)])])])])])
    masked = clock_free([b"XINFO", b"STREAM", b"s", b"FULL"], full)
    assert masked[1][0][3] == Array([Array([Bulk(b"1-1"), Bulk(b"a"), CLOCK_MASK, Int(1)])])


@pytest.mark.server
async def test_the_server_tips_say_which_replies_hold_the_clock(pg):
    catalogue = pg.catalogue
    await catalogue.learn([b"object", b"xpending", b"xinfo", b"ttl", b"pttl", b"time", b"spop", b"get"])
    for argv in ([b"OBJECT", b"IDLETIME", b"k"], [b"OBJECT", b"FREQ", b"k"], [b"XPENDING", b"s", b"g", b"-", b"+",
                                                                              b"9"],
                 [b"XINFO", b"CONSUMERS", b"s", b"g"], [b"XINFO", b"STREAM", b"s", b"FULL"], [b"PTTL", b"k"],
                 [b"TTL", b"k"]):
        assert catalogue.clock_output(argv), argv
    for argv in ([b"TIME"], [b"SPOP", b"s"], [b"GET", b"k"], [b"XINFO", b"GROUPS", b"s"], [b"OBJECT", b"ENCODING",
                                                                                           b"k"]):
        assert not catalogue.clock_output(argv), argv
    # a subcommand's own tips: OBJECT's are none, OBJECT IDLETIME's say its output differs from run to run
    assert catalogue.nondeterministic([b"OBJECT", b"IDLETIME", b"k"]) == b"nondeterministic_output"


def timeless(argv: list[str], reply):
    """B's reply to `argv` in the test's own terms, without the clock: XPENDING's (id,
    consumer, deliveries), OBJECT IDLETIME nothing, PTTL whether it is positive, XINFO
    CONSUMERS each consumer's name and pending count."""
    name = argv[0].upper()
    if name == "XPENDING":
        return tuple((e[0], e[1], e[3]) for e in reply)
    if name == "OBJECT":
        return None
    if name == "PTTL":
        return reply > 0
    if name == "XINFO":   # (redis-py makes each consumer a dict even with no callbacks)
        fields = [c if isinstance(c, dict) else dict(zip(c[::2], c[1::2], strict=True)) for c in reply]
        return tuple((c[b"name"], c[b"pending"]) for c in fields)
    return reply


@pytest.mark.server
async def test_idle_times_never_split_outcomes(pg, private_server):
    lesson = load_scenario(LESSONS / "idle-times.toml")
    result = await explore(pg, lesson, reduce=False)
    # the brute force: in every order, what B's steps got from the server, in the test's own terms
    part = lesson.parts[0]
    programs = {c: [list(map(bytes.decode, s.argv)) for s in part.steps if s.client == c] for c in lesson.clients}
    setup = [list(map(bytes.decode, argv)) for argv in part.setup]
    admin = redis.Redis(unix_socket_path=private_server.socket_path, decode_responses=True)
    brute = set()
    try:
        for order in interleavings(programs):
            admin.flushall()
            for argv in setup:
                admin.execute_command(*argv)
            conn = raw(private_server.socket_path)
            replies = [(client, argv, conn.execute_command(*argv)) for client, argv in order]
            seen = tuple(timeless(argv, reply) for client, argv, reply in replies if client == "B")
            conn.close()
            brute.add(seen)
    finally:
        admin.flushall()
        admin.close()
    assert len(result.classes) == len(brute)
    assert result.clock and all(step.split()[0] in ("B1", "B2", "B3", "B4") for step in result.clock)
    assert not result.random
    text = render_text(result)
    assert "By the clock:" in text and "(integer) …" in text and "By chance too" not in text
