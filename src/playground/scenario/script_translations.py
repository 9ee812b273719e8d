"""Translated comments in a scenario's Lua scripts: `[scripts_zh]` beside `[scripts]`.

A script's translation is the same script with its `--` line comments in another language:
everything but the comments (and blank lines) must be the English script's, so what runs is
the same in every language (its SHA differs, and `$name`/`$sha:name` follow the language
shown). A script without a translation runs with its English comments.
"""

from __future__ import annotations

from playground.i18n import Translated, tr


def code_of(source: str) -> list[str]:
    """The script without its `--` comments (outside '...' and "..." strings) and blank lines."""
    lines = []
    for line in source.splitlines():
        quote, i, cut = None, 0, len(line)
        while i < len(line):
            c = line[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif line.startswith("--", i):
                cut = i
                break
            i += 1
        if line[:cut].strip():
            lines.append(line[:cut].rstrip())
    return lines


def localise_scripts(data: dict, lang: str, languages: tuple[str, ...], where) -> None:
    """Check every `scripts_<lang>` table of the raw TOML `data` (removed from it) and put
    `lang`'s scripts in place of the English ones (each said again in another language as
    that language's table has it: i18n.Translated)."""
    english = data.get("scripts", {})
    translated: dict[str, dict[str, str]] = {}
    for code in languages:
        field = f"scripts_{code}"
        if field not in data:
            continue
        table = data.pop(field)
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise where.error(tr("a table of name = \"\"\"lua source\"\"\""), field_name=field)
        for name, source in table.items():
            if not isinstance(english, dict) or name not in english:
                raise where.error(tr("{name}: no such script in [scripts]", name=name), field_name=field)
            if code_of(source) != code_of(english[name]):
                raise where.error(tr("{name}: differs from the English script in more than its -- comments",
                                     name=name), field_name=field)
        translated[code] = table
    if "scripts" in data and isinstance(english, dict) and all(isinstance(v, str) for v in english.values()):
        def say(name: str, code: str) -> str:
            table = translated.get(code, {})
            return table[name] if name in table else english[name]
        data["scripts"] = {name: Translated(say(name, lang), lambda code, name=name: say(name, code))
                           for name in english}
