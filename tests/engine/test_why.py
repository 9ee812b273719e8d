"""A "why" under every surprise (engine/why.py): each case from a real race, on both
servers, through the one command path; never on `repl` stdout."""

import pytest
import asyncio
import io

from playground.cli.repl import run_repl
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.engine.why_text import MESSAGES
from why_lines import lines, whys

BUSY = "local t = redis.call('TIME')[1] + 10 while tonumber(redis.call('TIME')[1]) < t do end return 1"
WRITES_THEN_BUSY = ("redis.call('SET', KEYS[1], 'x') local t = redis.call('TIME')[1] + 10 "
                    "while tonumber(redis.call('TIME')[1]) < t do end return 1")


def explaining(pg, lang="en"):
    seen = []
    return Executor(pg, seen.append, explain=lang), seen


async def test_watched_key_changed_by_the_other_client(pg):
    ex, seen = explaining(pg)
    *_, done = await lines(ex, "A> SET balance 100", "A> WATCH balance", "B> DECRBY balance 30", "A> MULTI",
                           "A> DECRBY balance 50", "A> EXEC")
    why, = whys(seen)
    assert (why.client, why.seq, why.kind) == ("A", 6, "changed")
    assert "B changed WATCHed balance (DECRBY balance 30, #3) after A's WATCH (#2)" in why.text
    assert done.whys == [why] and done.output == b"(nil)\n"  # the reply itself is untouched
    row = [r for r in pg.order.rows if r.unit is not None][-1]
    assert row.seq == 6 and row.whys == [why]


async def test_own_write_after_watch_is_named_as_such(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> WATCH k", "A> SET k 1", "A> MULTI", "A> INCR k", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "changed" and why.text.startswith("A itself changed WATCHed k (SET k 1, #2)")


async def test_same_value_rewrite_aborts_and_says_so(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> SET balance 70", "A> WATCH balance", "B> SET balance 70", "A> MULTI", "A> INCR balance",
                "A> EXEC")
    why, = whys(seen)
    assert why.kind == "same-value" and "the value it already had (SET balance 70, #3)" in why.text


async def test_expiry_aborts_and_says_no_client_wrote_it(pg):
    for _ in range(20):  # the key must still be there when WATCH runs (a loaded machine may be late)
        await pg.reset()
        pg.restart_numbering()
        ex, seen = explaining(pg)
        await lines(ex, "A> SET session x", "A> PEXPIRE session 100", "A> WATCH session")
        ttl, = await pg.reader.run([[b"PTTL", b"session"]])  # (read after the WATCH: it ran on a live key)
        if ttl > 0:
            break
    else:
        raise AssertionError("the key expired before every WATCH")
    for _ in range(2000):  # the server's state, not a sleep, says when it is gone
        reply, = await pg.reader.run([[b"EXISTS", b"session"]])
        if reply == 0:
            break
        await asyncio.sleep(0.005)
    else:
        raise AssertionError("session never expired")
    *_, done = await lines(ex, "A> MULTI", "A> SET session y", "A> EXEC")
    assert done.output == b"(nil)\n"
    why, = whys(seen)
    assert why.kind == "expired" and "WATCHed session expired after A's WATCH (#3)" in why.text


async def test_flushall_by_the_other_client(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> SET k 1", "A> WATCH k", "B> FLUSHALL", "A> MULTI", "A> PING", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "flushed" and why.text.startswith("B ran FLUSHALL (#3) after A's WATCH")


async def test_playground_flush_is_named(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> SET k 1", "A> WATCH k")
    await pg.flushall()
    await lines(ex, "A> MULTI", "A> PING", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "flushed" and "The playground flushed the server" in why.text


async def test_execabort_names_the_rejected_command(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> MULTI", "A> SET a 1", "A> INCR", "A> NOSUCH x", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "execabort"
    assert why.text.startswith("INCR was rejected when it was queued (ERR wrong number of arguments")
    assert ", and 1 more" in why.text


async def test_unwatched_commit_after_another_clients_write(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> SET balance 100", "A> GET balance", "B> SET balance 10", "A> MULTI",
                "A> SET balance 150", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "unwatched"
    assert why.text.startswith("B wrote balance (SET balance 10, #3) after #2") and "not WATCHed" in why.text


async def test_nothing_to_explain_gives_no_why(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> WATCH k", "A> MULTI", "A> SET k 1", "A> EXEC",          # nobody wrote k
                "B> SET other 1", "A> MULTI", "A> SET k 2", "A> EXEC",           # B wrote another key
                "A> GET missing", "A> INCR k")
    assert whys(seen) == []


@pytest.mark.slow
async def test_busy_names_the_script_and_unkillable_says_it_wrote(pg):
    ex, seen = explaining(pg)
    job = ex.submit("A", [b"EVAL", BUSY.encode(), b"0"])
    assert not await job.settle()
    await lines(ex, "B> GET k")
    why, = whys(seen)
    assert why.kind == "busy" and why.client == "B"
    assert why.text.startswith("A's script (EVAL ") and "SCRIPT KILL" in why.text and "SHUTDOWN NOSAVE" in why.text
    await lines(ex, "B> SCRIPT KILL")
    await job
    job = ex.submit("A", [b"EVAL", WRITES_THEN_BUSY.encode(), b"1", b"k"])
    assert not await job.settle()
    await lines(ex, "B> SCRIPT KILL")
    why = whys(seen)[-1]
    assert why.kind == "unkillable" and why.text.startswith("A's script (EVAL ") and "already written" in why.text
    await lines(ex, "B> SHUTDOWN NOSAVE")  # the only way out
    await job


async def test_noscript_after_script_flush_and_never_loaded(pg):
    ex, seen = explaining(pg)
    sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"  # sha1("return 1")
    await lines(ex, f"A> EVALSHA {sha} 0")
    await lines(ex, 'A> SCRIPT LOAD "return 1"', "B> SCRIPT FLUSH", f"A> EVALSHA {sha} 0")
    never, flushed = whys(seen)
    assert never.kind == "noscript-never" and "never had that script" in never.text
    assert flushed.kind == "noscript-flushed"
    assert flushed.text.startswith("B emptied the script cache with SCRIPT FLUSH (#3) after the script was "
                                   "loaded (#2)")


async def test_noscript_after_a_fresh_start(pg):
    ex, seen = explaining(pg)
    await pg.reset([[b"SCRIPT", b"LOAD", b"return 1"]], label="one")
    await pg.reset([], label="two")
    await lines(ex, "A> EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0")
    why, = whys(seen)
    assert why.kind == "noscript-flushed" and "fresh start" in why.text


async def test_chinese_explanations(pg):
    ex, seen = explaining(pg, "zh")
    await lines(ex, "A> WATCH k", "B> SET k 1", "A> MULTI", "A> PING", "A> EXEC")
    why, = whys(seen)
    assert why.text == "A WATCH 之后（#1），B 改了被 WATCH 的 k（SET k 1，#2）：EXEC 放弃，事务里什么都没执行。"


def test_every_message_is_in_the_catalogue():
    from playground.i18n import tr_in

    assert all(tr_in("zh", text) != text for text in MESSAGES.values())


async def test_repl_never_prints_a_why(private_server):
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(server=private_server)
    text = "A> WATCH k\nB> SET k 1\nA> MULTI\nA> PING\nA> EXEC\nA> MULTI\nA> INCR\nA> EXEC\n"
    assert await run_repl(pg, stdin=io.BytesIO(text.encode()), stdout=out, stderr=err) == 0
    assert out.getvalue() == (b"OK\nOK\nOK\nQUEUED\n(nil)\nOK\n(error) ERR wrong number of arguments for 'incr' "
                              b"command\n(error) EXECABORT Transaction discarded because of previous errors.\n")
    assert "why" not in err.getvalue().lower() and "WATCHed" not in err.getvalue()


async def test_a_fresh_start_ends_the_unwatched_window(pg):
    """B's write in the previous part is not blamed on A's transaction in the next one."""
    ex, seen = explaining(pg)
    await lines(ex, "A> GET balance", "B> SET balance 10")
    await pg.reset([], label="next part")
    await lines(ex, "A> MULTI", "A> SET balance 150", "A> EXEC")
    assert whys(seen) == []


async def test_a_watch_from_an_earlier_part_is_forgotten(pg):
    ex, seen = explaining(pg)
    await lines(ex, "A> WATCH k")
    await pg.reset([], label="next part")
    await lines(ex, "A> WATCH k", "B> SET k 1", "A> MULTI", "A> PING", "A> EXEC")
    why, = whys(seen)
    assert why.kind == "changed" and "B changed WATCHed k (SET k 1, #3) after A's WATCH (#2)" in why.text


async def test_a_script_that_raised_wrongtype_midway_was_loaded(pg):
    """WRONGTYPE from a redis.call inside a running script: the script ran (and is in
    the cache), unlike a script refused before it began. After SCRIPT FLUSH its EVALSHA's
    NOSCRIPT is the flush's doing, not "never had that script"."""
    import hashlib
    body = "return redis.call('LPUSH', KEYS[1], 'a')"
    sha = hashlib.sha1(body.encode()).hexdigest()
    ex, seen = explaining(pg)
    *_, raised = await lines(ex, "A> SET s x", f'A> EVAL "{body}" 1 s')
    assert raised.output.startswith(b"(error) WRONGTYPE")
    unit = [r.unit for r in pg.order.rows if r.unit is not None][-1]
    assert unit.started and unit.ran
    await lines(ex, "B> SCRIPT FLUSH", f"A> EVALSHA {sha} 1 s")
    flushed, = whys(seen)
    assert flushed.kind == "noscript-flushed" and "(#2)" in flushed.text, flushed.text


async def test_a_why_can_be_said_again_in_another_language(pg):
    """F12 redraws a pane's notes: a Why keeps what it said, not only the words."""
    ex, seen = explaining(pg)
    await lines(ex, "A> WATCH k", "A> SET k 1", "A> MULTI", "A> INCR k", "A> EXEC")
    why, = whys(seen)
    assert why.text_in("en") == why.text and why.text.startswith("A itself changed WATCHed k")
    chinese = why.text_in("zh")
    assert chinese != why.text and "WATCH" in chinese and "A itself" not in chinese
    await pg.reset()  # the same race again, explained in Chinese from the start
    ex_zh, seen_zh = explaining(pg, "zh")
    await lines(ex_zh, "A> WATCH k", "A> SET k 1", "A> MULTI", "A> INCR k", "A> EXEC")
    said_at_once = whys(seen_zh)[0].text.replace("#6", "#1").replace("#7", "#2")  # (numbers go on)
    assert said_at_once == chinese  # the same words as a note said in Chinese at once


async def test_an_unwatch_queued_inside_multi_forgets_no_watch(pg):
    """UNWATCH inside MULTI is queued (it answers QUEUED, an OK-like status): the WATCH
    still holds when EXEC aborts, and the why names B's write, as without the UNWATCH."""
    ex, seen = explaining(pg)
    await lines(ex, "A> SET balance 100", "A> WATCH balance", "B> DECRBY balance 30", "A> MULTI", "A> UNWATCH",
                "A> DECRBY balance 50", "A> EXEC")
    why, = whys(seen)
    assert "B changed WATCHed balance (DECRBY balance 30, #3) after A's WATCH (#2)" in why.text
