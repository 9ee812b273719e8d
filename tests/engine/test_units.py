"""engine/units.py's one model of MULTI: each line's role in its client's transaction,
as the real server takes it (without a reply: a program's steps, a setup, are folded
before they run)."""

from __future__ import annotations

from playground.engine.units import UnitTracker, transaction_roles
from playground.resp.replies import Array, Err


def _lines(text: str) -> list[tuple[bytes, ...]]:
    return [tuple(w.encode() for w in line.split()) for line in text.strip().split("\n")]


LINES = _lines("""
EXEC
WATCH k
MULTI
SET k 1
MULTI
WATCH k
UNWATCH
DISCARD x
EXEC x
EXEC
DISCARD
GET k
MULTI
INCR k
DISCARD
""")


async def test_each_role_is_what_the_server_answers(a):
    roles = transaction_roles(LINES)
    assert [role for role, _ in roles] == ["no-multi", "watch", "multi", "queued", "nested", "refused", "queued",
                                          "queued", "exec", "no-multi", "no-multi", "command", "multi", "queued",
                                          "discard"]
    assert [open_ for _, open_ in roles] == [False, False] + [True] * 6 + [False] * 4 + [True, True, False]
    tracker = UnitTracker("A")
    for argv, (role, open_) in zip(LINES, roles, strict=True):
        reply = await a.execute(list(argv))
        tracker.note(argv, reply)
        if role in ("no-multi", "nested", "refused"):
            assert isinstance(reply, Err), (argv, reply)
        elif role == "queued":
            assert reply == b"QUEUED" or isinstance(reply, Err), (argv, reply)   # (DISCARD x: refused when queued)
        elif role == "exec":
            assert isinstance(reply, Err) and reply.code == "EXECABORT", reply      # EXEC x ends it, aborted
        else:
            assert not isinstance(reply, Err), (argv, reply)
        assert (tracker.open is not None) == open_, argv


async def test_a_wait_changes_nothing(a):
    roles = transaction_roles([(b"MULTI",), (), (b"GET", b"k"), None, (b"EXEC",)])
    assert roles == [("multi", True), (None, True), ("queued", True), (None, True), ("exec", False)]
    await a.execute([b"MULTI"])
    await a.execute([b"GET", b"k"])
    assert isinstance(await a.execute([b"EXEC"]), Array)
