"""Teaching mode's engine: stepping, rewinding, the timeline, and challenges."""

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.challenge import Challenge
from playground.scenario.stepper import Stepper
from commands import send


def scenario(sid):
    return load_scenario(bundled_dir() / f"{sid}.toml")


async def test_step_previous_and_jump(pg):
    st = Stepper(pg, scenario("watch-abort"))
    await st.start()
    for _ in range(3):
        result = await st.step()
        assert result.ok
    assert st.cursor == 3
    assert pg.session("A").state.dirty  # B's SET made A's WATCH dirty
    await st.previous()  # back to just after A's GET: the watch is clean again
    assert st.cursor == 2
    assert pg.session("A").state.watched == (b"balance",) and not pg.session("A").state.dirty
    assert await send(pg, "B", [b"GET", b"balance"]) == b"150"
    await st.goto(6)
    assert st.results[-1].reply == "(nil)\n" and st.results[-1].ok
    rest = await st.run_to_end()
    assert st.finished and all(r.ok for r in rest)
    assert not st.time_dependent
    assert await st.step() is None


async def test_rewind_is_flagged_approximate_with_ttls(pg):
    assert Stepper(pg, scenario("set-nx-lock")).time_dependent
    assert Stepper(pg, scenario("rate-limit-lua")).time_dependent


async def test_timeline_groups_atomic_units(pg):
    st = Stepper(pg, scenario("watch-abort"))
    await st.start()
    await st.run_to_end()
    entries = st.timeline.entries
    blocks = [e for e in entries if len(e.lines) > 1]
    assert blocks[0].lines == ["MULTI", "DECRBY balance 100", "EXEC"] and not blocks[0].atomic
    assert "aborted" in blocks[0].note
    assert blocks[1].atomic and blocks[1].lines[1] == "DECRBY balance 100"
    text = st.timeline.render_text(("A", "B"))
    assert "┌" in text and "SET balance 200" in text
    md = st.timeline.render_markdown(("A", "B"))
    assert "**atomic:** `MULTI`<br>`DECRBY balance 100`<br>`EXEC`" in md


async def test_script_is_one_atomic_block(pg):
    st = Stepper(pg, scenario("pcall"))
    await st.start()
    await st.run_to_end()
    assert all(e.atomic for e in st.timeline.entries)


async def test_lost_update_challenge_won_and_not_won(pg):
    ch = Challenge(pg, scenario("lost-update"))
    await ch.reset()
    for client in ["A", "B", "A", "B"]:  # both read before either writes
        await ch.move(client)
    assert ch.finished and await ch.won() is True
    await ch.reset()
    for client in ["A", "A", "B", "B"]:  # serial: no race, counter 6
        await ch.move(client)
    assert await ch.won() is False
    assert await send(pg, "A", [b"GET", b"counter"]) == b"6"


async def test_challenge_undo(pg):
    ch = Challenge(pg, scenario("lost-update"))
    await ch.reset()
    await ch.move("A")
    await ch.move("A")
    assert await ch.won() is None  # not finished
    await ch.undo()
    assert ch.moves == ["A"] and await send(pg, "B", [b"GET", b"counter"]) == b"4"
    await ch.move("B")
    await ch.move("A")
    await ch.move("B")
    assert await ch.won() is True


async def test_oversell_serial_order_sells_once(pg):
    ch = Challenge(pg, scenario("oversell"))
    await ch.reset()
    for client in ["A", "A", "A", "B", "B", "B"]:
        await ch.move(client)
    assert await ch.won() is False
    assert any(r.skipped and "does not do this" in r.skipped for r in ch.results)
    assert await send(pg, "A", [b"LLEN", b"orders"]) == 1


async def test_refresh_double_spend_challenge(pg):
    ch = Challenge(pg, scenario("refresh-double-spend"))
    await ch.reset()
    for client in ["A", "B", "A", "A", "A", "B", "B", "B"]:
        await ch.move(client)
    assert await ch.won() is True


async def test_recording_round_trip(pg, tmp_path):
    """Record commands as a learner types them, save, and `check` passes the file unchanged."""
    import asyncio

    from playground.scenario.recorder import Recorder
    from playground.resp.cli_format import render
    from playground.scenario.runner import Runner

    rec = Recorder()
    await pg.reset()

    async def typed(client, line, argv):
        rec.sent(client, line)
        reply = await send(pg, client, argv)
        rec.replied(client, render(reply, argv).decode(), reply)

    await typed("A", 'SET "greeting" "hello world"', [b"SET", b"greeting", b"hello world"])
    await typed("B", "GET greeting", [b"GET", b"greeting"])
    await typed("B", "LPUSH greeting x", [b"LPUSH", b"greeting", b"x"])
    rec.sent("A", "BLPOP jobs 0")
    pending = asyncio.create_task(send(pg, "A", [b"BLPOP", b"jobs", b"0"]))
    assert not await pg.settle("A", pending)
    await typed("B", "RPUSH jobs j1", [b"RPUSH", b"jobs", b"j1"])
    reply = await pending
    rec.replied("A", render(reply).decode(), reply)
    path = rec.save(tmp_path, "My race", ("A", "B"))
    text = path.read_text()
    assert 'error = "WRONGTYPE"' in text and "blocking = true" in text and "wait = true" in text
    s = load_scenario(path)
    assert [st.display for st in s.steps][:3] == ['SET "greeting" "hello world"', "GET greeting", "LPUSH greeting x"]
    result = await Runner(pg).run(s)
    assert result.ok and result.check_count == 5, [(x.step.number, c.detail) for x, c in result.failed_checks]
