"""The keys tables of README.md and docs/keys.md, made from the screens' bindings (the same
rows F1 shows: playground.tui.help_text.help_groups), so a key added to a screen is in the
docs, and a test (tests/project/test_readme_keys.py) fails until they are made anew.

    python tools/keys_table.py          # rewrite both tables in place
    python tools/keys_table.py --check  # exit 1 if either is out of date

README.md gets every key of free play, the keys the footer shows in a lesson (each binding
with show=True), and the app's own; docs/keys.md gets every key of every mode. Each table sits
between `<!-- keys:begin -->` and `<!-- keys:end -->`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- keys:begin -->", "<!-- keys:end -->"


def _screens():
    from playground.tui.screens.challenge_screen import ChallengeScreen
    from playground.tui.screens.free_play_screen import FreePlayScreen
    from playground.tui.screens.lesson_screen import LessonScreen
    return [FreePlayScreen, LessonScreen, ChallengeScreen]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _what(what) -> str:
    from playground.i18n import tr
    return tr(what[0] if isinstance(what, tuple) else what)


def full_table() -> str:
    """Every key of every mode, a table per group, in F1's order and words."""
    from playground.i18n import tr
    from playground.tui.help_text import help_groups
    out, seen = [], set()
    for screen in _screens():
        for title, rows in help_groups(screen):
            title = tr(title)
            if title in seen:  # "Everywhere" and "Typing in a pane" are every mode's
                continue
            seen.add(title)
            out += [f"### {title}", "", "| key | what it does |", "|---|---|"]
            out += [f"| {_cell(key)} | {_cell(_what(what))} |" for key, what in rows]
            out.append("")
    return "\n".join(out).rstrip("\n")


def footer_table() -> str:
    """Every key of free play, the keys the footer shows in a lesson, and the app's own: one
    row a key, with the modes it works in."""
    from playground.tui.app import PlaygroundApp
    from playground.tui.help_text import binding_rows, key_label
    free, lesson, challenge = _screens()
    modes = [(name, {(k, _what(w)) for k, w in binding_rows(screen.BINDINGS)})
             for name, screen in (("free play", free), ("lesson", lesson), ("challenge", challenge))]
    chosen = binding_rows(free.BINDINGS) + binding_rows([b for b in lesson.BINDINGS if b.show])
    rows: dict[tuple[str, str], list[str]] = {}
    for key, what in chosen:
        row = (key, _what(what))
        rows[row] = [name for name, keys in modes if row in keys]
    for key, what in binding_rows(PlaygroundApp.BINDINGS):
        rows[(key, _what(what))] = ["everywhere"]
    rows[(key_label(PlaygroundApp.COMMAND_PALETTE_BINDING), "every command by name")] = ["everywhere"]
    out = ["| key | what it does | where |", "|---|---|---|"]
    out += [f"| {_cell(key)} | {_cell(what)} | {', '.join(where)} |" for (key, what), where in rows.items()]
    return "\n".join(out)


def replaced(text: str, table: str, path: Path) -> str:
    """`text` with the table between the markers made anew."""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN} … {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def targets() -> list[tuple[Path, str]]:
    from playground.i18n import set_language
    set_language("en")
    return [(ROOT / "README.md", footer_table()), (ROOT / "docs" / "keys.md", full_table())]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, table in targets():
        text = path.read_text(encoding="utf-8")
        new = replaced(text, table, path)
        if new != text:
            stale.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print("out of date (run python tools/keys_table.py): " + ", ".join(str(p) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
