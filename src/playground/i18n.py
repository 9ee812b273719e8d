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
