"""The narration panel's text in teaching mode: the clock, the lesson, where the
lesson is, what just happened, the next command with its named scripts' source; or a
challenge's goal and programs."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text

from playground.i18n import tr

from playground.tui.help_text import key_hint
from playground.tui.scenario_runs.teaching_text import script_block, step_shown, when_text

if TYPE_CHECKING:
    from playground.scenario.challenge import Challenge
    from playground.scenario.model import Part
    from playground.scenario.stepper import Stepper
    from playground.tui.scenario_runs.scenario_run import ScenarioRun


def _header(run: ScenarioRun) -> Text:
    text = Text()
    text.append(f" {run.clock_shown} ", style="bold reverse")
    text.append("  " + run.scenario.title, style="bold")
    text.append(f"  ({run.scenario.id})\n", style="dim")
    if run.sleep_until is not None:
        left = max(0.0, run.sleep_until - time.monotonic())
        text.append(tr("… time passes: {left:.1f} s left of this step's sleep", left=left) + "\n", style="bold yellow")
    return text


def _message_line(run: ScenarioRun) -> Text:
    """What the last action said, ending its own line."""
    message = run.message.copy()
    if message.plain and not message.plain.endswith("\n"):
        message.append("\n")
    return message


def narration_text(run: ScenarioRun) -> Text:
    """The narration panel's text for `run`'s scenario as it stands: the header, the
    lesson's summary (before and after the steps), then the challenge's goal and programs
    or where the lesson is and its next step, and a word on commands typed by hand."""
    text = _header(run)
    short = run.app.has_class("-short")
    summary = None if run.running() else Text(" ".join(run.scenario.lesson.split()) + "\n", style="italic")
    if summary is not None and not short:  # the lesson's summary: before and after, not in the way of the steps
        text.append_text(summary)
    if run.challenge is not None:
        _challenge_part(run, run.challenge, text)
    elif run.stepper is not None:
        _lesson_part(run, run.stepper, text)
    if summary is not None and short:  # (80×24: the panel's few rows show where the lesson is, and the
        text.append_text(summary)      # first step's key or its end, before the summary that scrolls)
    if not short and not run.presenter:  # short: the footer says it; presenter: F1
        text.append(key_hint(run.screen, off=lambda b: _led(run, b.action)) + "\n", style="dim")
    if run.typed and _led(run, "teach('rewind_here')"):   # (a class's learner in follow me: w is the teacher's)
        text.append(tr("You typed {commands} by hand: the next steps may not match the lesson.",
                       commands=run.typed_text()) + "\n", style="bold yellow")
    elif run.typed:
        text.append(tr("You typed {commands} by hand: the next steps may not match the lesson. "
                       "w rewinds to this step.", commands=run.typed_text()) + "\n", style="bold yellow")
    return text


def _led(run: ScenarioRun, action: str) -> bool:
    """Does `action` (a binding's, with its parameters) wait for the teacher in this tab
    (serve --class, a learner in follow me: tui/class_mode/class_mode.py `leads`)?"""
    from textual.actions import parse

    _, name, parameters = parse(action)
    return run.app.class_mode.leads(name, parameters)


def _challenge_part(run: ScenarioRun, challenge: Challenge, text: Text) -> None:
    """A challenge's: what the last move said, the goal, each client's program and where it is."""
    text.append_text(_message_line(run))  # a win first: a short screen must show it
    text.append(tr("Challenge: {goal}", goal=run.spec_goal()) + "\n", style="bold magenta")
    for client in challenge.programs:
        program, done = challenge.shown(client)
        ended = client in challenge.ended
        text.append(f"{client}: ", style="bold")
        for i, step in enumerate(program):
            style = "dim strike" if i < done else ("dim" if ended else "bold reverse" if i == done else "")
            if step.when is not None:  # oversell: what makes a client stop
                text.append(tr("if {condition}: ", condition=when_text(step)), style=(style + " italic").strip())
            text.append(step.display, style=style)
            text.append("  ")
        if ended:
            text.append(tr("(its program has ended)"), style="italic")
            failure = challenge.failure(client)
            if failure:  # it died, or ran past its time limit
                text.append("\n" + failure, style="bold red")
        text.append("\n")


def _lesson_part(run: ScenarioRun, st: Stepper, text: Text) -> None:
    """A lesson's: where it is, what just happened, the next step with its scripts."""
    total = len(st.flat)
    nxt = st.next_step()
    # The part of the step on screen: the header changes part when the part starts.
    part: Part | None
    if st.results:
        part = run.scenario.parts[st.flat[st.cursor - 1][0]]
    else:
        part = nxt[0] if nxt else None
    where = step_shown(st.cursor if nxt else total, total)
    if nxt is None and st.time_dependent:
        where += tr(" · time runs again: TTLs count down")
    if part is not None and part.name:
        where += tr(" · part: {name}", name=part.name)
    right, asked = run.score()
    if asked:
        where += tr(" · predictions {right}/{asked}", right=right, asked=asked)
    where += tr(" · typing {speed}", speed=tr("off") if not run.speed else f"{run.speed}/s")
    if run.autoplay:
        where += tr(" · autoplay ▶")
    text.append(where + "\n", style="bold cyan")
    start = len(text)
    text.append_text(_message_line(run))  # what just happened first: a long script must not hide it
    if run.presenter:  # for the back of the room
        text.stylize("bold", start, len(text))
    if nxt is not None:
        p, step = nxt
        if st.results and p is not part and p.name:
            text.append(tr("next part: {name}", name=p.name) + "\n", style="bold magenta")
        text.append(tr("next: {step}", step=run.next_line(step)) + "\n",
                    style="bold cyan" if run.presenter else "cyan")
        if step.sleep:
            text.append(tr("  (first {seconds:g} s pass: the step sleeps)", seconds=step.sleep) + "\n",
                        style="yellow")
        text.append_text(script_block(run.scenario, step.display))
