"""The languages scenario texts can be shown in, in one place.

English is the language the scenario files are written in (`narration = ...`); every other
language is a translation beside it (`narration_zh = ...`). Adding a language is adding its
code to LANGUAGES (and its line to PAUSE_TEXT): the loader, `--lang` and `check` follow.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("en", "zh")
ENGLISH = "en"

# The text of `pause = true` (a pause without a question of its own), per language.
PAUSE_TEXT = {
    "en": "Pause here to discuss.",
    "zh": "在这里停一下，讨论讨论。",
}

_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def language_of_locale(value: str) -> str | None:
    """'zh_CN.UTF-8' -> 'zh', 'en_GB' -> 'en', 'C' / 'POSIX' / unknown -> None.

    LANGUAGE may be a list ('zh_CN:en'): its first supported entry counts."""
    for entry in value.split(":"):
        code = entry.split(".")[0].split("@")[0].split("_")[0].split("-")[0].strip().lower()
        if code in LANGUAGES:
            return code
    return None


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the user's locale: the first of LC_ALL, LC_MESSAGES, LANG, LANGUAGE
    that is set decides; a language we have no texts for, "C" or nothing set gives English."""
    env = os.environ if environ is None else environ
    for name in _LOCALE_VARIABLES:
        value = env.get(name, "")
        if value:
            return language_of_locale(value) or ENGLISH
    return ENGLISH


# -- the interface's own words ------------------------------------------------------
#
# Every message the interface shows is written in English in the code, passed through
# `tr` where it is shown: `tr("cannot read {key}: {error}", key=k, error=exc)`. The
# English text (a str.format template) is the key of each language's catalogue
# (playground/locale_<lang>.py: MESSAGES = {english: translation}); a text missing from
# it is shown in English. `N_` marks a text that is translated later, where it is shown
# (a Binding's description is translated by the footer). tests/test_i18n_catalogue.py
# collects every literal passed to tr/tr_in/N_ (and every Binding description) and fails
# when one has no translation or its format fields differ from the English.

_current = ENGLISH
_catalogues: dict[str, Mapping[str, str]] = {}


def set_language(lang: str) -> None:
    """The language of the interface from now on (unknown codes mean English)."""
    global _current
    _current = lang if lang in LANGUAGES else ENGLISH


def current_language() -> str:
    return _current


def catalogue(lang: str) -> Mapping[str, str]:
    """English text -> its translation into `lang` ({} for English)."""
    if lang == ENGLISH or lang not in LANGUAGES:
        return {}
    if lang not in _catalogues:
        from importlib import import_module

        _catalogues[lang] = import_module(f"playground.locale_{lang}").MESSAGES
    return _catalogues[lang]


def tr_in(lang: str, text: str, /, **fields: object) -> str:
    """`text` in `lang`, its {fields} filled in; English when there is no translation."""
    template = catalogue(lang).get(text, text)
    return template.format(**fields) if fields else template


def tr(text: str, /, **fields: object) -> str:
    """`text` in the interface's current language (see set_language), its {fields} filled in."""
    return tr_in(_current, text, **fields)


def N_(text: str) -> str:
    """Marks `text` for the catalogue; it is translated (tr) where it is shown."""
    return text


# A scenario check as the runner names it ("reply", "error WRONGTYPE", "state balance"),
# in the interface's language: a word, or a word and what it is about.
_CHECK_WORDS = (N_("reply"), N_("reply matches"), N_("reply arrives"), N_("blocks"), N_("does not block"),
                N_("server stops"), N_("answers in time"))
_CHECK_PREFIXES = {"error ": N_("error {code}"), "state ": N_("state {key}")}


def tr_check(what: str) -> str:
    """`what` of a scenario check (runner.CheckResult), in the current language."""
    if what in _CHECK_WORDS:
        return tr(what)
    for prefix, template in _CHECK_PREFIXES.items():
        if what.startswith(prefix):
            return tr(template, **{template[template.index("{") + 1:-1]: what[len(prefix):]})
    return what
