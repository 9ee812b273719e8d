"""The interface's message catalogues (playground/locales/<lang>/LC_MESSAGES/playground.po):
every English text the code shows through tr/tr_in/trn/trp/N_/NP_ (or as a Binding's
description) has a translation in every language, with the same format fields.

The texts are collected by reading the source (ast), so adding `tr("new text")` without
adding it to the .po files fails here, and so does a translation that lost, renamed or
added a {field}, a plural without its forms, or an entry no code uses any more.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from playground import i18n
from playground.i18n import N_, set_language, tr, tr_in, trn, trp
from playground.msgfmt import parse_po

SOURCE = Path(i18n.__file__).resolve().parent
# function -> (index of the context argument or None, index of the text, index of the plural or None)
MARKERS = {"tr": (None, 0, None), "N_": (None, 0, None), "tr_in": (None, 1, None),
           "trn": (None, 0, 1), "trn_in": (None, 1, 2), "trp": (0, 1, None), "trp_in": (1, 2, None),
           "NP_": (0, 1, None)}
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH]


def _literal(node: ast.AST | None) -> str | None:
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


def _arg(node: ast.Call, index: int | None) -> str | None:
    return _literal(node.args[index]) if index is not None and len(node.args) > index else None


def collect_texts() -> dict[tuple[str | None, str], tuple[str | None, str]]:
    """(context, English text) -> (its plural or None, where it is first used: file:line)."""
    found: dict[tuple[str | None, str], tuple[str | None, str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name, text, context, plural = _name(node.func), None, None, None
            if name in MARKERS:
                c, t, p = MARKERS[name]
                text, context, plural = _arg(node, t), _arg(node, c), _arg(node, p)
                if c is not None and context is None:  # a context that is not a literal: not ours to check
                    text = None
            elif name == "Binding":  # Binding(key, action, description, ...): the footer translates it
                described = node.args[2] if len(node.args) > 2 else next(
                    (k.value for k in node.keywords if k.arg == "description"), None)
                text = _literal(described)
            if text:
                found.setdefault((context, text), (plural, f"{path.relative_to(SOURCE)}:{node.lineno}"))
    return found


def fields(template: str) -> list[tuple[str, str, str]]:
    """The replacement fields of a str.format template: (name, conversion, format spec), sorted."""
    return sorted((name, conv or "", spec or "")
                  for _, name, spec, conv in string.Formatter().parse(template) if name is not None)


TEXTS = collect_texts()


def entries(lang: str):
    path = i18n.po_path(lang)
    return {(e.context, e.msgid): e for e in parse_po(path.read_text(encoding="utf-8"), str(path)) if e.msgid}


def test_the_scan_finds_the_interface_texts():
    # A broken scan (wrong marker names, wrong argument index) would pass everything below.
    assert (None, "Lessons") in TEXTS                                     # a Binding description
    assert (None, "--url and --server exclude each other") in TEXTS       # a CLI error line
    assert (None, "server binary not found: {path}") in TEXTS             # an engine error, through tr
    assert TEXTS[(None, "{n:,} key")][0] == "{n:,} keys"                  # a plural, through trn
    assert ("textual", "Keys") in TEXTS and (None, "Keys") in TEXTS       # one word, two meanings
    assert len(TEXTS) > 150


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_interface_text_has_a_translation(lang):
    have = entries(lang)
    missing = sorted(f"{where}: {key!r}" for key, (plural, where) in TEXTS.items()
                     if key not in have or not have[key].translated or have[key].plural != plural)
    assert not missing, f"not (or not as a plural) in {i18n.po_path(lang)}:\n" + "\n".join(missing)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_keeps_the_format_fields_of_its_english(lang):
    wrong = []
    for (context, english), e in entries(lang).items():
        forms = e.plurals if e.plural is not None else [e.msgstr]
        source = e.plural if e.plural is not None else english
        for form in forms:
            values = {name: 1234.5 if spec else "x" for name, _, spec in fields(source)}  # a spec: a number
            if fields(form) != fields(source) or not form.strip() or not form.format(**values):
                wrong.append((context, english, form))
            elif form == english and any(c.isalpha() for c in english) and context != "language name":
                wrong.append((context, english, "(not translated)"))
    assert not wrong, "\n".join(map(repr, wrong))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_plural_has_as_many_forms_as_its_language_has(lang):
    header = i18n.translation(lang).info()["plural-forms"]
    count = int(header.split("nplurals=")[1].split(";")[0])
    for e in entries(lang).values():
        if e.plural is not None:
            assert len(e.plurals) == count, (e.msgid, e.plurals)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_translation_is_left_over_from_a_text_the_code_no_longer_shows(lang):
    stale = sorted(map(repr, set(entries(lang)) - set(TEXTS)))
    assert not stale, f"in {i18n.po_path(lang)} but used nowhere:\n" + "\n".join(stale)


def test_tr_follows_the_current_language_and_fills_the_fields():
    zh = entries("zh")
    try:
        set_language("zh")
        assert tr("server binary not found: {path}",
                  path="/x") == zh[(None, "server binary not found: {path}")].msgstr.format(path="/x")
        assert "/x" in tr("server binary not found: {path}", path="/x")
        assert tr("a text nobody translated {n}", n=3) == "a text nobody translated 3"  # falls back to English
        set_language("en")
        assert tr("server binary not found: {path}", path="/x") == "server binary not found: /x"
        set_language("klingon")  # an unknown language is English
        assert i18n.current_language() == "en"
    finally:
        set_language("en")
    assert tr_in("zh", "Lessons") == zh[(None, "Lessons")].msgstr and N_("Lessons") == "Lessons"


def test_plurals_follow_the_number_and_contexts_tell_one_word_from_another():
    assert trn("{n:,} key", "{n:,} keys", 1) == "1 key" and trn("{n:,} key", "{n:,} keys", 1200) == "1,200 keys"
    assert trn(", {n} step skipped ({reason})", ", {n} steps skipped ({reason})", 1,
               reason="r") == ", 1 step skipped (r)"
    assert trp("textual", "Keys") == tr("Keys") == "Keys"
    try:
        set_language("zh")
        assert trn("{n:,} key", "{n:,} keys", 1) == "1 个 Key" and trn("{n:,} key", "{n:,} keys", 2) == "2 个 Key"
        assert trp("textual", "Keys") != tr("Keys")  # the key bindings, not the key inspector
        assert i18n.language_name("zh") == "中文" and i18n.language_name("en") == "English"
    finally:
        set_language("en")


def test_a_check_is_named_in_the_current_language():
    from playground.i18n import tr_check

    zh = entries("zh")
    assert tr_check("state balance") == "state balance" and tr_check("error WRONGTYPE") == "error WRONGTYPE"
    try:
        set_language("zh")
        assert tr_check("reply") == zh[(None, "reply")].msgstr
        assert tr_check("state 余额") == zh[(None, "state {key}")].msgstr.format(key="余额")
        assert tr_check("error WRONGTYPE") == zh[(None, "error {code}")].msgstr.format(code="WRONGTYPE")
        assert tr_check("something new") == "something new"
        on = zh[(None, "{check} on {server}")].msgstr
        assert tr_check("reply on Valkey") == on.format(check=zh[(None, "reply")].msgstr, server="Valkey")
        assert tr_check("error NOSCRIPT on Redis") == on.format(check=tr_check("error NOSCRIPT"), server="Redis")
    finally:
        set_language("en")


def test_a_topology_is_named_in_the_interface_language():
    """Run headers name the topology: "primary + 1 replica", "cluster of 3 primaries" (issue 28)."""
    from types import SimpleNamespace

    from playground.server.topology import Topology
    from playground.topology_kinds import KINDS

    def named(kind, primaries, replicas):
        fake = SimpleNamespace(kind=KINDS[kind], primaries=lambda: [0] * primaries, replicas=replicas,
                               flavour="Valkey", version="9.1.2", where="bundled")
        return Topology.label.fget(fake)

    assert named("replica", 1, 1) == "Valkey 9.1.2 (bundled), primary + 1 replica"
    assert named("cluster", 3, 2) == "Valkey 9.1.2 (bundled), cluster of 3 primaries, 2 replicas each"
    try:
        set_language("zh")
        assert named("replica", 1, 2).endswith("主节点 + 2 个副本")
        assert named("cluster", 3, 1).endswith("3 个主节点的集群，每个主节点 1 个副本")
    finally:
        set_language("en")


def test_a_translated_text_can_be_said_again_in_another_language():
    """What tr/trn/trp return remembers what was said (fields too, nested), so a screen
    can be redrawn in the language F12 switched to without re-deriving it from words."""
    from playground.i18n import again, tr_in, trn_in, trp_in

    said = tr_in("en", "the topology did not settle: {problem}", problem=tr_in("en", "behind its primary"))
    assert said == "the topology did not settle: behind its primary"
    assert again(said, "zh") == "拓扑没有稳定下来：落后于主节点"
    assert again(again(said, "zh"), "en") == said
    assert again(trn_in("en", "{n:,} key", "{n:,} keys", 3), "zh") == "3 个 Key"
    assert again(trp_in("en", "language name", "English"), "zh") == "中文"
    assert again("typed by a user", "zh") == "typed by a user"  # not from the catalogue: as it is
