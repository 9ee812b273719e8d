"""What an outcome's anomaly says is what ran: an EXEC the server aborted (a WATCHed key
expired, SWAPDB) is an aborted EXEC, never "not atomic"; a lost update names the write
really overwritten, with any number of clients. Each checked against the server itself:
the test's own connections run the witness's schedule and watch what the server holds."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from playground.engine.playground import Playground
from playground.explore import schedules as sch
from playground.explore.explorer import explore
from playground.explore.report import render_text
from playground.scenario.loader import load_scenario

pytestmark = [pytest.mark.server]

LESSONS = Path(__file__).parent / "lessons"


def lesson(name: str):
    return load_scenario(LESSONS / f"{name}.toml")


def no_serial(result):
    return [c for c in result.classes if not c.serial]


async def test_swapdb_between_watch_and_exec_is_an_aborted_exec(pg, private_server):
    result = await explore(pg, lesson("swapdb-under-watch"))
    aborted, = no_serial(result)
    w = aborted.witness
    # the server's own word, over the test's own connections: in this order EXEC is nil
    a, b = (redis.Redis(unix_socket_path=private_server.socket_path, single_connection_client=True)
            for _ in range(2))
    try:
        a.flushall()
        a.set("stock", 5)
        commands = {"A": [("WATCH", "stock"), ("MULTI",), ("DECR", "stock"), ("EXEC",)], "B": [("SWAPDB", 0, 1)]}
        replies = {}
        for client, index in sch.moves(w.schedule):
            replies[f"{client}{index + 1}"] = (a if client == "A" else b).execute_command(*commands[client][index])
        assert replies["A4"] is None
    finally:
        a.flushall()
        a.close()
        b.close()
    assert w.anomaly.kind == "aborted-exec"
    assert w.anomaly.explain() == ("B1 changed every key of the database (a flush or SWAPDB) after A1's WATCH, "
                                   "so A4's EXEC was aborted (nil)")
    assert "not atomic" not in render_text(result)


@pytest.mark.slow
async def test_a_watched_key_that_expires_aborts_the_exec_and_is_named_so(pg, private_server):
    """B's step lets 1.5 s pass; the stock's TTL is 1 s: between A's WATCH and EXEC it runs
    out, and the server aborts the EXEC with no client having written the key."""
    result = await explore(pg, lesson("watch-key-expires"))
    aborted, = no_serial(result)
    assert "sold" not in aborted.snapshot.keys       # nothing of A's transaction ran
    w = aborted.witness
    assert [row.reply for row in w.rows if "EXEC" in row.lines[-1]] == ["(nil)"]
    assert w.anomaly.kind == "aborted-exec"
    assert w.anomaly.explain() == ("WATCHed stock expired after A1 WATCHed it (no client wrote it), "
                                   "so A4's EXEC was aborted (nil)")
    assert "not atomic" not in render_text(result)


def writers(schedule: tuple[str, ...], socket_path: str) -> dict[str, str]:
    """Run the three clients' programs (GET, then SET what was read plus A 1, B 10, C 100)
    in `schedule`'s order on the server; for each SET step, whose write the server held
    just before it (the step that wrote that value; the setup's: "setup")."""
    amount = {"A": 1, "B": 10, "C": 100}
    conns = {c: redis.Redis(unix_socket_path=socket_path, single_connection_client=True) for c in amount}
    admin = redis.Redis(unix_socket_path=socket_path)
    read: dict[str, int] = {}
    wrote = {b"5": "setup"}
    out = {}
    try:
        admin.flushall()
        admin.set("counter", 5)
        steps = {"A": ["get", "set"], "B": ["get", "set"], "C": ["get", "set"]}
        for client, index in sch.moves(schedule):
            label = f"{client}{index + 1}"
            if steps[client][index] == "get":
                read[client] = int(conns[client].get("counter"))
                continue
            out[label] = wrote[admin.get("counter")]     # the write this SET replaces
            value = str(read[client] + amount[client]).encode()
            assert value not in wrote                    # each write's value tells its writer
            conns[client].set("counter", value)
            wrote[value] = label
    finally:
        admin.flushall()
        for conn in [*conns.values(), admin]:
            conn.close()
    return out


async def test_a_three_client_lost_update_names_the_write_really_overwritten(private_server):
    async with Playground(server=private_server, clients=("A", "B", "C")) as pg:
        result = await explore(pg, lesson("three-clients-lost-update"))
        lost = [c for c in no_serial(result)
                if c.witness.anomaly is not None and c.witness.anomaly.kind == "lost-update"]
        assert lost
        for cls in lost:
            a = cls.witness.anomaly
            read, overwrite = a.proof
            assert (read.kind, overwrite.kind) == ("rw", "ww")
            truth = writers(cls.witness.schedule, private_server.socket_path)
            assert overwrite.before.label == truth[overwrite.after.label], cls.witness.label
            assert read.after is overwrite.before
            assert f"{overwrite.after.label} overwrote {overwrite.before.label}'s write to counter" in a.explain()
        # the witness where the third client's write came last (A1 B1 B2 C1 C2 A2): A2 overwrote C2's
        assert any(c.witness.label == "A1 B1 B2 C1 C2 A2" and c.witness.anomaly.proof[1].before.label == "C2"
                   for c in lost)


def test_an_aborted_exec_with_nothing_on_record_is_never_not_atomic():
    """Pure: the operations of a run where B's step wrote nothing A read, yet A's EXEC came
    back nil (the server's why-note: the key expired); a lost update in the same run is
    still named first."""
    from playground.explore.anomaly import Op, analyse

    watch = Op(1, "A", "A1", frozenset({b"k"}), {}, watches=frozenset({b"k"}))
    other = Op(2, "B", "B1", frozenset(), {b"x": (b"set",)})
    exec_ = Op(3, "A", "A2", frozenset({b"k"}), {}, aborted=True, cause="expired", cause_key=b"k")
    a = analyse([watch, other, exec_], ("A", "B", "A"))
    assert a.kind == "aborted-exec"
    assert a.explain() == "WATCHed k expired after A1 WATCHed it (no client wrote it), so A2's EXEC was aborted (nil)"
    read = Op(4, "C", "C1", frozenset({b"n"}), {})
    write = Op(5, "B", "B2", frozenset(), {b"n": (b"set",)})
    over = Op(6, "C", "C2", frozenset(), {b"n": (b"set",)})
    assert analyse([watch, other, exec_, read, write, over], tuple("ABACBC")).kind == "lost-update"
