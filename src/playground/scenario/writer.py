"""A scenario made in the app (a schedule the explorer turned into a lesson) written as a
scenario file's TOML text, so that it can travel (serve --class carries it to the
learners). Its texts are written in every language they can be said in (i18n.Translated:
a lesson file's texts, the explorer's own words): the English one, and `<field>_<lang>`
where another language's differs, so each learner reads it in their own language. What it
cannot write faithfully it refuses (ScenarioError, one line): the text is read back in
every language and must give the same parts, step for step, and the same texts."""

from __future__ import annotations

import tomllib
from pathlib import Path

from playground.errors import ScenarioError
from playground.i18n import ENGLISH, LANGUAGES, again, tr
from playground.scenario.loader import parse_scenario
from playground.scenario.model import Scenario, Step
from playground.scenario.recorder import toml_string
from playground.scenario.substitution import escape
from playground.scenario.translations import scenario_in, translated_name
from playground.topology_kinds import SINGLE


def _cannot(scenario: Scenario, what: str) -> ScenarioError:
    """`what`: a field's name (as in a scenario file) or a step."""
    return ScenarioError(tr("{id}: made in the app; this cannot be written as a scenario file: {what}",
                            id=scenario.id, what=what))


def text_lines(field: str, text: str) -> list[str]:
    """`field = "..."` in English, and `field_<lang> = "..."` for each other language whose
    text differs (a text said in one language only: as it is).

    Args:
        field: the field's name in a scenario file (`title`, `narration`, ...).
        text: the text, an i18n.Translated one to be written in every language.
    """
    english = again(text, ENGLISH)
    return [f"{field} = {toml_string(english)}"] + [
        f"{translated_name(field, lang)} = {toml_string(again(text, lang))}"
        for lang in LANGUAGES if lang != ENGLISH and again(text, lang).strip() and again(text, lang) != english]


def script_lines(scripts: dict[str, str]) -> list[str]:
    """[scripts] in English, [scripts_<lang>] with the scripts another language has otherwise.

    Args:
        scripts: name -> Lua source, as a scenario's `scripts`.
    """
    out = []
    for lang in LANGUAGES:
        said = {name: again(source, lang) for name, source in scripts.items()}
        said = said if lang == ENGLISH else {name: text for name, text in said.items()
                                             if text != again(scripts[name], ENGLISH)}
        if said:
            out.append("[scripts]" if lang == ENGLISH else f"[scripts_{lang}]")
            out += [f"{toml_string(name)} = {toml_string(source)}" for name, source in said.items()]
    return out


def step_lines(step: Step) -> list[str]:
    """One step of a part as scenario file lines, its `[[parts.steps]]` header first.

    Args:
        step: the step; its `display` is written as the command, as it is when the step
            is a template (`${n+1}`, `$script`, `$$`), else with every `$` doubled.
    """
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
    for name in ("reply", "error", "match"):
        if getattr(step, name) is not None:
            out.append(f"{name} = {toml_string(getattr(step, name))}")
    if step.pause is not None:
        out += text_lines("pause", step.pause)
    if step.narration:
        out += text_lines("narration", step.narration)
    return out


def scenario_toml(scenario: Scenario) -> str:
    """The TOML text of `scenario`, in every language its texts are said in."""
    for what, there in (("programs", scenario.programs), ("challenge", scenario.challenge),
                        ("requires", scenario.requires or any(p.requires for p in scenario.parts))):
        if there:
            raise _cannot(scenario, what)
    lesson = scenario.lesson or scenario.title  # free play's typed commands have no lesson text; a file must
    out = [*text_lines("title", scenario.title), *text_lines("lesson", lesson),
           "tags = [" + ", ".join(toml_string(t) for t in scenario.tags) + "]",
           "clients = [" + ", ".join(toml_string(c) for c in scenario.clients) + "]"]
    if scenario.topology != SINGLE.name:
        out.append(f"topology = {toml_string(scenario.topology)}")
    if scenario.replicas is not None:
        out.append(f"replicas = {scenario.replicas}")
    for name in ("script_time_limit_ms", "time_limit"):
        if getattr(scenario, name) is not None:
            out.append(f"{name} = {getattr(scenario, name)!r}")
    if scenario.explore_by is not None:
        out.append(f"explore_by = {toml_string(scenario.explore_by)}")
    out += script_lines(scenario.scripts)
    for part in scenario.parts:
        out += ["", "[[parts]]", *text_lines("name", part.name),
                "setup = [" + ", ".join(toml_string(escape(line)) for line in part.setup_display) + "]"]
        for step in part.steps:
            if step.server or step.release or step.per_server or step.state or step.predict:
                raise _cannot(scenario, tr("step {n}", n=step.number))
            out += [""] + step_lines(step)
    text = "\n".join(out) + "\n"
    _check_read_back(scenario, text)
    return text


def _check_read_back(scenario: Scenario, text: str) -> None:
    """Refuse (`_cannot`) a text that, read back in each language, is not `scenario` as said in it."""
    read_in = {}
    for lang in dict.fromkeys([scenario.language, *LANGUAGES]):
        try:
            read_in[lang] = parse_scenario(tomllib.loads(text), Path(f"{scenario.id}.toml"), lang)
        except (ScenarioError, tomllib.TOMLDecodeError) as exc:
            raise _cannot(scenario, str(exc)) from None
    for lang, read in read_in.items():  # read back in each language: the scenario as said in it
        said = scenario_in(scenario, lang)
        if len(said.parts) != len(read.parts):
            raise _cannot(scenario, "parts")
        for mine, back in zip(said.parts, read.parts, strict=True):  # counts compared above
            for step, again_read in zip(mine.steps, back.steps, strict=False):  # counts compared below
                if step != again_read:
                    raise _cannot(scenario, tr("step {n}", n=step.number))
            if (mine.setup, mine.setup_display, len(mine.steps)) != (back.setup, back.setup_display, len(back.steps)):
                raise _cannot(scenario, "setup")
        if ((said.title, (said.lesson or said.title).strip(), said.scripts, [p.name for p in said.parts])
                != (read.title, read.lesson, read.scripts, [p.name for p in read.parts])):
            raise _cannot(scenario, tr("its texts in {lang}", lang=lang))
