"""An exploration as text (columns in terminal cells), Markdown or JSON."""

from __future__ import annotations

import json

from playground.cells import pad, width
from playground.explore.explorer import Exploration, OutcomeClass
from playground.explore.schedules import label

GOAL_MARK = "⚠"
OWN_MARK = "◀"


def figures(r: Exploration) -> str:
    n = f"{r.total:,} schedules (every interleaving that keeps each client's order)"
    if r.sampled:
        own = ", and the scenario's own order" if r.runs > r.limit else ""
        return (f"{n}: more than --limit {r.limit:,},\nso a reproducible sample of {r.limit:,} "
                f"(seed {r.seed}) was run{own}.")
    if r.covered != r.total:
        return (f"{n}, {r.covered:,} of them possible\n(a blocked client cannot move until "
                f"something unblocks it): {r.runs:,} run.")
    if r.reduced and r.runs != r.covered:
        return (f"{n}: {r.runs:,} run,\none of each group of schedules that differ only in the "
                "order of independent steps (they end the same).")
    return f"{n}: all run."


def outcome_lines(r: Exploration, cls: OutcomeClass) -> list[str]:
    lines = [f"deadlock: {cls.deadlock}"] if cls.deadlock else []
    keys = r.keys
    lines += [f"{k} = {cls.snapshot.describe(k)}" for k in keys]
    return lines or ["(no keys)"]


def _marks(cls: OutcomeClass) -> list[str]:
    marks = []
    if cls.goal_reached:
        marks.append(f"{GOAL_MARK} the challenge's state")
    if cls.own:
        marks.append(f"{OWN_MARK} the scenario's own order")
    return marks


def _header(r: Exploration) -> list[str]:
    s = r.scenario
    part = f"part {r.part_number}" + (f" ({r.part.name})" if r.part.name else "")
    lines = [f"{s.id}: {s.title}", f"{part}, on {r.server}"]
    for client, steps in r.programs.items():
        lines.append(f"  {client}: " + " · ".join(f"{client}{i} {d}" for i, d in enumerate(steps, 1)))
    if r.goal:
        lines.append(f"Challenge: {r.goal}")
    return lines


def render_text(r: Exploration) -> str:
    lines = _header(r) + ["", figures(r)]
    count = len(r.classes)
    lines.append(f"{count} outcome{'s' if count != 1 else ''}:")
    rows = [(f"{c.count:,}", outcome_lines(r, c), c.label, _marks(c)) for c in r.classes]
    w_count = max([width("schedules")] + [width(a) for a, *_ in rows])
    w_out = max([width("outcome")] + [width(x) for _, out, *_ in rows for x in out])
    w_first = max([width("first schedule")] + [width(f) for _, _, f, _ in rows])
    lines.append("  " + "  ".join([pad("schedules", w_count), pad("outcome", w_out), "first schedule"]))
    for n, out, first, marks in rows:
        for i in range(max(len(out), len(marks))):
            cells = [pad(n if i == 0 else "", w_count), pad(out[i] if i < len(out) else "", w_out),
                     pad(first if i == 0 else "", w_first), marks[i] if i < len(marks) else ""]
            lines.append(("  " + "  ".join(cells)).rstrip())
    lines += ["", summary_line(r)]
    return "\n".join(lines) + "\n"


def summary_line(r: Exploration) -> str:
    parts = []
    if r.goal is not None:
        reached = sum(c.count for c in r.classes if c.goal_reached)
        parts.append(f"{reached:,} of {r.covered:,} schedules reach the challenge's state ({GOAL_MARK})")
    deadlocks = sum(c.count for c in r.classes if c.deadlock)
    if deadlocks:
        parts.append(f"{deadlocks:,} schedule" + ("s end" if deadlocks != 1 else " ends") + " in a deadlock")
    own = next((c for c in r.classes if c.own), None)
    if own is not None:
        parts.append(f"the scenario's own order ({label(r.own_order)}) is in the outcome marked {OWN_MARK}")
    if len(r.classes) == 1:
        parts.insert(0, "every schedule ends the same")
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "." if text else ""


def render_markdown(r: Exploration) -> str:
    s = r.scenario
    lines = [f"## {s.title}", "", f"`{s.id}`, part {r.part_number}, on {r.server}", ""]
    for client, steps in r.programs.items():
        lines.append(f"- **{client}**: " + ", ".join(f"{client}{i} `{_md(d)}`" for i, d in enumerate(steps, 1)))
    if r.goal:
        lines += ["", f"Challenge: {_md(r.goal)}"]
    lines += ["", figures(r), "", "| schedules | outcome | first schedule | |", "|---:|---|---|---|"]
    for c in r.classes:
        out = "<br>".join(f"`{_md(x)}`" for x in outcome_lines(r, c))
        lines.append(f"| {c.count:,} | {out} | `{c.label}` | {'<br>'.join(_md(m) for m in _marks(c))} |")
    summary = summary_line(r)
    if summary:
        lines += ["", summary]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def to_json(r: Exploration) -> dict:
    return {
        "scenario": r.scenario.id, "title": r.scenario.title, "part": r.part_number, "server": r.server,
        "programs": r.programs, "schedules": r.total, "covered": r.covered, "run": r.runs,
        "sampled": r.sampled, "limit": r.limit, "seed": r.seed, "reduced": r.reduced,
        "goal": r.goal, "own_order": label(r.own_order) if r.own_order else None,
        "classes": [{
            "count": c.count, "run": c.runs, "first": c.label,
            "state": {k: _key_json(c, k) for k in r.keys},
            "deadlock": c.deadlock, "goal_reached": c.goal_reached, "own_order": c.own,
        } for c in r.classes],
    }


def _key_json(cls: OutcomeClass, key: str) -> dict | None:
    state = cls.snapshot.keys.get(key)
    if state is None:
        return None
    value = state.items[0] if state.type in ("string", "stream") else list(state.items)
    return {"type": state.type, "value": value, "expires": state.expires}


def render_json(r: Exploration) -> str:
    return json.dumps(to_json(r), ensure_ascii=False, indent=2) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
