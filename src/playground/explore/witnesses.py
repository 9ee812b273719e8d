"""Each outcome's simplest witness, run once more with the server's key events on: the
steps as lanes, and for an outcome no serial order gives, the anomaly it shows
(explore/anomaly.py) from what the server did in that run.

The witness is the schedule with the fewest switches among the outcome's schedules
(explore/witness.py); it is run again, on a fresh state like every schedule, with an
executor that records what each unit changed (engine/changes.py). If that run does not
end the same (which the reduction's claim says it must), the outcome's own simplest
run is taken instead and the class says so (`Witness.replayed` False).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.engine.executor import Executor
from playground.engine.session import STREAMING
from playground.engine.units import UnitTracker, script_keys
from playground.explore import schedules as sch
from playground.explore.anomaly import Anomaly, Op, analyse
from playground.explore.witness import simplest, switches
from playground.i18n import current_language, tr
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import redact_line, redact_reply
from playground.scenario.lanes import LaneRow, row_for
from playground.scenario.runner import Runner

WITNESS_RUNS = 20
"""Outcomes (the most frequent first) whose witness is run again for lanes and an anomaly."""


@dataclass
class Witness:
    """An outcome's simplest schedule (fewest switches), run again for its lanes and its anomaly."""
    schedule: tuple[str, ...]
    switches: int
    rows: list[LaneRow] = field(default_factory=list)   # its steps in server order ([] when not run again)
    anomaly: Anomaly | None = None                      # for an outcome no serial order gives
    replayed: bool = True                               # the run again ended as the outcome did

    @property
    def label(self) -> str:
        return sch.label(self.schedule)


def blocked_moves(run) -> frozenset:
    """The moves of a run whose command blocked: (client, step index).

    Args:
        run: the run.
    """
    return frozenset((c, i) for c, i, b in run.moves if b and i is not None)


def candidate(run, independent, clients, reduced: bool) -> tuple[int, tuple[str, ...]]:
    """(switches, schedule) of the simplest schedule `run` stands for."""
    blocked = blocked_moves(run)
    schedule = simplest(run.schedule, independent, clients, blocked) if reduced and run.covers > 1 else run.schedule
    return switches(schedule, blocked), schedule


def ops_of(kept, catalogue) -> list[Op]:
    """Each unit the steps ran, as an operation at its server-order place; a lesson
    program's command (released through the gate: no unit of the executor's) from its
    command line and reply. An aborted EXEC carries what its why-note says changed the
    WATCHed key (engine/why.py: the witness runs with the notes on)."""
    out = []
    programs: dict[str, UnitTracker] = {}
    for client, index, step_result in kept:
        label = f"{client}{index + 1}"
        for unit in step_result.units:
            if unit.seq is None:
                continue
            op = _op(unit, client, label, catalogue)
            if op.aborted:
                op = _with_cause(op, step_result.whys)
            out.append(op)
        if not step_result.units and step_result.argv and step_result.seq is not None and step_result.step.release:
            unit = programs.setdefault(client, UnitTracker(client)).note(step_result.argv, step_result.value)
            if unit is not None and unit.outcome != "discarded":   # (DISCARD: nothing ran, nothing read)
                unit.seq = step_result.seq
                out.append(_op(unit, client, label, catalogue))
    return out


def _with_cause(op: Op, whys) -> Op:
    """The aborted EXEC `op` with its why-note's cause: kind, the unit that changed the
    key (its server-order number) and the key."""
    why = next((w for w in whys if w.seq == op.seq), None)
    if why is None:
        return op
    seq, key = why.values.get("seq"), why.values.get("key")
    return replace(op, cause=why.kind, cause_seq=seq if isinstance(seq, int) else None,
                   cause_key=key.encode("utf-8", "surrogateescape") if isinstance(key, str) and key != "?" else None)


def _op(unit, client: str, label: str, catalogue) -> Op:
    commands = [argv for argv in unit.commands if argv]
    watches: frozenset = frozenset()
    aborted = unit.kind == "transaction" and unit.outcome == "aborted"
    reads: set | None = set(unit.watched) if unit.kind == "transaction" else set()
    if commands and commands[0][0].lower() == b"watch" and unit.kind == "command":
        watches = frozenset(bytes(k) for k in commands[0][1:])
        reads = set(watches)
    elif not aborted:
        for argv in commands:
            name = bytes(argv[0]).lower()
            if name in SCRIPT_COMMANDS:
                keys = script_keys(argv)
                reads = None if reads is None or (not keys and name != b"fcall") else reads | set(keys)
                continue
            effect = catalogue.effect(argv)
            reads = None if reads is None or effect.reads is None else reads | effect.reads
    writes: dict | None
    if unit.changes is not None:
        writes = {bytes(k): tuple(v) for k, v in unit.changes.items()}
    elif not unit.ran:
        writes = {}
    else:
        writes = {}
        for argv in commands:
            effect = catalogue.effect(argv)
            if effect.writes is None:
                writes = None
                break
            writes.update(dict.fromkeys(effect.writes, ()))
    if reads is not None and writes is not None:
        reads -= writes.keys()   # (read and written by one unit: the server's own read, atomic with the write)
    return Op(unit.seq, client, label, None if reads is None else frozenset(reads), writes, aborted, watches)


async def find_witnesses(explorer, result, candidates: dict[int, tuple[int, tuple[str, ...], object]]) -> None:
    """Set `cls.witness` for each class of `result`; the first WITNESS_RUNS run again."""
    classes = result.classes
    for cls in classes:
        n, schedule, _ = candidates[id(cls)]
        cls.witness = Witness(schedule, n)
    if not classes:
        return
    sessions = explorer.pg.sessions
    streams = {name: s.on_stream for name, s in sessions.items()}
    recording = Runner(explorer.pg, executor=Executor(explorer.pg, attribute=True, explain=current_language()))
    recording.programs.lenient = True
    main, explorer.runner = explorer.runner, recording
    try:
        for cls in classes[:WITNESS_RUNS]:
            await _replay(explorer, result, cls, candidates[id(cls)][2])
    finally:
        explorer.runner = main
        await recording.discard_pending()
        await recording.programs.stop()
        for name, handler in streams.items():
            if name in sessions:
                sessions[name].on_stream = handler


async def _replay(explorer, result, cls, own_run) -> None:
    witness = cls.witness
    kept: list = []
    run = await explorer.run_checked(witness.schedule, keep=kept)
    if outcome_key(explorer, run) != outcome_key(explorer, own_run):
        witness.replayed = False
        kept = []
        run = await explorer.run_checked(own_run.schedule, keep=kept)
    # its label is what ran, as its rows are: a program's moves are what it did in this run (one that
    # waited for a message may have taken it in a move of its own in the run before, and not in this one)
    witness.schedule = run.schedule
    witness.switches = switches(run.schedule, blocked_moves(run))
    for client, _, out in kept:   # a program's steps: read from its released commands (ops_of: a UnitTracker)
        if client in explorer.scenario.programs:
            out.units = []
    witness.rows = lane_rows(kept, explorer.kept_pushes)
    if not cls.serial and result.serial_known:
        catalogue = explorer.pg.catalogue   # (a program's commands are known only now)
        await catalogue.learn(bytes(out.argv[0]) for _, _, out in kept if out.argv)
        witness.anomaly = analyse(ops_of(kept, catalogue), run.schedule)


def outcome_key(explorer, run):
    """What two runs share when they have the same outcome (by the explorer's `by`)."""
    return (run.deadlock, run.snapshot.signature if explorer.by != "replies" else None,
            run.replies if explorer.by != "state" else None, run.ended)


def lane_rows(kept, pushes=()) -> list[LaneRow]:
    """The run's units in server order, numbered 1, 2 ... and each led by its step's
    label (`A2 SET counter 5`); a lesson program's command as it was released; a
    subscribing step (no unit: its replies are frames of a stream) after the unit before
    it, and each frame pushed to a client (`pushes`: (the last unit's number when it
    came, client, the frame on one line)) after the unit that made it."""
    rows: list[tuple[tuple, LaneRow]] = []
    last = 0
    for client, index, out in kept:
        if not out.units and out.argv and out.seq is not None and out.step.release:
            argv = list(out.argv)   # (never a secret on screen: AUTH's password, HELLO's ...)
            reply = redact_reply(argv, out.reply or "").split("\n")[0]
            line = redact_line(out.command or format_argv(argv), argv)
            rows.append(((out.seq, 0), LaneRow(out.seq, client, [f"{client}{index + 1}  {line}"], reply=reply)))
            last = max(last, out.seq)
            continue
        if not out.units and out.argv and out.seq is None and out.step.wait and out.note:   # no reply came:
            line = redact_line(out.command or format_argv(list(out.argv)), list(out.argv))   # the program gave up
            rows.append(((last, 1, len(rows)), LaneRow(None, client, [f"{client}{index + 1}  {line}"], note=out.note)))
            continue
        if not out.units and out.argv and out.value is STREAMING:   # SUBSCRIBE ...: its frames come as pushes
            line = redact_line(out.command or out.step.display, list(out.argv))
            reply = (out.reply or "").split("\n")[0]   # (its frames: explore/one_schedule.py)
            rows.append(((last, 1, len(rows)), LaneRow(None, client, [f"{client}{index + 1}  {line}"], reply=reply)))
        for unit in out.units:
            if unit.seq is None:
                continue
            single = unit.kind != "transaction"
            shown = (out.command or out.step.display) if single and not out.step.wait else None
            row = row_for(unit, shown)
            if row.lines:   # (a transaction's label is its EXEC's, on its last line)
                at = len(row.lines) - 1 if unit.kind == "transaction" else 0
                row.lines[at] = f"{client}{index + 1}  {row.lines[at]}"
            rows.append(((unit.seq, 0), row))
            last = max(last, unit.seq)
    for n, (after, client, frame) in enumerate(pushes):
        rows.append(((after, 2, n), LaneRow(None, client, [tr("{client} receives", client=client)], reply=frame)))
    rows.sort(key=lambda item: item[0])
    for n, (_, row) in enumerate(rows, 1):
        row.seq = n
    return [row for _, row in rows]
