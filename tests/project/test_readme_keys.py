"""The README's keys table and docs/keys.md are the bindings' own (tools/keys_table.py makes
them); every page the README and docs/ link to exists, with the heading an anchor names."""

from __future__ import annotations

import re
import subprocess
import sys

from paths import ROOT

sys.path.insert(0, str(ROOT / "tools"))

import keys_table  # noqa: E402


def test_keys_tables_match_the_bindings():
    for path, table in keys_table.targets():
        text = path.read_text(encoding="utf-8")
        assert keys_table.replaced(text, table, path) == text, (
            f"{path.name}'s keys table is out of date: run python tools/keys_table.py")


def test_a_key_added_to_a_screen_makes_the_table_stale(monkeypatch):
    """The check can fail: a new binding on the lesson screen changes the full table."""
    from textual.binding import Binding

    from playground.tui.screens.lesson_screen import LessonScreen

    before = keys_table.full_table()
    monkeypatch.setattr(LessonScreen, "BINDINGS", [*LessonScreen.BINDINGS, Binding("z", "noop", "Zap",
                                                                                   tooltip="zap it")])
    assert "| z | zap it |" in keys_table.full_table() and keys_table.full_table() != before


def test_the_check_command_agrees():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "keys_table.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation gone, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_between_the_docs_resolves():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+://", target):
                continue
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            if not path.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and path.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
                if anchor not in {_anchor(h) for h in headings}:
                    broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken
