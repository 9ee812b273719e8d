"""An exploration as text (columns in terminal cells), Markdown or JSON."""

from __future__ import annotations

from playground.cells import pad, width
from playground.explore.anomaly import deciding_text
from playground.explore.outcomes import Exploration, OutcomeClass
from playground.explore.schedules import label
from playground.explore.witnesses import Witness
from playground.gate.program_argv import shown_program
from playground.i18n import tr, trn
from playground.scenario import lanes
from playground.scenario.programs.lesson_format import part_programs
from playground.visible import json_text

GOAL_MARK = "⚠"
OWN_MARK = "◀"
RARE = 3   # a sampled outcome seen fewer times than this is said to be rare


def figures(r: Exploration) -> str:
    """How many schedules there are and which of them ran.

    Args:
        r: the exploration.
    """
    n = trn("{n:,} schedule (every interleaving that keeps each client's order)",
            "{n:,} schedules (every interleaving that keeps each client's order)", r.total)
    if r.sampled and r.scenario.programs and typed(r):   # (free play's programs: a search too)
        return tr("At least {n:,} schedules: more than {limit:,}, so the search stopped after the first "
                  "{limit:,}, and the serial orders ran too.", n=r.total, limit=r.limit)
    if r.sampled and r.scenario.programs:   # (explore/program_moves.py: no sample, a search)
        return tr("At least {n:,} schedules: more than --limit {limit:,}, so the search stopped after the "
                  "first {limit:,}\n(the scenario's own order first), and the serial orders ran too.",
                  n=r.total, limit=r.limit)
    if r.sampled:
        own = (tr(", and the serial orders and the order you typed") if typed(r) else
               tr(", and the serial orders and the scenario's own order")) if r.runs > r.limit else ""
        return tr("{schedules}: more than --limit {limit:,},\nso a reproducible sample of {limit:,} "
                  "(seed {seed}) was run{own}.", schedules=n, limit=r.limit, seed=r.seed, own=own)
    if r.covered != r.total:
        return tr("{schedules}, {covered:,} of them possible\n(a blocked client cannot move until "
                  "something unblocks it): {runs:,} run.", schedules=n, covered=r.covered, runs=r.runs)
    if r.reduced and r.runs != r.covered:
        return tr("{schedules}: {runs:,} run,\none of each group of schedules that differ only in the "
                  "order of independent steps (they end the same).", schedules=n, runs=r.runs)
    return tr("{schedules}: all run.", schedules=n)


def outcome_lines(r: Exploration, cls: OutcomeClass) -> list[str]:
    """What an outcome is: its deadlock, each client's replies (when compared), each key's state.

    Args:
        r: the exploration.
        cls: the outcome.
    """
    lines = [tr("deadlock: {what}", what=cls.deadlock)] if cls.deadlock else []
    lines += program_lines(cls)
    if r.by in ("replies", "both"):
        lines += [tr("{client} saw: {replies}", client=client, replies=" · ".join(seen) or "-")
                  for client, seen in (cls.first_run.replies if cls.first_run else ())]
    keys = r.keys
    for k in keys:
        lines.append(f"{k} = {cls.snapshot.describe(k)}")
        lines += [f"  {k} {group}" for group in cls.snapshot.describe_groups(k)]   # a stream's consumer groups
    return lines or [tr("(no keys)")]


def program_lines(cls: OutcomeClass) -> list[str]:
    """How the outcome's programs ended, where it says something: a non-zero exit status
    ("A exited with status 3 after A1") and a function's return value."""
    out = []
    for client, status, returned, moves in cls.first_run.ended if cls.first_run else ():
        if status is None:
            out.append(tr("{client} still waited for a message at the end (stopped)", client=client))
        if status:
            out.append(tr("{client} exited with status {status} after {move}", client=client, status=status,
                          move=f"{client}{moves}") if moves else
                       tr("{client} exited with status {status} before its first command", client=client,
                          status=status))
        if returned is not None:
            out.append(tr("{client} returned {value}", client=client, value=returned))
    return out


def serial_words(order) -> str:
    """A serial order in words ("A then B").

    Args:
        order: the clients in order.
    """
    return tr(" then ").join(order)


def typed(r: Exploration | None) -> bool:
    """Free play: the "own order" is the order the lines were typed in, not a scenario's."""
    return r is not None and r.scenario.id == "free-play"


def by_hand(r: Exploration | None) -> bool:
    """Free play's programs started by hand (their own order: the order their commands ran in)."""
    return r is not None and typed(r) and bool(r.scenario.programs)


def own_mark(r: Exploration | None) -> str:
    """What the own-order mark stands for: the order typed, run, or the scenario's own.

    Args:
        r: the exploration (None: a scenario's).
    """
    if by_hand(r):
        return tr("{mark} the order it ran in", mark=OWN_MARK)
    return tr("{mark} the order you typed", mark=OWN_MARK) if typed(r) else \
        tr("{mark} the scenario's own order", mark=OWN_MARK)


def _marks(cls: OutcomeClass, r: Exploration | None = None) -> list[str]:
    marks = []
    if cls.goal_reached:
        marks.append(tr("{mark} the challenge's state", mark=GOAL_MARK))
    if cls.own:
        marks.append(own_mark(r))
    if r is not None and r.sampled and cls.runs < RARE:
        marks.append(tr("seen in {runs} of the sampled schedules only", runs=cls.runs))
    marks += [tr("same as {order}", order=serial_words(order)) for order in cls.serial]
    if not cls.serial and r is not None and r.serial_known:
        marks.append(tr("no serial order gives this"))
    return marks


def _header(r: Exploration) -> list[str]:
    s = r.scenario
    part = tr("part {n}", n=r.part_number) + (f" ({r.part.name})" if r.part.name else "")
    lines = [f"{s.id}: {s.title}", tr("{part}, on {server}", part=part, server=r.server)]
    for client, steps in r.programs.items():
        lines.append(f"  {client}: " + " · ".join(f"{client}{i} {d}" for i, d in enumerate(steps, 1)))
        if client in s.programs:   # its moves are the commands it sends (explore/program_moves.py)
            program = shown_program(part_programs(s, r.part)[client])
            lines[-1] += (" · " + tr("then each further command {program} sends", program=program) if steps
                          else tr("each command {program} sends", program=program))
    if r.goal:
        lines.append(tr("Challenge: {goal}", goal=r.goal))
    return lines


def render_text(r: Exploration) -> str:
    """The exploration as text for a terminal.

    Args:
        r: the exploration.
    """
    lines = _header(r) + ["", figures(r)]
    count = len(r.classes)
    lines.append(tr("{count} outcome:", count=count) if count == 1 else tr("{count} outcomes:", count=count))
    rows = [(f"{n}. {c.count:,}", outcome_lines(r, c), c.label, _marks(c, r)) for n, c in enumerate(r.classes, 1)]
    heads = (tr("schedules"), tr("outcome"), tr("first schedule"))
    w_count = max([width(heads[0])] + [width(a) for a, *_ in rows])
    w_out = max([width(heads[1])] + [width(x) for _, out, *_ in rows for x in out])
    w_first = max([width(heads[2])] + [width(f) for _, _, f, _ in rows])
    lines.append("  " + "  ".join([pad(heads[0], w_count), pad(heads[1], w_out), heads[2]]))
    for n, out, first, marks in rows:
        for i in range(max(len(out), len(marks))):
            cells = [pad(n if i == 0 else "", w_count), pad(out[i] if i < len(out) else "", w_out),
                     pad(first if i == 0 else "", w_first), marks[i] if i < len(marks) else ""]
            lines.append(("  " + "  ".join(cells)).rstrip())
    lines += ["", summary_line(r)]
    lines += rare_lines(r)
    lines += witness_lines(r)
    return "\n".join(lines) + "\n"


def rare(r: Exploration) -> list[int]:
    """The numbers (1-based, report order) of the outcomes a sample saw fewer than RARE times."""
    return [n for n, c in enumerate(r.classes, 1) if r.sampled and c.runs < RARE]


def rare_lines(r: Exploration) -> list[str]:
    """For a sample: how many schedules ran, and the outcomes seen fewer than RARE times.

    Args:
        r: the exploration.
    """
    if not r.sampled:
        return []
    numbers = rare(r)
    head = tr("Sampled: {runs:,} of {total:,} schedules were run, so an outcome may be missing.",
              runs=r.runs, total=r.total)
    if not numbers:
        return ["", head + " " + tr("Every outcome was seen at least {n} times.", n=RARE)]
    return ["", head + " " + tr("Seen fewer than {n} times: outcome {numbers}.", n=RARE,
                                numbers=", ".join(str(n) for n in numbers))]


def switches_words(n: int) -> str:
    """A number of switches in words.

    Args:
        n: the number of switches.
    """
    return tr("no switch") if n == 0 else trn("{n} switch", "{n} switches", n)


def witness_line(cls: OutcomeClass, w: Witness) -> str:
    """`A1 B1 B2 A2 (1 switch): lost update: A1 read counter before B2 wrote it, ...`

    Args:
        cls: the outcome.
        w: its simplest schedule.
    """
    head = f"{w.label} ({switches_words(w.switches)})"
    if w.anomaly is not None:
        return tr("{schedule}: {name}: {proof}.", schedule=head, name=w.anomaly.name, proof=w.anomaly.explain())
    if cls.serial:
        return tr("{schedule}: same as {order}.", schedule=head, order=serial_words(cls.serial[0]))
    return head


def _witnessed(r: Exploration) -> list[tuple[int, OutcomeClass, Witness]]:
    """The outcomes with a simplest schedule: (number, outcome, schedule)."""
    return [(n, c, c.witness) for n, c in enumerate(r.classes, 1) if c.witness is not None]


def simplest_heading(r: Exploration) -> str:
    """The heading of the simplest schedules (in the sample, when sampled).

    Args:
        r: the exploration.
    """
    if r.sampled:
        return tr("Each outcome's simplest schedule in the sample (fewest switches among the schedules run: "
                  "moves to another client while one still has steps):")
    return tr("Each outcome's simplest schedule (fewest switches: moves to another client while "
              "one still has steps):")


def witness_lines(r: Exploration, total: int = 80) -> list[str]:
    """Each outcome's simplest schedule, the anomaly it shows and its deciding order,
    and its steps as lanes."""
    shown = _witnessed(r)
    if not shown:
        return []
    out = ["", simplest_heading(r)]
    for n, cls, w in shown:
        out.append(f"{n}. " + witness_line(cls, w))
        if w.anomaly is not None and w.anomaly.deciding:
            out.append("   " + tr("Deciding order: {order}.", order=deciding_text(w.anomaly)))
        if not w.replayed:
            out.append("   " + tr("(run again, its simplest equivalent schedule ended differently: "
                                  "this is the outcome's own run)"))
        if w.rows:
            out += ["   " + line for line in lanes.render_text(w.rows, list(r.programs), total - 3).splitlines()]
    return out


def summary_line(r: Exploration) -> str:
    """The exploration's last line: schedules reaching the goal, deadlocks, and where the own order ended.

    Args:
        r: the exploration.
    """
    parts = []
    if r.goal is not None:
        reached = sum(c.reached for c in r.classes)
        parts.append(tr("{reached:,} of {covered:,} schedules reach the challenge's state ({mark})",
                        reached=reached, covered=r.covered, mark=GOAL_MARK))
    deadlocks = sum(c.count for c in r.classes if c.deadlock)
    if deadlocks:
        parts.append(tr("{count:,} schedules end in a deadlock", count=deadlocks) if deadlocks != 1
                     else tr("{count:,} schedule ends in a deadlock", count=deadlocks))
    own = next((c for c in r.classes if c.own), None)
    if own is not None:
        parts.append(tr("the order it ran in ({order}) is in the outcome marked {mark}", order=label(r.own_order or ()),
                        mark=OWN_MARK) if by_hand(r) else
                     tr("the order you typed ({order}) is in the outcome marked {mark}", order=label(r.own_order or ()),
                        mark=OWN_MARK) if typed(r) else
                     tr("the scenario's own order ({order}) is in the outcome marked {mark}",
                        order=label(r.own_order or ()), mark=OWN_MARK))
    if len(r.classes) == 1:
        parts.insert(0, tr("every schedule run ended the same this time") if r.random else
                     tr("every schedule gives each client the same replies (the final keys are not compared: "
                        "--by both compares them too)") if r.by == "replies" else
                     tr("every schedule run ends the same") if r.sampled else
                     tr("every schedule ends the same"))
    text = tr("; ").join(parts)
    text = tr("{sentence}.", sentence=text[:1].upper() + text[1:]) if text else ""
    if r.random:
        text += (" " if text else "") + random_sentence(r)
    if r.clock:
        text += (" " if text else "") + clock_sentence(r)
    if r.listened:
        text += (" " if text else "") + listened_sentence(r)
    for client, command in r.untimed.items():
        text += (" " if text else "") + tr(
            "Not explored: {client}'s {command} blocked with no timeout of its own; a client-side socket timeout "
            "in {client} ending that wait first is not tried.", client=client, command=command)
    return text


def listened_sentence(r: Exploration) -> str:
    """The note on programs that waited for pushed data: how their own timeouts were tried.

    Args:
        r: the exploration.
    """
    from playground.explore.one_schedule import WAIT_ALONE
    timed = [p for p in r.listened if p not in r.forever]
    text = [tr("While {programs} waited for a message, the others moved, and its own wait was also let end first, "
               "given {seconds:g} s: a client-side timeout longer than that is taken as never ending before "
               "the others move.", programs=tr(", ").join(timed), seconds=WAIT_ALONE)] if timed else []
    if r.forever:
        text.append(tr("While {programs} waited for a message, the others moved; its wait has no timeout of its "
                       "own, so nothing but a message could end it.", programs=tr(", ").join(r.forever)))
    return " ".join(text)


def random_sentence(r: Exploration) -> str:
    """The note on steps whose replies the server says may differ by chance.

    Args:
        r: the exploration.
    """
    return tr("By chance too: the server says {steps} may give another result in another run "
              "(its nondeterministic tips in COMMAND INFO), so the same schedule may end another way.",
              steps=tr(", ").join(r.random))


def clock_sentence(r: Exploration) -> str:
    """The note on steps whose replies hold readings of the clock, compared without them.

    Args:
        r: the exploration.
    """
    return tr("By the clock: the replies of {steps} hold readings of the clock (a TTL, an idle time) that "
              "differ from run to run, so they are compared without them (shown as (integer) …).",
              steps=tr(", ").join(r.clock))


def render_markdown(r: Exploration) -> str:
    """The exploration as Markdown.

    Args:
        r: the exploration.
    """
    s = r.scenario
    lines = [f"## {s.title}", "", tr("`{id}`, part {n}, on {server}", id=s.id, n=r.part_number, server=r.server), ""]
    for client, steps in r.programs.items():
        lines.append(f"- **{client}**: " + ", ".join(f"{client}{i} `{_md(d)}`" for i, d in enumerate(steps, 1)))
    if r.goal:
        lines += ["", tr("Challenge: {goal}", goal=_md(r.goal))]
    heads = (tr("schedules"), tr("outcome"), tr("first schedule"))
    lines += ["", figures(r), "", "| {} | {} | {} | |".format(*heads), "|---:|---|---|---|"]
    for c in r.classes:
        out = "<br>".join(f"`{_md(x)}`" for x in outcome_lines(r, c))
        lines.append(f"| {c.count:,} | {out} | `{c.label}` | {'<br>'.join(_md(m) for m in _marks(c, r))} |")
    summary = summary_line(r)
    if summary:
        lines += ["", summary]
    lines += rare_lines(r)
    shown = _witnessed(r)
    if shown:
        lines += ["", simplest_heading(r)]
    for n, cls, w in shown:
        lines += ["", f"{n}. " + _md(witness_line(cls, w))]
        if w.anomaly is not None and w.anomaly.deciding:
            lines += ["", tr("Deciding order: {order}.", order=deciding_text(w.anomaly))]
        if w.rows:
            lines += ["", lanes.render_markdown(w.rows, list(r.programs)).rstrip("\n")]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def to_json(r: Exploration) -> dict:
    """The exploration as JSON-able values.

    Args:
        r: the exploration.
    """
    return {
        "scenario": r.scenario.id, "title": r.scenario.title, "part": r.part_number, "server": r.server,
        "programs": r.programs, "schedules": r.total, "covered": r.covered, "run": r.runs,
        "sampled": r.sampled, "limit": r.limit, "seed": r.seed, "reduced": r.reduced,
        "goal": r.goal, "own_order": label(r.own_order) if r.own_order else None, "by": r.by,
        "random": r.random, "clock": r.clock, "listened": r.listened, "forever": r.forever,
        "untimed": r.untimed,
        "rare_below": RARE if r.sampled else None,
        "rare": rare(r) if r.sampled else None,
        "classes": [{
            "number": n, "count": c.count, "run": c.runs, "first": c.label,
            "state": {k: _key_json(c, k) for k in r.keys},
            "replies": dict(c.first_run.replies) if c.first_run else {},
            "programs": {client: {"status": status, "returned": returned, "moves": moves}
                         for client, status, returned, moves in (c.first_run.ended if c.first_run else ())},
            "serial": [list(order) for order in c.serial] if r.serial_known or c.serial else None,
            "deadlock": c.deadlock, "goal_reached": c.goal_reached, "own_order": c.own,
            "witness": _witness_json(c),
        } for n, c in enumerate(r.classes, 1)],
    }


def _witness_json(cls: OutcomeClass) -> dict | None:
    w = cls.witness
    if w is None:
        return None
    return {"schedule": w.label, "switches": w.switches, "replayed": w.replayed,
            "anomaly": w.anomaly.as_json() if w.anomaly is not None else None,
            "lanes": [{"n": row.seq, "client": row.client, "lines": row.lines, "reply": row.reply}
                      for row in w.rows]}


def _key_json(cls: OutcomeClass, key: str) -> dict | None:
    state = cls.snapshot.keys.get(key)
    if state is None:
        return None
    value = state.items[0] if state.type == "string" else list(state.items)
    out = {"type": state.type, "value": value, "shown": state.shown, "expires": state.expires,
           "ttl": state.ttl_class}
    if state.type == "stream":
        out["groups"] = [g.as_json() for g in state.groups]
    return out


def render_json(r: Exploration) -> str:
    """The exploration as indented JSON text.

    Args:
        r: the exploration.
    """
    return json_text(to_json(r), indent=2) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
