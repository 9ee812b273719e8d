"""Translations beside the English texts of a scenario file: `narration_zh = "..."`.

Every human text field may have a sibling `<field>_<lang>` for each language in
playground.i18n.LANGUAGES other than English. `localise` checks all of them (whatever the
language asked for, so `check` catches a broken translation), then puts the asked-for
language's texts in place of the English ones, so the rest of the loader, and everything
that reads a Scenario, sees one language. What had no translation stays English and is
listed (per language) as missing. Each text is an i18n.Translated that can be said again
in another language (`again`): as the file has it in that language, so that a lesson made
from this one (an explorer's schedule, scenario/writer.py) can be written in every language.
"""

from __future__ import annotations

import re
from dataclasses import replace

from playground import i18n
from playground.i18n import ENGLISH, PAUSE_TEXT, Translated, said_in, tr, tr_in
from playground.scenario.script_translations import localise_scripts

# The text fields of each kind of table, and whether each is a list of texts.
TOP_TEXT = ("title", "lesson")
PART_TEXT = ("name",)
STEP_TEXT = ("narration", "pause")
PREDICT_TEXT = ("question", "choices", "explain")
CHALLENGE_TEXT = ("goal",)
LIST_FIELDS = {"choices"}


def translations() -> tuple[str, ...]:
    """The languages other than English (i18n.LANGUAGES, read when asked: one list decides)."""
    return tuple(lang for lang in i18n.LANGUAGES if lang != ENGLISH)


def translated_name(field: str, lang: str) -> str:
    """The name of a field's translation in `lang` (`narration` -> `narration_zh`).

    Args:
        field: the English field's name.
        lang: the language's code.
    """
    return f"{field}_{lang}"


class _Table:
    """One table of the file, its text fields, and where it is (for messages)."""

    def __init__(self, raw: dict, fields: tuple[str, ...], label: str, where, part=None,
                 step=None, prefix: str | None = None) -> None:
        self.raw, self.fields, self.label = raw, fields, label
        self.where, self.part, self.step, self.prefix = where, part, step, prefix

    def error(self, name: str, message: str):
        shown = f"{self.prefix}.{name}" if self.prefix else name
        return self.where.error(message, part=self.part, step=self.step, field_name=shown)


def _tables(data: dict, where) -> list[_Table]:
    tables = [_Table(data, TOP_TEXT, "", where)]
    if isinstance(data.get("challenge"), dict):
        tables.append(_Table(data["challenge"], CHALLENGE_TEXT, "challenge ", where, prefix="challenge"))
    if isinstance(data.get("parts"), list):
        parts = [p for p in data["parts"] if isinstance(p, dict)]
        many = True
    else:
        parts, many = [data], False
    for i, part in enumerate(parts, 1):
        name = part.get("name") if many else None
        plabel = (name if isinstance(name, str) and name else str(i)) if many else None
        where_part = f"part {i} " if many else ""
        if many:
            tables.append(_Table(part, PART_TEXT, where_part, where, part=plabel))
        steps = part.get("steps")
        for n, step in enumerate(steps if isinstance(steps, list) else [], 1):
            if not isinstance(step, dict):
                continue
            label = f"{where_part}step {n} "
            tables.append(_Table(step, STEP_TEXT, label, where, part=plabel, step=n))
            if isinstance(step.get("predict"), dict):
                tables.append(_Table(step["predict"], PREDICT_TEXT, label + "predict ", where,
                                     part=plabel, step=n, prefix="predict"))
    return tables


def _check(table: _Table, field: str, lang: str) -> None:
    """A translation has the English field's shape: non-empty text, or as many texts."""
    name = translated_name(field, lang)
    value, english = table.raw[name], table.raw.get(field)
    if english is None or english is False:
        raise table.error(name, tr("translates {field}, which is missing", field=field))
    if not (isinstance(english, list) if field in LIST_FIELDS
            else isinstance(english, str) or (field == "pause" and english is True)):
        raise table.error(field, tr("must be a list of text") if field in LIST_FIELDS else tr("must be text"))
    if field in LIST_FIELDS:
        if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
            raise table.error(name, tr("a list of non-empty text"))
        if isinstance(english, list) and len(value) != len(english):
            raise table.error(name, tr("{count} choices, but {field} has {english}", count=len(value), field=field,
                                       english=len(english)))
    elif not isinstance(value, str) or not value.strip():
        raise table.error(name, tr("must be non-empty text"))


def _translations_in(table: _Table) -> dict[tuple[str, str], object]:
    """{(field, lang): text} of one table, removed from it; an unknown language is an error."""
    found = {}
    for key in list(table.raw):
        m = re.match(r"^(%s)_(.+)$" % "|".join(table.fields), key)
        if not m:
            continue
        field, lang = m.group(1), m.group(2)
        if lang not in translations():
            if lang == ENGLISH:
                raise table.error(key, tr("the English text is {field} itself", field=field))
            raise table.error(key, tr("unknown language {lang} (known: {known})", lang=repr(lang),
                                            known=", ".join(translations())))
        _check(table, field, lang)
        found[(field, lang)] = table.raw.pop(key)
    return found


def _needs_translation(table: _Table, field: str) -> bool:
    value = table.raw.get(field)
    if field == "pause":
        return isinstance(value, str) and bool(value.strip())
    if isinstance(value, list):
        return bool(value)
    return isinstance(value, str) and bool(value.strip())


def localise(data: dict, lang: str, where) -> tuple[dict, dict[str, tuple[str, ...]]]:
    """Check every translation in the raw TOML `data` (changed in place), put `lang`'s texts
    in place of the English ones, and return it with {lang: (missing field, ...)} for every
    language but English (e.g. "step 3 narration", "part 2 step 1 predict explain")."""
    if lang not in i18n.LANGUAGES:
        raise ValueError(f"unknown language {lang!r} (known: {', '.join(i18n.LANGUAGES)})")
    localise_scripts(data, lang, translations(), where)
    missing: dict[str, list[str]] = {code: [] for code in translations()}
    for table in _tables(data, where):
        found = _translations_in(table)
        for field in table.fields:
            needed = _needs_translation(table, field)
            for code in translations():
                if needed and (field, code) not in found:
                    missing[code].append(f"{table.label}{field}")
            if field in table.raw:
                table.raw[field] = _said(table.raw[field], field, found, lang)
    return data, {code: tuple(fields) for code, fields in missing.items()}


def _said(english, field: str, found: dict, lang: str):
    """The field's text in `lang` (English where it has no translation; `pause = true`:
    the default question), said again in another language as the file has it there (a
    list of texts: each); anything else (a mistake the loader reports) as it is."""
    def text(code: str, index: int | None = None):
        if (field, code) in found:
            value = found[(field, code)]
            return value if index is None else value[index]
        if english is True and field == "pause":
            return tr_in(code, PAUSE_TEXT)
        return english if index is None else english[index]

    if isinstance(english, str) or (english is True and field == "pause"):
        return Translated(text(lang), text)
    if field in LIST_FIELDS and isinstance(english, list) and all(isinstance(x, str) for x in english):
        return [Translated(text(lang, i), lambda code, i=i: text(code, i)) for i in range(len(english))]
    return english


def scenario_in(scenario, lang: str):
    """`scenario` with each of its texts said in `lang` (i18n.said_in: as its lesson file has
    them there, the explorer's own words in that language, a typed text as it is): F12 on a
    scenario made in the app (an explorer's schedule), which has no file of its own to read
    again."""
    def say(text):
        return None if text is None else said_in(text, lang)

    def step(s):
        predict = s.predict and replace(s.predict, question=say(s.predict.question), explain=say(s.predict.explain),
                                        choices=tuple(say(c) for c in s.predict.choices))
        return replace(s, narration=say(s.narration), pause=say(s.pause), predict=predict)

    return replace(scenario, title=say(scenario.title), lesson=say(scenario.lesson), language=lang,
                   scripts={name: say(source) for name, source in scenario.scripts.items()},
                   challenge=scenario.challenge and replace(scenario.challenge, goal=say(scenario.challenge.goal)),
                   parts=tuple(replace(p, name=say(p.name), steps=tuple(step(s) for s in p.steps))
                               for p in scenario.parts))
