"""Where scenarios come from: the bundled library, directories the user adds, and the
user's own recordings (F9 in the app saves them in the state directory); and the order
a course takes them in."""

from __future__ import annotations

from pathlib import Path

from playground.history import state_dir
from playground.i18n import tr
from playground.scenario.loader import load_scenario
from playground.scenario.model import Scenario, ScenarioError
from playground.served import served


def bundled_dir() -> Path:
    """The scenarios shipped with the package (inside the wheel), or the repository's
    top-level scenarios/ in an editable install."""
    here = Path(__file__).resolve().parent.parent  # the playground package
    packaged = here / "scenarios"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "scenarios"


def recordings_dir() -> Path:
    """Where F9 saves a recording when no --scenarios directory was given."""
    return state_dir() / "scenarios"


def recording_target(scenario_dirs) -> Path:
    """Where F9 saves a recording: the first --scenarios directory, else recordings_dir();
    under `serve` always recordings_dir(), which is the learner's session's own (a
    --scenarios folder there is every learner's: a recording saved in it would show in
    every picker)."""
    return Path(scenario_dirs[0]) if scenario_dirs and not served() else recordings_dir()


def is_recording(scenario: Scenario) -> bool:
    """Recorded with F9 (the recorder tags its files "recorded", wherever they were saved),
    or kept where F9 saves recordings."""
    if "recorded" in scenario.tags:
        return True
    return scenario.path is not None and scenario.path.resolve().parent == recordings_dir().resolve()


def scenario_files(extra_dirs: list[str] | None = None, recordings: bool = False) -> list[Path]:
    """The bundled files, then those of `extra_dirs`, then (`recordings`) the user's
    recordings, each directory in name order."""
    dirs = [bundled_dir()] + [Path(d) for d in (extra_dirs or [])]
    files = []
    for d in dirs:
        if not d.is_dir():
            raise ScenarioError(tr("{dir}: not a directory of scenarios", dir=d))
        files.extend(sorted(d.glob("*.toml")))
    if recordings and recordings_dir().is_dir() and recordings_dir().resolve() not in {d.resolve() for d in dirs}:
        files.extend(sorted(recordings_dir().glob("*.toml")))
    return files


def course_place(scenario: Scenario) -> tuple:
    """Where a scenario comes in the course: by its `order`, then those without a place
    (by id); recordings last. The sort key of `list` and the F7 picker."""
    return (is_recording(scenario), scenario.order is None, scenario.order or 0, scenario.id)


def course_order(scenarios: list[Scenario]) -> list[Scenario]:
    """The scenarios in course order (course_place).

    Args:
        scenarios: the scenarios to sort.
    """
    return sorted(scenarios, key=course_place)


def scenarios_in(directory: Path) -> list[Path]:
    """Every .toml file in a directory (not its subdirectories), sorted by name."""
    files = sorted(p for p in directory.glob("*.toml") if p.is_file())
    if not files:
        raise ScenarioError(tr("{dir}: no .toml scenario files in this directory", dir=directory))
    return files


def resolve(ref: str, extra_dirs: list[str] | None = None) -> Path:
    """An id (file name without .toml) from the library, or a path to a file."""
    path = Path(ref)
    if ref.endswith(".toml") or path.exists() or "/" in ref:  # a file, or a directory (check DIR)
        return path
    for file in scenario_files(extra_dirs, recordings=True):
        if file.stem == ref:
            return file
    known = ", ".join(f.stem for f in scenario_files(extra_dirs, recordings=True))
    raise ScenarioError(tr("{ref}: no such scenario (known: {known})", ref=ref, known=known))


def load_all(extra_dirs: list[str] | None = None, lang: str = "en") -> list[Scenario]:
    """Every scenario of the library (bundled and `extra_dirs`), loaded.

    Args:
        extra_dirs: directories of scenario files beside the bundled ones.
        lang: the language to load their texts in.
    """
    return [load_scenario(f, lang) for f in scenario_files(extra_dirs)]


def challenge_of(ref: str, extra_dirs: list[str] | None = None, lang: str = "en") -> Scenario:
    """The scenario `ref` to open as a challenge (`open --challenge`); one without a
    challenge is refused in one line that names the lessons that have one."""
    scenario = load_scenario(resolve(ref, extra_dirs), lang)
    if scenario.challenge is None:
        having = []
        for file in scenario_files(extra_dirs):
            try:
                having.append(load_scenario(file, lang))
            except ScenarioError:  # (a broken file of the user's: not one of them)
                pass
        ids = [s.id for s in course_order(having) if s.challenge is not None]
        raise ScenarioError(tr("{id} has no challenge; these lessons have one: {ids} "
                               "(or open {id} without --challenge)", id=scenario.id, ids=", ".join(ids)))
    return scenario
