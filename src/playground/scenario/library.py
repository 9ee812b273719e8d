"""Where scenarios come from: the bundled library, and directories the user adds."""

from __future__ import annotations

from pathlib import Path

from playground.i18n import tr
from playground.scenario.model import Scenario, ScenarioError, load_scenario


def bundled_dir() -> Path:
    """The scenarios shipped with the package (inside the wheel), or the repository's
    top-level scenarios/ in an editable install."""
    here = Path(__file__).resolve().parent.parent  # the playground package
    packaged = here / "scenarios"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "scenarios"


def scenario_files(extra_dirs: list[str] | None = None) -> list[Path]:
    dirs = [bundled_dir()] + [Path(d) for d in (extra_dirs or [])]
    files = []
    for d in dirs:
        if not d.is_dir():
            raise ScenarioError(tr("{dir}: not a directory of scenarios", dir=d))
        files.extend(sorted(d.glob("*.toml")))
    return files


def resolve(ref: str, extra_dirs: list[str] | None = None) -> Path:
    """An id (file name without .toml) from the library, or a path to a file."""
    path = Path(ref)
    if ref.endswith(".toml") or path.exists() or "/" in ref:
        return path
    for file in scenario_files(extra_dirs):
        if file.stem == ref:
            return file
    known = ", ".join(f.stem for f in scenario_files(extra_dirs))
    raise ScenarioError(tr("{ref}: no such scenario (known: {known})", ref=ref, known=known))


def load_all(extra_dirs: list[str] | None = None, lang: str = "en") -> list[Scenario]:
    return [load_scenario(f, lang) for f in scenario_files(extra_dirs)]
