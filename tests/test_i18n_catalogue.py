"""The interface's message catalogue: every English text the code shows through tr/tr_in/N_
(or as a Binding's description) has a Chinese translation with the same format fields.

The texts are collected by reading the source (ast), so adding `tr("new text")` without
adding it to playground/locale_zh.py fails here, and so does a translation that lost,
renamed or added a {field}, or an entry no code uses any more.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from playground import i18n
from playground.i18n import N_, catalogue, set_language, tr, tr_in
from playground.locale_zh import MESSAGES

SOURCE = Path(i18n.__file__).resolve().parent
MARKERS = {"tr": 0, "N_": 0, "tr_in": 1}  # function -> index of the English text argument


def _literal(node: ast.AST) -> str | None:
    """A string constant, or implicitly joined constants ("a " "b" is one Constant already)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def collect_texts() -> dict[str, str]:
    """English text -> where it is first used (file:line), from every module of the package."""
    found: dict[str, str] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name, text = _name(node.func), None
            if name in MARKERS and len(node.args) > MARKERS[name]:
                text = _literal(node.args[MARKERS[name]])
            elif name == "Binding":  # Binding(key, action, description, ...): the footer translates it
                described = node.args[2] if len(node.args) > 2 else next(
                    (k.value for k in node.keywords if k.arg == "description"), None)
                text = _literal(described) if described is not None else None
            if text:
                found.setdefault(text, f"{path.relative_to(SOURCE)}:{node.lineno}")
    return found


def fields(template: str) -> list[tuple[str, str, str]]:
    """The replacement fields of a str.format template: (name, conversion, format spec), sorted."""
    return sorted((name, conv or "", spec or "")
                  for _, name, spec, conv in string.Formatter().parse(template) if name is not None)


TEXTS = collect_texts()


def test_the_scan_finds_the_interface_texts():
    # A broken scan (wrong marker names, wrong argument index) would pass everything below.
    assert "Lessons" in TEXTS                                     # a Binding description
    assert "--url and --server exclude each other" in TEXTS       # a CLI error line
    assert "server binary not found: {path}" in TEXTS             # an engine error, through tr
    assert len(TEXTS) > 150


def test_every_interface_text_has_a_chinese_translation():
    missing = sorted(f"{where}: {text!r}" for text, where in TEXTS.items() if text not in MESSAGES)
    assert not missing, "not in playground/locale_zh.py:\n" + "\n".join(missing)


@pytest.mark.parametrize("english", sorted(MESSAGES))
def test_a_translation_keeps_the_format_fields_of_its_english(english):
    chinese = MESSAGES[english]
    assert fields(chinese) == fields(english), (english, chinese)
    assert chinese.strip() and chinese != english or not any(c.isalpha() for c in english), english
    values = {name: 1234.5 if spec else "x" for name, _, spec in fields(english)}  # a spec: a number
    assert chinese.format(**values)  # braces balanced, spec valid


def test_no_translation_is_left_over_from_a_text_the_code_no_longer_shows():
    stale = sorted(text for text in MESSAGES if text not in TEXTS)
    assert not stale, "in playground/locale_zh.py but used nowhere:\n" + "\n".join(map(repr, stale))


def test_tr_follows_the_current_language_and_fills_the_fields():
    try:
        set_language("zh")
        assert tr("server binary not found: {path}", path="/x") == MESSAGES["server binary not found: {path}"].format(path="/x")
        assert "/x" in tr("server binary not found: {path}", path="/x")
        assert tr("a text nobody translated {n}", n=3) == "a text nobody translated 3"  # falls back to English
        set_language("en")
        assert tr("server binary not found: {path}", path="/x") == "server binary not found: /x"
        set_language("klingon")  # an unknown language is English
        assert i18n.current_language() == "en"
    finally:
        set_language("en")
    assert tr_in("zh", "Lessons") == MESSAGES["Lessons"] and N_("Lessons") == "Lessons"
    assert catalogue("en") == {}


def test_a_check_is_named_in_the_current_language():
    from playground.i18n import tr_check

    assert tr_check("state balance") == "state balance" and tr_check("error WRONGTYPE") == "error WRONGTYPE"
    try:
        set_language("zh")
        assert tr_check("reply") == MESSAGES["reply"]
        assert tr_check("state 余额") == MESSAGES["state {key}"].format(key="余额")
        assert tr_check("error WRONGTYPE") == MESSAGES["error {code}"].format(code="WRONGTYPE")
        assert tr_check("something new") == "something new"
    finally:
        set_language("en")
