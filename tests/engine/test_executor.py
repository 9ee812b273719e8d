"""The one command path (engine.executor): typed events, server order, units, and the
regressions of the four executors it replaced. Every test runs on both servers."""

import asyncio

from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from playground.scenario.stepper import Stepper


def collect(pg, **kwargs):
    seen = []
    return Executor(pg, seen.append, **kwargs), seen


async def test_replies_carry_one_server_order_across_clients(pg):
    ex, seen = collect(pg)
    await ex.run_line("A", "SET k 1")
    await ex.run_line("B", "INCR k")
    await ex.run_line("A", "3 INCR k")
    replies = [e for e in seen if isinstance(e, ev.Reply)]
    assert [(e.client, e.seq) for e in replies] == [("A", 1), ("B", 2), ("A", 3), ("A", 4), ("A", 5)]
    assert [e.output for e in replies] == [b"OK\n", b"(integer) 2\n", b"(integer) 3\n", b"(integer) 4\n",
                                            b"(integer) 5\n"]


async def test_transaction_is_one_unit_at_exec_time(pg):
    ex, seen = collect(pg)
    for client, line in [("A", "WATCH balance"), ("B", "SET balance 200"), ("A", "MULTI"),
                         ("A", "DECRBY balance 50"), ("A", "EXEC")]:
        await ex.run_line(client, line)
    units = [e.unit for e in seen if isinstance(e, ev.UnitEnded)]
    assert [(u.client, u.kind, u.outcome) for u in units] == [
        ("A", "command", "ran"), ("B", "command", "ran"), ("A", "transaction", "aborted")]
    tx = units[-1]
    assert tx.commands == [(b"DECRBY", b"balance", b"50")] and tx.watched == (b"balance",)
    assert tx.seq == 5 and not tx.ran


async def test_execabort_and_discard_are_units_that_did_not_run(pg):
    ex, seen = collect(pg)
    for line in ["MULTI", "SET a 1", "NOSUCHCOMMAND", "EXEC", "MULTI", "SET b 1", "DISCARD"]:
        await ex.run_line("A", line)
    units = [e.unit for e in seen if isinstance(e, ev.UnitEnded)]
    assert [u.outcome for u in units] == ["execabort", "discarded"]
    assert units[0].rejected[0][0] == (b"NOSUCHCOMMAND",)


async def test_teaching_mode_blames_the_client_that_wrote(pg):
    """watch-abort: A's queued DECRBY is no write, and EXEC → (nil) wrote nothing:
    balance stays "changed by B" (it said "by A")."""
    ex = Executor(pg, attribute=True)
    stepper = Stepper(pg, load_scenario(resolve("watch-abort")), ex)
    await stepper.start()
    while not stepper.finished:
        result = await stepper.step()
        await ex.attributed()
        if result.reply == "QUEUED\n" or (result.step.argv or (b"",))[0] == b"EXEC":
            assert pg.writes.last_writer.get(b"balance") == "B", result.step.display
        if result.reply == "(nil)\n":
            break


async def test_a_script_that_failed_half_way_still_has_an_author(pg):
    ex = Executor(pg, attribute=True)
    line = ("EVAL \"redis.call('SET', KEYS[1], 1) redis.call('INCR', KEYS[2]) "
            "redis.call('SET', KEYS[3], 3)\" 3 first written third")
    await ex.run_line("B", "SET written notanumber")
    await ex.run_line("A", line)
    await ex.attributed()
    assert pg.writes.last_writer.get(b"first") == "A"


async def test_pushes_never_shift_replies_after_a_reset(pg):
    """RESP3 invalidation pushes are handled in the connection on every read: a reset
    (scenario start, recording) used to leave one on A's socket, shifting every reply."""
    ex, seen = collect(pg)
    for client, line in [("A", "HELLO 3"), ("A", "CLIENT TRACKING ON"), ("A", "GET k"), ("B", "SET k 1")]:
        await ex.run_line(client, line)
    await pg.reset()
    result = await ex.run_line("A", "ECHO one")
    assert result.output == b'"one"\n'


async def test_a_line_for_a_blocked_client_is_not_sent(pg):
    ex, seen = collect(pg)
    job = ex.submit("A", [b"BLPOP", b"q", b"0"])
    assert not await job.settle()
    assert any(isinstance(e, ev.Blocked) and e.client == "A" for e in seen)
    refused = await ex.run_line("A", "SET x 1")
    assert refused.refused and "BLPOP" in refused.refused and "Ctrl+C" in refused.refused
    await ex.run_line("B", "RPUSH q j")
    done = await job
    assert done.output == b'1) "q"\n2) "j"\n'
    assert (await ex.run_line("B", "EXISTS x")).output == b"(integer) 0\n"  # never ran


async def test_quit_disconnects_and_the_next_command_reconnects(pg):
    ex, seen = collect(pg)
    quit_ = await ex.run_line("A", "QUIT")
    assert quit_.output == b"OK\n"
    assert pg.session("A").state.disconnected
    assert any(isinstance(e, ev.ConnectionClosed) for e in seen)
    again = await ex.run_line("A", "PING")
    assert again.output == b"PONG\n"
    assert any(isinstance(e, ev.Reconnected) and e.client == "A" for e in seen)
    assert not pg.session("A").state.disconnected


async def test_monitor_streams_without_the_playgrounds_own_reads(pg):
    ex, seen = collect(pg)
    await ex.run_line("A", "MONITOR")
    assert pg.session("A").state.monitoring
    await ex.run_line("B", "SET k v")
    await pg.refresh_states()           # the observer's CLIENT LIST
    await pg.reader.run([[b"TYPE", b"k"]])  # an inspector read
    result = await ex.run_line("B", "GET k")
    assert result.output == b'"v"\n'
    await pg.session("A").sync()
    lines = b"".join(e.output for e in seen if isinstance(e, ev.Pushed) and e.client == "A")
    assert b'"SET" "k" "v"' in lines and b'"GET" "k"' in lines
    assert b"CLIENT" not in lines and b'"TYPE"' not in lines and b"playground-sync" not in lines


async def test_flush_never_goes_through_a_clients_connection(pg):
    ex, _ = collect(pg)
    await ex.run_line("A", "MULTI")
    await ex.run_line("A", "SET x 1")
    blocked = ex.submit("B", [b"BLPOP", b"q", b"0"])
    assert not await blocked.settle()
    await pg.flushall()                  # F8: neither queued in A's MULTI nor stuck behind B
    await ex.run_line("A", "GET y")      # queued
    exec_ = await ex.run_line("A", "EXEC")
    assert exec_.output == b"1) OK\n2) (nil)\n"  # only A's own commands ran
    await ex.cancel("B")
    await asyncio.gather(blocked.task, return_exceptions=True)


async def test_help_and_clear_are_local_but_not_with_a_count(pg):
    ex, seen = collect(pg)
    await ex.run_line("A", "HELP GET")
    await ex.run_line("A", "clear")
    counted = await ex.run_line("A", "2 clear")
    assert any(isinstance(e, ev.Output) and b"GET" in e.output for e in seen)
    assert any(isinstance(e, ev.Cleared) for e in seen)
    assert counted.output.startswith(b"(error) ERR unknown command")  # redis-cli sends it


async def test_clients_come_from_one_list(server_binary):
    from playground.engine.playground import Playground
    from playground.server import PrivateServer

    server = PrivateServer(server_binary).start()
    try:
        async with Playground(server=server, clients=("X", "Y", "Z")) as pg:
            ex, seen = collect(pg)
            await ex.run_line("Z", "CLIENT GETNAME")
            assert [e.output for e in seen if isinstance(e, ev.Reply)] == [b'"Z"\n']
    finally:
        server.stop()


def test_every_step_kind_has_one_handler():
    from playground.scenario.runner import Runner

    runner = Runner.__new__(Runner)
    Runner.__init__(runner, pg=type("P", (), {"sessions": {}})())
    kinds = {step.kind for path in ("watch-abort", "blocking-pop") for step in load_scenario(resolve(path)).steps}
    assert kinds == {"command", "wait"} and kinds <= set(runner.HANDLERS)


async def test_timeline_lanes_line_up_in_cells_with_chinese_keys(pg):
    """Built from units, padded by terminal cells: `SET 余额 100` takes more cells than
    characters, and every lane separator still sits in one column."""
    from playground.cells import width
    from playground.scenario.stepper import Timeline, entry_for

    ex, seen = collect(pg)
    for client, line in [("A", "SET 余额 100"), ("B", "MULTI"), ("B", "INCRBY 余额 5"), ("B", "EXEC")]:
        await ex.run_line(client, line)
    timeline = Timeline([entry_for(e.unit) for e in seen if isinstance(e, ev.UnitEnded)])
    text = timeline.render_text(("A", "B"), width=20)
    assert "余额" in text
    columns = {width(line.split("│")[0]) for line in text.splitlines() if "│" in line and not line.startswith("│")}
    assert len(columns) == 1, text


async def test_a_pane_renders_only_what_it_shows(pg):
    """Executor.run(limit=...): the first bytes of a big reply, and how many were left
    out — exactly what the whole rendering would have had."""
    from playground.resp.cli_format import render

    ex, seen = collect(pg)
    await ex.run_line("B", "SET big " + "é" * 300_000)
    result = await ex.run("A", [b"GET", b"big"], limit=1000)
    reply = next(e for e in seen if isinstance(e, ev.Reply) and e.client == "A")
    full = render(reply.reply, [b"GET", b"big"])
    assert reply.output == full[:1000] and reply.left_out == len(full) - 1000 > 0
    assert result.output == full[:1000]
