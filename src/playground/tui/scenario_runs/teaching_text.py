"""What teaching mode writes besides the steps: named scripts' source, the scenario
clock, folded check marks, and why a check failed when only time passed."""

from __future__ import annotations

import re

from rich.text import Text

from playground.engine.catalogue import ttl_set
from playground.i18n import tr
from playground.scenario.model import Scenario, Step
from playground.tui.lua_source import lua_text

_NAME = re.compile(r"\$([A-Za-z_][A-Za-z0-9_-]*)")


def scripts_in(scenario: Scenario, shown: str) -> list[tuple[str, str]]:
    """The scenario's named scripts a step's command refers to (`$name`), with their source."""
    found = []
    for name in dict.fromkeys(_NAME.findall(shown or "")):
        if name in scenario.scripts:
            found.append((name, scenario.scripts[name].strip("\n")))
    return found


def script_block(scenario: Scenario, shown: str) -> Text:
    """Each named script of a command: `$name =` and its coloured source."""
    text = Text()
    for name, source in scripts_in(scenario, shown):
        text.append(f"${name} =\n", style="bold magenta")
        text.append_text(lua_text(source))
    return text


def step_shown(ran: int, total: int) -> str:
    """Where a lesson is, as its tab's narration says it and the class overview repeats it:
    "step N of M" (N: the next step, the steps run + 1), or done.

    Args:
        ran: the steps run so far (the stepper's cursor).
        total: the lesson's steps.
    """
    if ran >= total:
        return tr("done: {total} steps", total=total)
    return tr("step {n} of {total}", n=ran + 1, total=total)


def clock(seconds: float) -> str:
    """A scenario clock as the narration's header shows it (m:ss)."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _ttl_set_by(step: Step, keys: set[bytes]) -> tuple[bytes, float] | None:
    """(key, seconds) when the step's command gives one of `keys` an expiry."""
    given = ttl_set(step.argv or ())
    if given is not None and given[0] in keys:
        return given
    for check in step.state:
        if check.key in keys and check.ttl is not None and check.ttl[1] >= 0:
            return check.key, float(check.ttl[1])
    return None


def time_ran_out(results, ran_at: list[float], index: int) -> str | None:
    """Whether step `index` failed only because wall time passed: an earlier step gave
    a key it checks (or uses) an expiry shorter than the time since, although the
    scenario's own sleeps in between stay under it. Returns the sentence that says so."""
    result = results[index]
    keys = {c.what.split(" ", 1)[1].encode() for c in result.checks
            if not c.ok and c.what.startswith("state ")}
    keys |= set((result.step.argv or ())[1:])
    if not keys or index >= len(ran_at):
        return None
    for j in range(index - 1, -1, -1):
        found = _ttl_set_by(results[j].step, keys)
        if found is None or j >= len(ran_at):
            continue
        key, ttl = found
        paused = ran_at[index] - ran_at[j]
        planned = sum(r.step.sleep for r in results[j + 1:index + 1])
        if paused > ttl > planned:
            name = key.decode("utf-8", "replace")
            return tr("{key}'s {ttl:g} s TTL ran out while paused {paused:.0f} s: the lesson "
                      "expects the next step within {ttl:g} s. p replays up to the previous step "
                      "on a fresh server at scenario speed; then Space runs this one in time.",
                      key=name, ttl=ttl, paused=paused)
        return None
    return None


def when_text(step: Step) -> str:
    """A step's `when` condition as the file wrote it, e.g. "stock > 0"."""
    when = step.when
    if isinstance(when, tuple) and len(when) == 3:
        name, op, literal = when
        return f"{name} {op} {literal}"
    return str(getattr(when, "source", None) or when)
