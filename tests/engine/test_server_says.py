"""Notes, "changed by" and WATCH flags from what the server did, not from a command's
name (engine/changes.py: the private server's key events), on both servers (issue 23)."""

from playground.engine import events as ev
from playground.engine.executor import Executor

from why_lines import lines, whys

READ_ONLY_SCRIPT = "EVAL \"return redis.call('GET', KEYS[1])\" 1 plain"
WRITES_THEN_FAILS = "EVAL \"redis.call('SET', KEYS[1], 'x') return redis.call('LPUSH', KEYS[1], 1)\" 1 s"
UNDECLARED_THEN_FAILS = "EVAL \"redis.call('SET', 'hidden', 'x') return redis.call('LPUSH', 'hidden', 1)\" 0"


def recording(pg, lang="en"):
    seen = []
    return Executor(pg, seen.append, attribute=True, explain=lang), seen


async def test_a_read_only_script_writes_nothing(pg):
    ex, seen = recording(pg)
    await lines(ex, "A> SET plain 1", "A> GET plain", f"B> {READ_ONLY_SCRIPT}", "A> MULTI", "A> SET plain 2",
                "A> EXEC")
    await ex.attributed()
    assert whys(seen) == []                          # no "B wrote plain … EXEC would have aborted"
    assert pg.writes.last_writer == {b"plain": "A"}  # and no "changed by B"
    assert not [e for e in seen if isinstance(e, ev.Wrote) and e.client == "B"]


async def test_a_read_only_script_does_not_abort_a_watch(pg):
    ex, seen = recording(pg)
    *_, done = await lines(ex, "A> SET plain 1", "A> WATCH plain", f"B> {READ_ONLY_SCRIPT}", "A> MULTI",
                           "A> SET plain 2", "A> EXEC")
    assert done.output == b"1) OK\n" and whys(seen) == []
    assert pg.session("A").state.dirty_keys == ()


async def test_a_script_that_wrote_then_failed_gets_the_credit(pg):
    ex, seen = recording(pg)
    *_, failed = await lines(ex, "A> WATCH s", WRITES_THEN_FAILS.join(("B> ", "")), "A> MULTI", "A> GET s",
                             "A> EXEC")
    assert failed.output == b"(nil)\n"               # the server says B's script changed s
    why, = whys(seen)
    assert why.kind == "changed" and why.text.startswith("B changed WATCHed s (EVAL")
    await lines(ex, f"B> {UNDECLARED_THEN_FAILS}")
    await ex.attributed()
    assert pg.writes.last_writer == {b"s": "B", b"hidden": "B"}


async def test_a_ttl_only_change_is_named_as_such(pg):
    ex, seen = recording(pg)
    for change in ("GETEX k EX 1800", "EXPIRE k 100"):
        await lines(ex, "A> SET k v", "A> WATCH k", f"B> {change}", "A> MULTI", "A> GET k", "A> EXEC")
        why = whys(seen)[-1]
        assert why.kind == "ttl", why.text
        assert why.text.startswith(f"B changed only the TTL of WATCHed k ({change}, #")
        assert "value it already had" not in why.text
    await ex.attributed()
    assert pg.writes.last_writer == {b"k": "B"}      # a TTL change is a change: "changed by B"


async def test_a_same_value_rewrite_is_still_told_apart(pg):
    ex, seen = recording(pg)
    await lines(ex, "A> SET k v EX 1800", "A> WATCH k", "B> SET k v KEEPTTL", "A> MULTI", "A> GET k", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "same-value" and "the value it already had (SET k v KEEPTTL" in why.text


async def test_the_ttl_note_in_chinese(pg):
    ex, seen = recording(pg, "zh")
    await lines(ex, "A> SET k v", "A> WATCH k", "B> EXPIRE k 100", "A> MULTI", "A> GET k", "A> EXEC")
    why, = whys(seen)
    assert why.text.startswith("A WATCH 之后（#2），B 只改了被 WATCH 的 k 的过期时间（EXPIRE k 100，#3）")


async def test_only_the_watched_key_that_changed_is_dirty(pg):
    ex, _ = recording(pg)
    await lines(ex, "A> SET k 1", "A> WATCH k missing", "B> SET missing 1")
    await pg.refresh_states()
    state = pg.session("A").state
    assert state.dirty and state.dirty_keys == (b"missing",)   # the client is dirty, as the server says
    assert state.dirty_key(b"missing") and not state.dirty_key(b"k")
    await lines(ex, "B> EXPIRE k 100")
    assert pg.session("A").state.dirty_keys == (b"missing", b"k")
    await lines(ex, "A> UNWATCH")
    await pg.refresh_states()
    assert not pg.session("A").state.dirty and pg.session("A").state.dirty_keys == ()


async def test_a_client_pause_does_not_hold_the_line(pg):
    """CLIENT PAUSE changes no key: nothing is asked of the server about it (a question
    would wait for the pause to end)."""
    ex, _ = recording(pg)
    done, = await lines(ex, "A> CLIENT PAUSE 2500")
    assert done.elapsed < 1.5 and done.units[0].changes == {}


async def test_a_fresh_starts_setup_is_nobodys_write(pg):
    """A lesson part's setup runs outside any unit: a read-only script after it (which may
    touch any key) is not credited with the setup's writes."""
    ex, _ = recording(pg)
    await lines(ex, "A> PING")                       # the key events are listened to from here
    await pg.reset([[b"SET", b"plain", b"1"]], label="part 1")
    await lines(ex, f"B> {READ_ONLY_SCRIPT}")
    await ex.attributed()
    assert pg.writes.last_writer == {}
