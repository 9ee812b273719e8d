"""Transcripts of a scenario run: text (two lanes, A | B), Markdown, JSON lines. Whoever
writes them to a terminal or a file writes out their control characters
(playground/visible.py: `run`, `check`, the exports); JSON has none raw."""

from __future__ import annotations

from playground.cells import fold, pad, width, wrap
from playground.engine.why_text import LABEL as WHY_LABEL
from playground.scenario import lanes
from playground.scenario.runner import PartEnd, ScenarioResult, StepResult
from playground.scenario.model import Prediction, Scenario
from playground.i18n import N_, tr, tr_check, tr_in, trn
from playground.resp.cli_secrets import redact, redact_exchange, redact_line
from playground.visible import json_text, visible

OK, FAIL, SKIP = "✓", "✗", "–"
LANE = 38


def _check_lines(step: StepResult | PartEnd) -> list[str]:
    """Passed checks on one line, each failure on its own line with what went wrong."""
    passed = [tr_check(c.what) for c in step.checks if c.ok]
    lines = [f"{OK} " + tr(", ").join(passed)] if passed else []
    lines += [f"{FAIL} {tr_check(c.what)}: {c.detail}" for c in step.checks if not c.ok]
    return [visible(line) for line in lines]


def outcome_words(client: str, outcome) -> str:
    """How a part's program ended: `A: exit status 0, returned 'charged'`."""
    status = (tr("stopped by the playground") if outcome.status is None else
              tr("exit status {n}", n=outcome.status))
    if outcome.returned is not None:
        return tr("{client}: {status}, returned {value}", client=client, status=status, value=outcome.returned)
    return tr("{client}: {status}", client=client, status=status)


def text_end(end: PartEnd) -> str:
    """A part's end, after its steps and server order: how each program ended, and the
    part's `expect` checks."""
    lines = ["   " + tr("At the end:")]
    lines += ["      " + outcome_words(c, o) for c, o in end.outcomes.items()]
    lines += ["      " + line for line in _check_lines(end)]
    return "\n".join(lines) + "\n"


def _no_command(step) -> str:
    """What a step without a command shows in its client's lane."""
    if step.kind == "wait":
        return tr("(reply arrives)")
    return tr("(reconnects)") if step.kind == "reconnect" else step.display


def _cell_lines(step: StepResult) -> list[str]:
    """What goes in the client's lane for one step: the command, then its reply."""
    if step.skipped:
        return [visible(f"{step.step.client}> {_shown(step)}"),
                visible(f"{SKIP} " + tr("skipped: {reason}", reason=step.skipped))]
    shown, reply = redact_exchange(step.command or step.step.display, step.reply or "", _argv(step))
    sent = step.step.argv is not None or (step.step.release and step.command)  # (a program's: what it sent)
    head = f"{step.step.client}> {shown}" if sent else f"{step.step.client}: " + _no_command(step.step)
    if step.step.kind == "server":
        head = shown  # "[server] kill primary": no client typed it
    lines = [head] + [r.stable_line for r in step.redirects]  # the node named, never a port
    if step.note and step.step.wait:  # "(the reply to WAIT 1 100)", then that reply (as in the pane)
        lines.append(f"({step.note})")
    if reply:
        lines.extend(reply.rstrip("\n").split("\n"))
    if step.note and not step.step.wait:
        lines.append(f"({step.note})")
    return [visible(line) for line in lines]  # (laid out in cells as shown)


def _argv(step: StepResult) -> list[bytes] | None:
    argv = step.argv or step.step.argv
    return list(argv) if argv and not step.step.wait else None


def _shown(step: StepResult) -> str:
    """The step's command as a transcript shows it: secrets left out."""
    return redact_line(step.command or step.step.display, _argv(step))


def _indent(text: str, cells: int, first: str, rest: str) -> list[str]:
    """`text` wrapped in `cells`, its control characters written out first (so they
    are counted as shown, and a C1 space such as NEL is shown, not taken for a space)."""
    lines = wrap(visible(text, "\n"), cells - width(first))
    return [(rest if i else first) + line for i, line in enumerate(lines)]


def text_header(scenario: Scenario, server: str) -> str:
    """The transcript's head: the scenario's id, title, server, lesson and scripts.

    Args:
        scenario: the scenario run.
        server: the server it ran on, as shown.
    """
    lines = [f"━━ {scenario.id}: {scenario.title}", "   " + tr("on {server}", server=server)]
    lines += _indent(scenario.lesson, 76, "   ", "   ")
    for name, source in scenario.scripts.items():  # each named script once, before its use
        lines.append(f"   script ${name}:")
        lines += [f"     │ {line}" for line in source.strip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def _prediction_lines(predict: Prediction) -> list[str]:
    """The question, the choices (the answer marked), and the explanation."""
    lines = _indent(predict.question, 74, "      ? ", "        ")
    for i, choice in enumerate(predict.choices, 1):
        mark = "▸" if i == predict.answer else " "
        lines += _indent(choice, 74, f"      {mark} {i}) ", "           ")
    if predict.explain:
        lines += _indent(predict.explain, 74, "      = ", "        ")
    return lines


def text_part(scenario: Scenario, part_name: str, setup: tuple[str, ...]) -> str:
    """The head of one part in the transcript: its name, setup and the lanes' header.

    Args:
        scenario: the scenario run (its clients make the lanes).
        part_name: the part's name ("" for the only part).
        setup: the part's setup commands as shown.
    """
    out = []
    if part_name:
        out.append("\n   ── " + tr("part: {name}", name=part_name))
    if setup:
        out.append("   " + tr("setup: ") + "; ".join(redact_line(c) for c in setup))
    clients = scenario.clients
    head = "   #  " + " │ ".join(pad(c, LANE) for c in clients)
    out.append(head.rstrip())
    return "\n".join(out) + "\n"


def text_step(scenario: Scenario, step: StepResult) -> str:
    """One step's lines in the transcript, in its client's lane, with its checks.

    Args:
        scenario: the scenario run (its clients make the lanes).
        step: the step's result.
    """
    clients = scenario.clients
    lane = clients.index(step.step.client)
    cell = [piece for line in _cell_lines(step) for piece in fold(line, LANE)]  # at spaces, by cells
    out = []
    for i, line in enumerate(cell):
        cols = [" " * LANE] * len(clients)
        cols[lane] = pad(line, LANE)
        number = f"{step.step.number:>2} " if i == 0 else "   "
        out.append(("   " + number + " │ ".join(cols)).rstrip())
    for line in _check_lines(step):
        out.append("      " + line)
    if step.step.narration:
        out += _indent(step.step.narration, 74, "      ↳ ", "        ")
    if step.step.predict:
        out += _prediction_lines(step.step.predict)
    if step.step.pause:
        out += _indent(step.step.pause, 74, "      ⏸ ", "        ")
    for why in step.whys:
        out += _indent(why.text, 74, f"      ↳ {_why_label(scenario)}: ", "        ")
    return "\n".join(out) + "\n"


def _why_label(scenario: Scenario) -> str:
    return tr_in(getattr(scenario, "language", "en"), WHY_LABEL)


SERVER_ORDER = N_("Server order (#: when the server ran it; MULTI … EXEC and scripts run as one block):")


def text_lanes(scenario: Scenario, steps: list[StepResult]) -> str:
    """A part's steps in the order the server ran them (scenario/lanes.py), after the part."""
    rows = lanes.rows_from_steps(steps)
    if not rows:
        return ""
    title = tr_in(getattr(scenario, "language", "en"), SERVER_ORDER)
    body = lanes.render_text(rows, scenario.clients, 77, _why_label(scenario))
    return ("\n" + "\n".join(_indent(title, 80, "   ", "   ")) + "\n"
            + "".join("   " + line + "\n" for line in body.splitlines()) + "\n")


def text_summary(result: ScenarioResult) -> str:
    """The transcript's last line: how many checks passed, or why the run was skipped or stopped.

    Args:
        result: the run's result.
    """
    if result.skipped:
        return f"   {SKIP} " + tr("skipped: {reason}", reason=result.skipped) + "\n"
    if result.error:
        return f"   {FAIL} {result.error}\n"
    failed = len(result.failed_checks) + len(result.failed_end_checks)
    total = result.check_count
    if not total:  # nothing passed or failed: "0 of 0 checks passed" would say nothing
        return "\n".join(_indent(_no_checks(result), 80, f"   {OK} ", "     ")) + "\n"
    mark = OK if result.ok else FAIL
    return f"   {mark} " + tr("{passed} of {total} checks passed", passed=total - failed, total=total) + "\n"


def _no_checks(result: ScenarioResult) -> str:
    """What a run with no check says; for a lesson of programs and no steps, how many
    commands each program sent (each one was a move of its own: none ran free)."""
    scenario = result.scenario
    programs = [c for c in scenario.clients if c in scenario.programs]
    if not programs or any(part.steps for part in scenario.parts):
        return tr("no check ran: nothing passed or failed")
    sent = {c: 0 for c in programs}
    for step in result.steps:
        if step.step.release and step.argv and not step.skipped and step.step.client in sent:
            sent[step.step.client] += 1
    counts = tr(", ").join(trn("{client} sent {n} command", "{client} sent {n} commands", n, client=c)
                           for c, n in sent.items())
    return tr("no checks: the programs ran to their end ({counts})", counts=counts)


def render_text(result: ScenarioResult, server_order: bool = False) -> str:
    """The whole transcript (for tests and files); `run` streams the same pieces, with
    each part's server order after it (`server_order=True`)."""
    scenario = result.scenario
    out = [text_header(scenario, result.server)]
    current: str | None = None
    in_part: list[StepResult] = []
    for step in result.steps:
        if step.part != current:
            out.append(text_lanes(scenario, in_part) if server_order else "")
            current, in_part = step.part, []
            part = next(p for p in scenario.parts if p.name == step.part)
            out.append(text_part(scenario, part.name, part.setup_display))
        out.append(text_step(scenario, step))
        in_part.append(step)
    out.append(text_lanes(scenario, in_part) if server_order else "")
    out += [text_end(end) for end in result.ends]
    out.append(text_summary(result))
    return "".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def _md_code(text: str) -> str:
    return "<br>".join(f"`{line}`" if line else "" for line in text.replace("|", "\\|").split("\n"))


def _md_prediction(predict: Prediction) -> str:
    choices = "<br>".join((f"**{i}. {_md(c)}** ✓" if i == predict.answer else f"{i}. {_md(c)}")
                          for i, c in enumerate(predict.choices, 1))
    text = f"**Predict:** {_md(predict.question)}<br>{choices}"
    return text + (f"<br>*{_md(predict.explain)}*" if predict.explain else "")


def render_markdown(result: ScenarioResult) -> str:
    """A whole run as Markdown: header, scripts, each step's command, reply and checks.

    Args:
        result: the run's result.
    """
    scenario = result.scenario
    out = [f"## {scenario.id} — {scenario.title}", "", f"> {scenario.lesson}", "",
           tr("Server: {server}", server=result.server), ""]
    for name, source in scenario.scripts.items():
        out += [f"Script `${name}`:", "", "```lua", source.strip("\n"), "```", ""]
    if result.skipped:
        out += [tr("Skipped: {reason}", reason=result.skipped), ""]
        return "\n".join(out)
    for part in scenario.parts:
        steps = [s for s in result.steps if s.part == part.name]
        if part.name:
            out += [f"### {part.name}", ""]
        if part.setup_display:
            out += [tr("Setup: ") + ", ".join(f"`{redact_line(c)}`" for c in part.setup_display), ""]
        header = "| # | " + " | ".join(scenario.clients) + tr(" | checks | what happens |")
        out += [header, "|" + "---|" * (len(scenario.clients) + 3)]
        for s in steps:
            cells = [""] * len(scenario.clients)
            lane = scenario.clients.index(s.step.client)
            lines = _cell_lines(s)
            cells[lane] = _md_code("\n".join(lines))
            checks = "<br>".join(_md(line) for line in _check_lines(s))
            narration = _md(s.step.narration)
            if s.step.predict:
                narration += ("<br>" if narration else "") + _md_prediction(s.step.predict)
            if s.step.pause:
                narration += ("<br>" if narration else "") + "⏸ " + _md(s.step.pause)
            for why in s.whys:
                narration += ("<br>" if narration else "") + f"_↳ {_why_label(scenario)}: {_md(why.text)}_"
            out.append(f"| {s.step.number} | " + " | ".join(cells) + f" | {checks} | {narration} |")
        out.append("")
        for end in (e for e in result.ends if e.part == part.name):
            out += [tr("At the end:"), ""] + [f"- {_md(outcome_words(c, o))}" for c, o in end.outcomes.items()]
            out += [f"- {_md(line)}" for line in _check_lines(end)] + [""]
    out.append(text_summary(result).strip())
    out.append("")
    return "\n".join(out)


def json_step(result_server: str, scenario: Scenario, step: StepResult) -> str:
    """One step as a line of JSON (no raw control character: playground/visible.py)."""
    argv = _argv(step)
    return json_text({
        "scenario": scenario.id,
        "server": result_server,
        "part": step.part,
        "step": step.step.number,
        "client": step.step.client,
        "command": _shown(step) if not step.step.wait else None,
        "argv": [a.decode("utf-8", "replace") for a in redact(list(step.step.argv))] if step.step.argv else None,
        "reply": redact_exchange("", step.reply, argv)[1] if step.reply else step.reply,
        "redirects": [r.stable_line for r in step.redirects],
        "note": step.note,
        "skipped": step.skipped,
        "checks": [{"check": c.what, "ok": c.ok, "detail": c.detail} for c in step.checks],
        "state": step.touched,
        "why": [{"kind": w.kind, "seq": w.seq, "text": w.text} for w in step.whys],
    })


def json_end(result_server: str, scenario: Scenario, end: PartEnd) -> str:
    """A part's end as one JSON line (after its steps' lines): its `expect` checks and how
    each program ended."""
    return json_text({
        "scenario": scenario.id, "server": result_server, "part": end.part, "end": True,
        "checks": [{"check": c.what, "ok": c.ok, "detail": c.detail} for c in end.checks],
        "programs": {c: {"status": o.status, "returned": o.returned} for c, o in end.outcomes.items()},
    })


def check_line(result: ScenarioResult) -> str:
    """One line per scenario for `check`."""
    sid = result.scenario.id
    if result.skipped:
        return f"{SKIP} {sid}: " + tr("skipped ({reason})", reason=result.skipped)
    if result.error:
        return f"{FAIL} {sid}: {result.error}"
    skipped_steps = [s for s in result.steps if s.skipped]
    extra = trn(", {n} step skipped ({reason})", ", {n} steps skipped ({reason})", len(skipped_steps),
                reason=skipped_steps[0].skipped) if skipped_steps else ""
    if result.ok and not result.check_count:  # "0 checks passed" would say nothing: as run says it
        return f"{OK} {sid}: " + _no_checks(result) + extra
    if result.ok:
        return f"{OK} {sid}: " + trn("{n} check passed", "{n} checks passed", result.check_count) + extra
    if not result.failed_checks:   # a part's end: its expect
        end, check = result.failed_end_checks[0]
        more = len(result.failed_end_checks) - 1
        part = tr("part {name}: ", name=repr(end.part)) if end.part else ""
        return (f"{FAIL} {sid}: {part}" + tr("at the end") + f": {tr_check(check.what)}: {check.detail}"
                + (tr(" (+{count} more)", count=more) if more else ""))
    step, check = result.failed_checks[0]
    more = len(result.failed_checks) + len(result.failed_end_checks) - 1
    part = tr("part {name}: ", name=repr(step.part)) if step.part else ""
    return (f"{FAIL} {sid}: {part}" + tr("step {n}", n=step.step.number) + f" ({step.step.client}> {_shown(step)}): "
            f"{tr_check(check.what)}: {check.detail}" + (tr(" (+{count} more)", count=more) if more else ""))


def missing_line(scenario: Scenario) -> str:
    """For `check --lang zh`: the texts of a scenario shown in English for want of a
    translation (not a failure)."""
    missing = scenario.missing_translations()
    return "  " + tr("missing {lang}: ", lang=scenario.language) + ", ".join(missing) if missing else ""
