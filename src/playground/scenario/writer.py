"""A scenario made in the app (a schedule the explorer turned into a lesson) written as a
scenario file's TOML text, so that it can travel (serve --class carries it to the
learners). What it cannot write faithfully it refuses (ScenarioError, one line): the
text is read back and must give the same parts, step for step."""

from __future__ import annotations

from pathlib import Path

from playground.errors import ScenarioError
from playground.i18n import tr
from playground.scenario.model import Scenario, Step
from playground.scenario.recorder import toml_string
from playground.scenario.substitution import escape


def _cannot(scenario: Scenario, what: str) -> ScenarioError:
    """`what`: a field's name (as in a scenario file) or a step."""
    return ScenarioError(tr("{id}: made in the app; this cannot be written as a scenario file: {what}",
                            id=scenario.id, what=what))


def _step(step: Step) -> list[str]:
    out = ["[[parts.steps]]", f"client = {toml_string(step.client)}"]
    if step.wait:
        out.append("wait = true")
    elif step.reconnect:
        out.append("reconnect = true")
    else:
        out.append(f"command = {toml_string(step.display if step.template else escape(step.display))}")
    for name in ("blocking", "server_stops", "bound"):
        if getattr(step, name):
            out.append(f"{name} = true")
    if step.sleep:
        out.append(f"sleep = {step.sleep!r}")
    if step.save:
        out.append(f"save = {toml_string(step.save)}")
    if step.when is not None:
        out.append(f"when = {toml_string(step.when.source)}")
    for name in ("reply", "error", "match", "pause"):
        if getattr(step, name) is not None:
            out.append(f"{name} = {toml_string(getattr(step, name))}")
    if step.narration:
        out.append(f"narration = {toml_string(step.narration)}")
    return out


def scenario_toml(scenario: Scenario) -> str:
    """The TOML text of `scenario`, in the language its texts were loaded in."""
    from playground.scenario.loader import parse_scenario
    import tomllib

    for what, there in (("programs", scenario.programs), ("challenge", scenario.challenge),
                        ("requires", scenario.requires or any(p.requires for p in scenario.parts))):
        if there:
            raise _cannot(scenario, what)
    lesson = scenario.lesson or scenario.title  # free play's typed commands have no lesson text; a file must
    out = [f"title = {toml_string(scenario.title)}", f"lesson = {toml_string(lesson)}",
           "tags = [" + ", ".join(toml_string(t) for t in scenario.tags) + "]",
           "clients = [" + ", ".join(toml_string(c) for c in scenario.clients) + "]"]
    if scenario.topology != "single":
        out.append(f"topology = {toml_string(scenario.topology)}")
    if scenario.replicas is not None:
        out.append(f"replicas = {scenario.replicas}")
    for name in ("script_time_limit_ms", "time_limit"):
        if getattr(scenario, name) is not None:
            out.append(f"{name} = {getattr(scenario, name)!r}")
    if scenario.scripts:
        out.append("[scripts]")
        out += [f"{toml_string(name)} = {toml_string(source)}" for name, source in scenario.scripts.items()]
    for part in scenario.parts:
        out += ["", "[[parts]]", f"name = {toml_string(part.name)}",
                "setup = [" + ", ".join(toml_string(escape(line)) for line in part.setup_display) + "]"]
        for step in part.steps:
            if step.server or step.release or step.per_server or step.state or step.predict:
                raise _cannot(scenario, tr("step {n}", n=step.number))
            out += [""] + _step(step)
    text = "\n".join(out) + "\n"
    try:
        again = parse_scenario(tomllib.loads(text), Path(f"{scenario.id}.toml"), scenario.language)
    except (ScenarioError, tomllib.TOMLDecodeError) as exc:
        raise _cannot(scenario, str(exc)) from None
    for mine, read in zip(scenario.parts, again.parts):
        for step, back in zip(mine.steps, read.steps):
            if step != back:
                raise _cannot(scenario, tr("step {n}", n=step.number))
        if (mine.setup, mine.setup_display, len(mine.steps)) != (read.setup, read.setup_display, len(read.steps)):
            raise _cannot(scenario, "setup")
    if len(scenario.parts) != len(again.parts):
        raise _cannot(scenario, "parts")
    return text
