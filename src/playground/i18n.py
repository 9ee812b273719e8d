"""The languages of the interface and of the scenario texts, in one place.

English is the language the code and the scenario files are written in; every other
language is a gettext catalogue, playground/locales/<lang>/LC_MESSAGES/playground.po,
compiled in memory when first used (playground/msgfmt.py) and read with the standard
library's `gettext.GNUTranslations`. Adding a language is adding its `.po` file and its
code to LANGUAGES: `--lang`, F12, the scenario loader and `check` follow (scenario files
carry their own `narration_<lang> = ...` fields).

Every message the interface shows is written in English in the code and passed through
`tr` where it is shown: `tr("cannot read {key}: {error}", key=k, error=exc)` (the English
text, a str.format template, is the msgid); `trn(singular, plural, n, ...)` for a text
that depends on a number (`{n}` is filled in), `trp(context, text, ...)` for the same
English word meaning two things. `N_` marks a text that is translated later, where it is
shown. tests/i18n/test_i18n_catalogue.py collects every literal passed to these and fails when
one has no translation, its format fields differ from the English, or an entry is stale.
"""

from __future__ import annotations

import gettext
import os
import io
from collections.abc import Callable, Mapping
from pathlib import Path

from playground.msgfmt import mo_bytes

LANGUAGES = ["en", "zh"]  # the interface's languages, in the order F12 cycles through them
ENGLISH = "en"
DOMAIN = "playground"
LOCALE_DIR = Path(__file__).resolve().parent / "locales"

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


# -- the catalogues -------------------------------------------------------------------

_current = ENGLISH
_listeners: list[Callable[[str], None]] = []  # on_switch
_translations: dict[tuple[str, Path], gettext.NullTranslations] = {}


def po_path(lang: str) -> Path:
    """Where `lang`'s catalogue (its .po source) is.

    Args:
        lang: a language code of LANGUAGES ("zh").
    """
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def translation(lang: str) -> gettext.NullTranslations:
    """`lang`'s catalogue (English, or a language without one: the texts as written)."""
    if lang == ENGLISH or lang not in LANGUAGES:
        return gettext.NullTranslations()
    key = (lang, LOCALE_DIR)
    if key not in _translations:
        path = po_path(lang)
        _translations[key] = gettext.GNUTranslations(io.BytesIO(mo_bytes(path.read_text(encoding="utf-8"),
                                                                          str(path))))
    return _translations[key]


def set_language(lang: str) -> None:
    """The language of the interface from now on (unknown codes mean English); each
    listener of `on_switch` is told when it changes."""
    global _current
    before, _current = _current, lang if lang in LANGUAGES else ENGLISH
    if _current != before:
        for listener in list(_listeners):
            listener(_current)


def on_switch(listener: Callable[[str], None]) -> Callable[[], None]:
    """`listener(lang)` at every change of the interface's language from now on (under
    `serve`, the driver tells the tab's page: tui/served_driver.py); returns what removes it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def current_language() -> str:
    """The language of the interface now (a code of LANGUAGES)."""
    return _current


def _fill(template: str, fields: Mapping[str, object]) -> str:
    return template.format(**fields) if fields else template


class Translated(str):
    """A text said in one language that can be said again in another (`again`): what the
    screen shows after F12 is redrawn from what was said, not from the words."""

    say: Callable[..., str]
    """lang -> the text in that language (a callable of one language code; `...`: a
    lambda with a bound default, `lambda code, i=i: ...`, is one too)."""

    def __new__(cls, text: str, say: Callable[..., str]) -> "Translated":
        said = super().__new__(cls, text)
        said.say = say
        return said

    def __copy__(self) -> "Translated":
        return self  # a str: nothing in it changes

    def __deepcopy__(self, memo) -> "Translated":
        return self

    def __reduce__(self):
        return str, (str(self),)  # pickled (sent to another process): the text as it was said


def reworded(text: str, change) -> str:
    """`change(text)` (str -> str, e.g. str.strip) that is still said in every language
    `text` is: the change made to the text in that language."""
    if not isinstance(text, Translated):
        return change(text)
    return Translated(change(text), lambda lang: change(again(text, lang)))


def said_in(text: str, lang: str) -> str:
    """`text` said in `lang`, and still sayable in every other language it could be said in
    (again() gives the words alone)."""
    return Translated(again(text, lang), text.say) if isinstance(text, Translated) else text


def again(text: str, lang: str) -> str:
    """`text` said in `lang` when it came from tr/trn/trp (its fields too); as it is otherwise."""
    return text.say(lang) if isinstance(text, Translated) else text


def _fill_in(lang: str, template: str, fields: Mapping[str, object]) -> str:
    return _fill(template, {k: (again(v, lang) if isinstance(v, Translated) else v) for k, v in fields.items()})


def tr_in(lang: str, text: str, /, **fields: object) -> str:
    """`text` in `lang`, its {fields} filled in; English when there is no translation."""
    return Translated(_fill_in(lang, translation(lang).gettext(text), fields),
                      lambda other: tr_in(other, text, **fields))


def tr(text: str, /, **fields: object) -> str:
    """`text` in the interface's current language (see set_language), its {fields} filled in."""
    return tr_in(_current, text, **fields)


def trn_in(lang: str, singular: str, plural: str, n: int, /, **fields: object) -> str:
    """The form of `singular`/`plural` for the number `n` in `lang`; {n} and the {fields} filled in."""
    return Translated(_fill_in(lang, translation(lang).ngettext(singular, plural, n), {"n": n, **fields}),
                      lambda other: trn_in(other, singular, plural, n, **fields))


def trn(singular: str, plural: str, n: int, /, **fields: object) -> str:
    """`trn_in` in the current language: trn("{n:,} key", "{n:,} keys", count)."""
    return trn_in(_current, singular, plural, n, **fields)


def trp_in(lang: str, context: str, text: str, /, **fields: object) -> str:
    """`text` as meant in `context`, in `lang`."""
    return Translated(_fill_in(lang, translation(lang).pgettext(context, text), fields),
                      lambda other: trp_in(other, context, text, **fields))


def trp(context: str, text: str, /, **fields: object) -> str:
    """`text` as meant in `context` ("Keys": the key inspector, or Textual's key bindings), in
    the current language."""
    return trp_in(_current, context, text, **fields)


def language_name(lang: str) -> str:
    """A language's own name for itself ("English", "中文"): its catalogue's translation of
    "English" in the context "language name"."""
    if lang != ENGLISH and lang in LANGUAGES and (lang, LOCALE_DIR) not in _translations:
        # The footer names the next language (F12) at every start: read this one entry of
        # its catalogue, not all of it (compiling a catalogue takes ~10 ms).
        return Translated(_one_entry(lang, "language name", "English"),
                          lambda other: trp_in(other, "language name", "English"))
    return trp_in(lang, "language name", "English")


def _one_entry(lang: str, context: str, text: str) -> str:
    """`text` in `context` translated by `lang`'s catalogue (as `trp_in` would), from the
    catalogue's entry for it alone."""
    from playground.msgfmt import parse_po

    path = po_path(lang)
    wanted = f'msgctxt "{context}"'
    for block in path.read_text(encoding="utf-8").split("\n\n"):  # the entries are apart
        if wanted in block:
            for entry in parse_po(block, str(path)):
                if entry.context == context and entry.msgid == text and entry.plural is None and entry.translated:
                    return entry.msgstr
    return text


def next_language(lang: str) -> str:
    """The language after `lang` in LANGUAGES (F12 cycles through them)."""
    return LANGUAGES[(LANGUAGES.index(lang) + 1) % len(LANGUAGES)] if lang in LANGUAGES else LANGUAGES[0]


def N_(text: str) -> str:
    """Marks `text` for the catalogue; it is translated (tr) where it is shown."""
    return text


def NP_(context: str, text: str) -> str:
    """Marks `text` in `context` for the catalogue; it is translated (trp) where it is shown."""
    return text


# The text of `pause = true` (a pause without a question of its own): tr_in(lang, PAUSE_TEXT).
PAUSE_TEXT = N_("Pause here to discuss.")

# A scenario check as the runner names it ("reply", "error WRONGTYPE", "state balance"),
# in the interface's language: a word, or a word and what it is about.
_CHECK_WORDS = (N_("reply"), N_("reply matches"), N_("reply arrives"), N_("blocks"), N_("does not block"),
                N_("server stops"), N_("answers in time"), N_("reconnects"))
_CHECK_PREFIXES = {"error ": N_("error {code}"), "state ": N_("state {key}"),
                   "exit status ": N_("exit status of {client}"), "return value ": N_("return value of {client}")}


_ON_SERVER = N_("{check} on {server}")  # a check of one server's reply: "reply on Valkey"


def tr_check(what: str) -> str:
    """`what` of a scenario check (runner.CheckResult), in the current language."""
    check, on, server = what.rpartition(" on ")
    if on and server in ("Redis", "Valkey"):
        return tr(_ON_SERVER, check=tr_check(check), server=server)
    if what in _CHECK_WORDS:
        return tr(what)
    for prefix, template in _CHECK_PREFIXES.items():
        if what.startswith(prefix):
            return tr(template, **{template[template.index("{") + 1:-1]: what[len(prefix):]})
    return what
