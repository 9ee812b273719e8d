"""playground/msgfmt.py: the .po sources compiled in memory read the same as GNU msgfmt's."""

from __future__ import annotations

import gettext
import io
import shutil
import subprocess

import pytest

from playground import i18n
from playground.msgfmt import mo_bytes, parse_po

SAMPLE = r'''# a comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: somewhere.py:1
msgid "a \"quoted\" line\n"
"and its continuation"
msgstr "une ligne \"citée\"\n"
"et sa suite"

msgctxt "menu"
msgid "Open"
msgstr "Ouvrir (menu)"

msgid "Open"
msgstr "Ouvert"

msgid "{n} file"
msgid_plural "{n} files"
msgstr[0] "{n} fichier"
msgstr[1] "{n} fichiers"

#, fuzzy
msgid "draft"
msgstr "brouillon"

msgid "untranslated"
msgstr ""
'''


def test_entries_contexts_plurals_and_escapes():
    t = gettext.GNUTranslations(io.BytesIO(mo_bytes(SAMPLE)))
    assert t.gettext('a "quoted" line\nand its continuation') == 'une ligne "citée"\net sa suite'
    assert t.pgettext("menu", "Open") == "Ouvrir (menu)" and t.gettext("Open") == "Ouvert"
    assert t.ngettext("{n} file", "{n} files", 1) == "{n} fichier"
    assert t.ngettext("{n} file", "{n} files", 3) == "{n} fichiers"
    assert t.gettext("draft") == "draft" and t.gettext("untranslated") == "untranslated"
    assert [e.line for e in parse_po(SAMPLE)][1:3] == [8, 13]


def test_a_broken_po_says_where():
    with pytest.raises(ValueError, match="<po>:2"):
        parse_po('msgid "x"\nmsgstr unquoted\n')


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt not installed")
@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH])
def test_the_shipped_catalogues_compile_as_gnu_msgfmt_compiles_them(lang, tmp_path):
    gnu = tmp_path / "gnu.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(gnu), str(i18n.po_path(lang))], check=True,
                   capture_output=True)
    ours = gettext.GNUTranslations(io.BytesIO(mo_bytes(i18n.po_path(lang).read_text(encoding="utf-8"))))
    with gnu.open("rb") as f:
        theirs = gettext.GNUTranslations(f)
    assert ours._catalog == theirs._catalog and len(ours._catalog) > 500
