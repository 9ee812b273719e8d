"""The lesson a class carries: the TOML text of what the teacher opened, so that every
learner's app opens exactly that, whether its own library has it or not (a recording the
teacher made in their tab, a lesson of another serve's --scenarios, a schedule picked in
the explorer). Each complaint is one line (a ScenarioError)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from playground.classroom.protocol import MAX_LESSON_BYTES
from playground.errors import ScenarioError
from playground.history import write_private
from playground.i18n import tr
from playground.scenario.fields import Where
from playground.scenario.library import scenario_files
from playground.scenario.loader import load_scenario
from playground.scenario.model import Scenario
from playground.scenario.source import read_source
from playground.scenario.writer import scenario_toml


def _too_big(lesson: str) -> ScenarioError:
    return ScenarioError(tr("{id}: too big for a class (more than {kb} KB of TOML)", id=lesson,
                            kb=MAX_LESSON_BYTES // 1024))


def _programs(lesson: str) -> ScenarioError:
    return ScenarioError(tr("{id}: its clients are programs, which a learner's app starts only from its own "
                            "copy of the lesson", id=lesson))


def shareable_source(scenario: Scenario, scenario_dirs=None) -> str:
    """The teacher's side: the text that makes `scenario` again, for the learners: its
    file's, or (a schedule the explorer made) the TOML written for it. A lesson with
    programs only from the library the learners share (`scenario_dirs`: serve's)."""
    path = scenario.path
    if path is not None and path.stem == scenario.id and path.is_file():
        raw = read_source(path, Where(path))
    else:
        raw = scenario_toml(scenario).encode()
    if len(raw) > MAX_LESSON_BYTES:
        raise _too_big(scenario.id)
    if scenario.programs and _own_copy(scenario.id, raw, scenario_dirs) is None:
        raise _programs(scenario.id)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: " + tr("not UTF-8 text ({reason})", reason=exc.reason)) from None


def _own_copy(lesson: str, raw: bytes, scenario_dirs) -> Path | None:
    """The library's file of this lesson (bundled, --scenarios; not a tab's recordings),
    byte for byte the teacher's: its programs then run from beside it, as from F7."""
    try:
        files = [f for f in scenario_files(scenario_dirs) if f.stem == lesson]
    except ScenarioError:
        return None
    for file in files:
        try:
            if read_source(file, Where(file)) == raw:
                return file
        except ScenarioError:
            continue
    return None


def file_name(lesson: str) -> str:
    """The file a learner keeps a lesson in: named by its id where a file name can be
    (its stem the id: a language switch reads it again, tui/language.py)."""
    name = re.sub(r"[/\\\x00-\x1f\x7f]+", "-", lesson).lstrip(".").encode()[:200].decode(errors="ignore")
    return (name or "lesson") + ".toml"


def learner_scenario(lesson: str, source: str, lang: str, scenario_dirs, class_dir: Path) -> Scenario:
    """A learner's side: the teacher's lesson from its text, checked like any scenario
    file (kept in `class_dir`, the learner's own, so that a language switch reads it
    again). A lesson whose clients are programs opens only from the learner's own
    identical copy: a class never makes a learner's app start a program it was sent."""
    raw = source.encode("utf-8", "surrogatepass")
    if not raw:
        raise ScenarioError(tr("{id}: the class carries no text of this lesson", id=lesson))
    if len(raw) > MAX_LESSON_BYTES:
        raise _too_big(lesson)
    own = _own_copy(lesson, raw, scenario_dirs)
    if own is not None:
        return load_scenario(own, lang)
    path = class_dir / file_name(lesson)
    try:
        write_private(path, source)
    except (OSError, UnicodeEncodeError) as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    scenario = load_scenario(path, lang)
    if scenario.programs:
        raise _programs(lesson)
    return replace(scenario, id=lesson)
