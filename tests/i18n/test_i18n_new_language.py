"""Adding a language is adding its .po file and its code to i18n.LANGUAGES: a pseudo
language written here (never shipped) is read by tr/trn/trp, offered by --lang, named
by its own catalogue, and reached by F12 in the app."""

from __future__ import annotations

import shutil

import pytest

from playground import i18n
from playground.i18n import language_name, next_language, set_language, tr, trn, trp

PSEUDO_PO = r'''msgid ""
msgstr ""
"Language: xx\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

msgctxt "language name"
msgid "English"
msgstr "Pseudo"

msgid "Client {name}"
msgstr "[Cl\u00efent {name}]"

msgid "Help"
msgstr "[H\u00e9lp]"

#, fuzzy
msgid "Lessons"
msgstr "[not yet: fuzzy]"

msgctxt "textual"
msgid "Keys"
msgstr "[bindings]"

msgid "{n:,} key"
msgid_plural "{n:,} keys"
msgstr[0] "[{n:,} k\u00e9y]"
msgstr[1] "[{n:,} k\u00e9ys]"
'''


@pytest.fixture
def pseudo(tmp_path, monkeypatch):
    """The catalogues in a temporary locale directory: Chinese as shipped, and "xx"."""
    (tmp_path / "xx" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "xx" / "LC_MESSAGES" / "playground.po").write_text(PSEUDO_PO, encoding="utf-8")
    shutil.copytree(i18n.po_path("zh").parent.parent, tmp_path / "zh")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(i18n, "LANGUAGES", [*i18n.LANGUAGES, "xx"])
    yield "xx"
    set_language("en")


def test_a_new_language_is_read_from_its_po_file(pseudo):
    set_language(pseudo)
    assert i18n.current_language() == "xx"
    assert tr("Client {name}", name="A") == "[Clïent A]"
    assert trn("{n:,} key", "{n:,} keys", 1) == "[1 kéy]" and trn("{n:,} key", "{n:,} keys", 1200) == "[1,200 kéys]"
    assert trp("textual", "Keys") == "[bindings]" and tr("Keys") == "Keys"  # untranslated: English
    assert tr("Lessons") == "Lessons"  # a fuzzy entry is not used, as msgfmt does
    assert language_name("xx") == "Pseudo"
    assert next_language("zh") == "xx" and next_language("xx") == "en"


def test_the_command_line_offers_the_new_language(pseudo, capsys):
    from playground.cli.main import parse_args

    assert parse_args(["--lang", "xx", "list"]).lang == "xx"
    assert i18n.language_of_locale("xx_YY.UTF-8") == "xx"


async def test_f12_cycles_through_the_new_language(pseudo):
    from pilot import _footer_descriptions
    from pilot import started, wait_until

    from playground.tui.app import make_app
    from playground.tui.widgets.client_pane import ClientPane

    app = make_app("bundled")
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        pane = app.mode_screen.query_one("#pane-A", ClientPane)
        for lang, title in (("zh", i18n.tr_in("zh", "Client {name}", name="A")), ("xx", "[Clïent A]"),
                            ("en", "Client A")):
            await pilot.press("f12")
            await wait_until(pilot, lambda lang=lang, title=title: app.lang == lang and title in pane.border_title)
            # the footer's F12 label names the language F12 switches to, in that language's words
            await wait_until(pilot, lambda lang=lang: language_name(next_language(lang)) in _footer_descriptions(app))
            if lang == "xx":  # the footer's own words from the pseudo catalogue
                await wait_until(pilot, lambda: "[Hélp]" in _footer_descriptions(app))
        assert "[Hélp]" not in _footer_descriptions(app) and "Help" in _footer_descriptions(app)
