"""Every Chinese text follows the course's glossary (docs/glossary_zh.toml): one word for
one idea, the seeds' own (failover is 故障切换, never 故障转移)."""

from __future__ import annotations

import tomllib

import pytest

from playground.i18n import po_path
from playground.msgfmt import parse_po
from paths import ROOT as ROOT_DIR

ROOT = ROOT_DIR
TERMS = tomllib.loads((ROOT / "docs" / "glossary_zh.toml").read_text())["term"]


def _zh_texts(value, where: str):
    """Every string under a *_zh key (and in lists of them) of a scenario file."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("_zh"):
                yield from _strings(item, f"{where}.{key}")
            else:
                yield from _zh_texts(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _zh_texts(item, f"{where}[{i}]")


def _strings(value, where: str):
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{where}[{i}]")


def _all_chinese():
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        for where, text in _zh_texts(tomllib.loads(path.read_text()), path.stem):
            yield path.stem, where, text
    for entry in parse_po(po_path("zh").read_text(encoding="utf-8")):
        for text in entry.plurals or [entry.msgstr]:
            if entry.msgid:
                yield "catalogue", entry.msgid[:40], text


@pytest.mark.parametrize("term", TERMS, ids=[t["en"] for t in TERMS])
def test_chinese_texts_follow_the_glossary(term):
    texts = list(_all_chinese())
    assert len(texts) > 500  # the scan reaches the lessons and the catalogue
    wrong = [f"{where}: {word!r} (use {term['zh']!r})" for source, where, text in texts
             for word in term["avoid"] if word in text and source in term.get("only", [source])]
    assert not wrong, "\n".join(wrong)


def test_the_glossary_terms_are_the_ones_in_use():
    """A glossary word nobody uses is a glossary that drifted from the texts."""
    joined = "\n".join(text for *_, text in _all_chinese())
    unused = [t["zh"] for t in TERMS if t["zh"] not in joined]
    assert not unused, unused
