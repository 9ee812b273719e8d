"""Outcomes a teacher can use: each outcome's simplest witness (fewest switches), the
anomaly an outcome no serial order gives shows, named in the course's terms and proved
by dependencies, and the deciding order; checked against a brute force over every
schedule, on both servers."""

from __future__ import annotations

import json

import pytest

from playground.explore import schedules as sch
from playground.explore.explorer import explore
from playground.explore.free_play import typed_scenario
from playground.explore.report import render_json, render_markdown, render_text
from playground.explore.witness import simplest, switches
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario


def scenario(ref: str):
    return load_scenario(resolve(ref))


# -- pure: switches and the simplest equivalent schedule -----------------------------------

def test_switches_count_only_moves_away_from_a_client_with_steps_left():
    assert switches(("A", "A", "B", "B")) == 0                  # serial
    assert switches(("A", "B", "B", "A")) == 1                  # the lost update's witness
    assert switches(("A", "B", "A", "B")) == 2
    assert switches(("A", "B", "A", "B"), blocked=frozenset({("A", 0)})) == 1   # A1 blocked: not a choice


@pytest.mark.parametrize("lengths", [{"A": 2, "B": 2}, {"A": 3, "B": 2}, {"A": 2, "B": 2, "C": 1}])
def test_simplest_is_the_fewest_switches_of_its_class_by_brute_force(lengths):
    # steps conflict when they share a key; keys chosen so classes have several members
    keys = {("A", 0): "x", ("A", 1): "y", ("A", 2): "x", ("B", 0): "y", ("B", 1): "z", ("C", 0): "x"}

    def independent(m, n):
        return keys[m] != keys[n]

    clients = list(lengths)
    schedules = list(sch.all_schedules(lengths))
    for schedule in schedules:
        form = sch.canonical_form(schedule, independent, clients)
        members = [s for s in schedules if sch.canonical_form(s, independent, clients) == form]
        best = simplest(schedule, independent, clients)
        assert best in members
        assert switches(best) == min(switches(s) for s in members)


# -- pure: naming from operations ------------------------------------------------------------

def op(seq, label, reads=(), writes=(), events=(b"set",), **kw):
    from playground.explore.anomaly import Op

    return Op(seq, label[0], label, frozenset(k.encode() for k in reads),
              {k.encode(): tuple(events) for k in writes}, **kw)


def names(ops, schedule):
    from playground.explore.anomaly import analyse

    a = analyse(ops, tuple(schedule))
    return a.kind, [(e.before.label, e.after.label, e.kind) for e in a.proof], a.deciding


def test_anomalies_named_from_operations():
    # lost update: A read, B wrote, A overwrote
    assert names([op(1, "A1", reads="k"), op(2, "B1", writes="k"), op(3, "A2", writes="k")], "ABA") == (
        "lost-update", [("A1", "B1", "rw"), ("B1", "A2", "ww")], [("B1", "A2")])   # (a tie: A then B first)
    # an INCR after the other's write builds on it: no update lost, yet not serial either
    kind, _, _ = names([op(1, "A1", reads="k"), op(2, "B1", writes="k"),
                        op(3, "A2", writes="k", events=(b"incrby",))], "ABA")
    assert kind == "stale-read"
    # double-spend: both read the stock, both wrote it and each recorded its own order
    ops = [op(1, "A1", reads="s"), op(2, "B1", reads="s"), op(3, "A2", writes="s"), op(4, "A3", writes="o1"),
           op(5, "B2", writes="s"), op(6, "B3", writes="o2")]
    assert names(ops, "ABAABB")[0] == "double-spend"
    # the same without the orders: one write overwrote the other, a lost update
    assert names(ops[:3] + ops[4:5], "ABAB")[0] == "lost-update"
    # aborted EXEC: B wrote the WATCHed key between A's WATCH and EXEC
    ops = [op(1, "A1", reads="k", watches=frozenset({b"k"})), op(2, "B1", writes="k"),
           op(3, "A2", reads="k", aborted=True)]
    assert names(ops, "ABA")[:2] == ("aborted-exec", [("A1", "B1", "rw"), ("B1", "A2", "wr")])
    # stale read: A read k, B wrote k and read what A writes next
    ops = [op(1, "A1", reads="k"), op(2, "B1", reads="x"), op(3, "B2", writes="k"), op(4, "A2", writes="x")]
    assert names(ops, "ABBA")[0] == "stale-read"
    # not atomic: A's two reads straddle B's write
    ops = [op(1, "A1", reads="k"), op(2, "B1", writes="k"), op(3, "A2", reads="k")]
    kind, proof, deciding = names(ops, "ABA")
    assert kind == "not-atomic" and proof == [("A1", "B1", "rw"), ("B1", "A2", "wr")]
    # no dependency on a key at all: said so, and the switch is the deciding order
    from playground.explore.anomaly import analyse

    a = analyse([op(1, "A1"), op(2, "B1"), op(3, "A2")], ("A", "B", "A"))
    assert a.kind == "not-atomic" and a.between == ("A1", ["B1"], "A2") and a.deciding == [("B1", "A2")]
    assert "not on a key" in a.explain()


# -- on the servers ----------------------------------------------------------------------

def by_outcome(result):
    return {(c.deadlock, c.snapshot.signature if result.by == "state" else c.first_run.replies): c
            for c in result.classes}


async def brute_force_check(pg, ref_or_scenario, by="state"):
    """Every schedule run (no reduction): each outcome's fewest switches over its own
    schedules equals the reduced exploration's witness's."""
    s = scenario(ref_or_scenario) if isinstance(ref_or_scenario, str) else ref_or_scenario
    reduced = await explore(pg, s, by=by)
    every = await explore(pg, s, by=by, reduce=False)
    assert every.runs == every.total
    fewest = {}
    mine = by_outcome(every)
    for key, cls in mine.items():
        fewest[key] = cls.witness.switches
    for key, cls in by_outcome(reduced).items():
        assert cls.witness.switches == fewest[key], cls.label
        assert cls.witness.replayed
    return reduced


@pytest.mark.asyncio
async def test_lost_update_is_named_with_its_dependency_and_a_one_switch_witness(pg):
    result = await brute_force_check(pg, "lost-update")
    lost = next(c for c in result.classes if c.snapshot.describe("counter") == '"5"')
    w = lost.witness
    assert w.switches == 1 and w.label == "A1 B1 B2 A2"
    a = w.anomaly
    assert a.kind == "lost-update"
    assert [(e.before.label, e.after.label, e.kind, e.key) for e in a.proof] == [
        ("A1", "B2", "rw", b"counter"), ("B2", "A2", "ww", b"counter")]
    assert a.deciding == [("A1", "B2")]   # B2 before A1 and it is B then A
    assert a.explain() == "A1 read counter before B2 wrote it, and A2 overwrote B2's write to counter"
    serial = next(c for c in result.classes if c is not lost)
    assert serial.witness.switches == 0 and serial.witness.anomaly is None
    # the lanes: the witness's steps in its order, with the replies they got
    assert [(row.client, row.lines[0], row.reply) for row in w.rows] == [
        ("A", "A1  GET counter", '"4"'), ("B", "B1  GET counter", '"4"'),
        ("B", "B2  SET counter 5", "OK"), ("A", "A2  SET counter 5", "OK")]
    text = render_text(result)
    assert "1. A1 B1 B2 A2 (1 switch): lost update: A1 read counter before B2 wrote it" in text
    assert "Deciding order: A1 before B2." in text
    assert "│ B2  SET counter 5" in text
    data = json.loads(render_json(result))["classes"][0]["witness"]
    assert data["schedule"] == "A1 B1 B2 A2" and data["switches"] == 1
    assert data["anomaly"]["kind"] == "lost-update"
    assert data["anomaly"]["deciding"] == [{"before": "A1", "after": "B2"}]
    assert data["anomaly"]["dependencies"][0] == {"before": "A1", "after": "B2", "kind": "rw", "key": "counter"}
    assert [row["lines"][0] for row in data["lanes"]] == ["A1  GET counter", "B1  GET counter",
                                                          "B2  SET counter 5", "A2  SET counter 5"]
    assert "Deciding order: A1 before B2." in render_markdown(result)


@pytest.mark.asyncio
async def test_incr_has_no_anomaly_and_every_witness_is_serial(pg):
    result = await brute_force_check(pg, "incr-is-atomic")
    assert all(c.witness.anomaly is None and c.witness.switches == 0 for c in result.classes if c.serial)
    assert all(c.serial for c in result.classes)


@pytest.mark.asyncio
async def test_oversell_and_refresh_are_double_spends(pg):
    oversell = await brute_force_check(pg, "oversell")
    twice = [c for c in oversell.classes if not c.serial]
    assert len(twice) == 2
    for cls in twice:
        a = cls.witness.anomaly
        assert a.kind == "double-spend" and cls.witness.switches == 1
        assert {e.key for e in a.proof} == {b"stock"} and {e.kind for e in a.proof} == {"rw"}
        first, second = a.proof   # both reads come before both writes
        assert max(first.before.seq, second.before.seq) < min(first.after.seq, second.after.seq)
    refresh = await explore(pg, scenario("refresh-double-spend"))
    forked = [c for c in refresh.classes if not c.serial]
    assert forked and all(c.witness.anomaly.kind == "double-spend" for c in forked)
    assert "both acted on the same check" in render_text(refresh)
    # the fixed part: one script each, every outcome a serial one
    fixed = await explore(pg, scenario("refresh-double-spend"), part=2)
    assert all(c.serial and c.witness.anomaly is None for c in fixed.classes)


@pytest.mark.asyncio
async def test_an_aborted_exec_is_told_from_a_lost_update(pg):
    watch = await brute_force_check(pg, "watch-wrong-connection", by="replies")
    aborted = next(c for c in watch.classes if not c.serial)
    a = aborted.witness.anomaly
    assert a.kind == "aborted-exec"
    watched, wrote = a.proof
    assert (watched.before.label, watched.after.label, wrote.after.label) == ("A1", "B3", "A4")
    assert a.explain() == "B3 wrote balance after A1 WATCHed it, so A4's EXEC was aborted (nil)"
    stale = await explore(pg, scenario("stale-read-in-multi"), by="replies")
    lost = next(c for c in stale.classes if not c.serial).witness.anomaly
    assert lost.kind == "lost-update"      # "B's decrement is lost"
    assert lost.explain() == "A1 read stock before B1 wrote it, and A4 overwrote B1's write to stock"


@pytest.mark.asyncio
async def test_a_step_between_two_of_the_other_clients_is_not_atomic(pg):
    result = await brute_force_check(pg, "session-create")
    split = next(c for c in result.classes if not c.serial)
    a = split.witness.anomaly
    assert a.kind == "not-atomic" and a.between == ("A1", ["B1"], "A2")
    assert a.explain().startswith("B1 ran between A1 and A2: A1 read user_auth_revoked:u1 before B1 wrote it")


@pytest.mark.asyncio
async def test_the_same_write_with_and_without_a_read_before_it(pg):
    # a blind SET after the other's write is no lost update: serial orders give it
    blind = await explore(pg, typed_scenario([("A", "SET k a"), ("B", "GET k"), ("B", "SET k b"), ("A", "SET k c")]))
    named = {c.witness.anomaly.kind for c in blind.classes if c.witness.anomaly}
    assert "lost-update" not in named
    # a read again after the other's write: no stale read to lose an update with
    fresh = await explore(pg, typed_scenario([("A", "GET k"), ("B", "SET k b"), ("A", "GET k"), ("A", "SET k a")]))
    assert "lost-update" not in {c.witness.anomaly.kind for c in fresh.classes if c.witness.anomaly}


@pytest.mark.asyncio
async def test_a_sample_lists_its_rare_outcomes(pg):
    sampled = await explore(pg, scenario("watch-retry"), limit=4, reduce=False)
    assert sampled.sampled
    text = render_text(sampled)
    assert f"Sampled: {sampled.runs} of {sampled.total} schedules were run" in text
    assert "so an outcome may be missing" in text
    rare = [n for n, c in enumerate(sampled.classes, 1) if c.runs < 3]
    assert rare and "Seen fewer than 3 times: outcome " + ", ".join(map(str, rare)) + "." in text
    data = json.loads(render_json(sampled))
    assert data["rare"] == rare and data["rare_below"] == 3
    # without the reduction a witness is one of the outcome's own runs: run again, it ends the same
    assert all(c.witness.replayed and c.witness.switches == switches(c.witness.schedule) for c in sampled.classes)
    full = await explore(pg, scenario("lost-update"))
    assert json.loads(render_json(full))["rare"] is None and "Sampled:" not in render_text(full)


@pytest.mark.asyncio
async def test_a_lesson_programs_lost_update_is_named_from_its_released_commands(pg):
    # redis-py programs through the gate: no executor units, the commands and replies as released
    result = await explore(pg, scenario("lost-update-python"))
    lost = next(c for c in result.classes if not c.serial)
    assert lost.witness.switches == 1
    a = lost.witness.anomaly
    assert a.kind == "lost-update" and {e.key for e in a.proof} == {b"counter"}
    assert [row.lines[0].split("  ")[1] for row in lost.witness.rows] == [
        "GET counter", "GET counter", "SET counter 5", "SET counter 5"]


async def test_an_exploration_that_puts_config_back_leaves_the_key_events_on(pg):
    """Steps that CONFIG SET make the explorer put the configuration back after each
    schedule, from values read before the playground first listened to key events: it
    switched those events off, and the next exploration's witnesses saw no writes (A4's
    INCR k no longer wrote k: "the dependency is not on a key"). Twice, the same report."""
    steps = [("A", "CONFIG SET hz 20"), ("A", "INCR k"), ("A", "CONFIG SET hz 30"), ("A", "INCR k"),
             ("B", "CONFIG GET hz"), ("B", "SET k 5"), ("B", "CONFIG GET hz"), ("B", "GET k")]
    first, again = [render_text(await explore(pg, typed_scenario(steps), reduce=False, by="replies", jobs=1))
                    for _ in range(2)]
    assert "A4 wrote k after B2, and B4 read k after A4 wrote it" in first
    assert again == first


# -- a witness's label is what its run again ran ------------------------------------------------

async def test_a_witness_is_labelled_with_the_moves_its_run_again_made():
    """A program that waited for a message took it in a move of its own in one run (A2,
    no command: then A3 SET) and not in the same order run again (A2 SET): the label
    is the run's again, as its rows are, not the order planned ("A1 B1 B2 A2 A3" over
    four rows A1 B1 B2 A2)."""
    from types import SimpleNamespace

    from playground.explore.outcomes import OutcomeClass, Run
    from playground.explore.witnesses import Witness, _replay

    shot = SimpleNamespace(signature=("heard", "hello"))
    planned = ("A", "B", "B", "A", "A")
    first = Run(planned, shot, moves=[("A", 0, False), ("B", 0, False), ("B", 1, False), ("A", 1, False),
                                      ("A", 2, False)])
    again = Run(("A", "B", "B", "A"), shot, moves=[("A", 0, False), ("B", 0, False), ("B", 1, False),
                                                   ("A", 1, False)])
    ran = []

    async def run_checked(schedule, keep=None, live=()):
        ran.append(schedule)
        return again

    explorer = SimpleNamespace(run_checked=run_checked, by="state", kept_pushes=[],
                               scenario=SimpleNamespace(programs={"A": [], "B": []}))
    cls = OutcomeClass(shot, None, planned, serial=[("A", "B")], witness=Witness(planned, 1))
    await _replay(explorer, SimpleNamespace(serial_known=True), cls, first)
    assert ran == [planned]
    assert (cls.witness.label, cls.witness.switches, cls.witness.replayed) == ("A1 B1 B2 A2", 1, True)
