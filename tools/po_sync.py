"""Bring entries of an old-style Python catalogue (playground/locale_<lang>.py:
MESSAGES = {english: translation}) into the gettext catalogue
src/playground/locales/<lang>/LC_MESSAGES/playground.po.

Entries already in the .po are kept as they are (the .po is the source now); entries it
lacks are appended. After `git merge main` brings a locale_zh.py that others added to:

    git show main:src/playground/locale_zh.py > /tmp/locale_zh.py
    git show $(git merge-base HEAD main):src/playground/locale_zh.py > /tmp/locale_zh_base.py
    PYTHONPATH=src python tools/po_sync.py zh /tmp/locale_zh.py --base /tmp/locale_zh_base.py
    git rm -f src/playground/locale_zh.py   # (the merge's modify/delete conflict)

With --base, only what changed since that version is brought over: entries added or
changed (a changed one replaces the .po's), and entries removed are removed from the .po;
an entry the .po dropped on purpose does not come back.

With no file, writes the .po's header only if the .po does not exist yet.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ROOT / "src" / "playground" / "locales"

PLURAL_FORMS = {"zh": "nplurals=1; plural=0;", "ja": "nplurals=1; plural=0;"}
HEADER = ('msgid ""\nmsgstr ""\n"Project-Id-Version: redis-playground\\n"\n"Language: {lang}\\n"\n'
          '"MIME-Version: 1.0\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
          '"Content-Transfer-Encoding: 8bit\\n"\n"Plural-Forms: {plural}\\n"\n')


def quote(text: str) -> str:
    """A .po string: lines of at most ~76 characters, split after each newline."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    pieces = escaped.split("\n")
    parts = [p + "\\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    if len(parts) <= 1 and len(escaped) < 70:
        return f'"{escaped.replace(chr(10), chr(92) + "n")}"'
    out = ['""']
    for part in parts:
        while len(part) > 76:
            cut = part.rfind(" ", 0, 76) + 1 or 76
            out.append(f'"{part[:cut]}"')
            part = part[cut:]
        out.append(f'"{part}"')
    return "\n".join(out)


def entry(msgid: str, msgstr: str, context: str | None = None, comment: str = "") -> str:
    lines = [f"#. {comment}"] if comment else []
    if context is not None:
        lines.append(f"msgctxt {quote(context)}")
    lines += [f"msgid {quote(msgid)}", f"msgstr {quote(msgstr)}"]
    return "\n".join(lines) + "\n"


def plural_entry(singular: str, plural: str, forms: list[str], context: str | None = None) -> str:
    lines = [f"msgctxt {quote(context)}"] if context is not None else []
    lines += [f"msgid {quote(singular)}", f"msgid_plural {quote(plural)}"]
    lines += [f"msgstr[{i}] {quote(form)}" for i, form in enumerate(forms)]
    return "\n".join(lines) + "\n"


def read_messages(path: Path) -> dict[str, str]:
    """MESSAGES of a locale_<lang>.py, read without importing it."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "MESSAGES":
                return ast.literal_eval(node.value)
    raise SystemExit(f"{path}: no MESSAGES")


def po_file(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / "playground.po"


def existing(lang: str) -> set[tuple[str | None, str]]:
    from playground.msgfmt import parse_po

    path = po_file(lang)
    if not path.exists():
        return set()
    return {(e.context, e.msgid) for e in parse_po(path.read_text(encoding="utf-8"), str(path))}


def add(lang: str, messages: dict[str, str], context: str | None = None, comment: str = "") -> int:
    """Appends the entries of `messages` the .po lacks; returns how many."""
    path = po_file(lang)
    have = existing(lang)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER.format(lang=lang, plural=PLURAL_FORMS.get(lang, "nplurals=2; plural=(n != 1);")),
                        encoding="utf-8")
    new = [entry(k, v, context, comment) for k, v in messages.items() if (context, k) not in have]
    if new:
        with path.open("a", encoding="utf-8") as out:
            out.write("".join("\n" + e for e in new))
    return len(new)


def remove(lang: str, keys: set[tuple[str | None, str]]) -> int:
    """Drops the entries (context, msgid) in `keys` from the .po (each entry is a block of
    lines between blank lines, as `add` writes them); returns how many."""
    from playground.msgfmt import parse_po

    path = po_file(lang)
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    kept = [b for b in blocks if not any((e.context, e.msgid) in keys for e in parse_po(b))]
    path.write_text("\n\n".join(kept), encoding="utf-8")
    return len(blocks) - len(kept)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    lang, *files = argv
    if not re.fullmatch(r"[a-z]{2,3}(_[A-Z]{2})?", lang):
        print(f"po_sync.py: {lang!r} is not a language code (e.g. zh, pt_BR)", file=sys.stderr)
        return 2
    base: dict[str, str] = {}
    if "--base" in files:
        at = files.index("--base")
        base = read_messages(Path(files[at + 1]))
        del files[at:at + 2]
    for name in files:
        new = read_messages(Path(name))
        messages = {k: v for k, v in new.items() if base.get(k) != v}
        changed = {(None, k) for k in messages if k in base}
        gone = {(None, k) for k in base if k not in new}
        dropped = remove(lang, changed | gone) if changed or gone else 0
        print(f"{name}: {add(lang, messages)} entries added to {po_file(lang)}, {len(gone)} removed "
              f"({dropped} dropped in all, changed ones included)")
    if not files:
        add(lang, {})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
