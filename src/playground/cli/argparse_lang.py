"""argparse's own words ("usage: ", "the following arguments are required: %s", ...) in
the interface's language, through gettext's sanctioned hook.

argparse looks each of its texts up with `gettext.gettext` (`from gettext import gettext
as _`), which reads the `.mo` file of the current text domain (gettext.textdomain,
gettext.bindtextdomain) in the language the environment names (LANGUAGE first). So, for
the time of parsing: our catalogues are compiled to `.mo` files in a cache directory
(once per content, in ~/.cache/redis-playground/locale or $XDG_CACHE_HOME's; older
contents' directories are removed), our domain is made the current one, and LANGUAGE
names the language; all three are put back afterwards. Without a writable cache, argparse stays English.
"""

from __future__ import annotations

import gettext
import hashlib
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from playground import i18n
from playground.msgfmt import mo_bytes


def compiled_locale_dir() -> Path | None:
    """A directory <lang>/LC_MESSAGES/playground.mo of every translated language, or None."""
    sources = {lang: i18n.po_path(lang).read_bytes() for lang in i18n.LANGUAGES if lang != i18n.ENGLISH}
    digest = hashlib.sha256(b"".join(lang.encode() + b"\0" + src for lang, src in sorted(sources.items())))
    caches = [Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"),  # not TMPDIR, which serve
              Path(tempfile.gettempdir()) / f"playground-locale-cache-{os.getuid()}"]  # checks is left empty
    # (not "redis-playground-…" in TMPDIR: private.sweep_stale_dirs reads those names as pids)
    for base in caches:
        root = base / "redis-playground" / "locale" / digest.hexdigest()[:16]
        try:
            compiled = False
            for lang, source in sources.items():
                mo = root / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo"
                if not mo.exists():
                    mo.parent.mkdir(parents=True, exist_ok=True)
                    part = mo.with_suffix(f".{os.getpid()}.part")
                    part.write_bytes(mo_bytes(source.decode("utf-8"), str(i18n.po_path(lang))))
                    part.replace(mo)  # atomic: a concurrent reader sees the whole file or none
                    compiled = True
            if compiled:
                _prune(root)
            return root
        except OSError:
            continue
    return None


def _prune(keep: Path) -> None:
    """Remove the catalogues other versions compiled (one directory per content): the
    cache holds one set, not one per edit or upgrade. A version still running elsewhere
    compiles its own again when it next needs it."""
    for entry in keep.parent.iterdir():
        if entry != keep and entry.is_dir() and len(entry.name) == 16:
            shutil.rmtree(entry, ignore_errors=True)


@contextmanager
def argparse_language(lang: str):
    """Within: argparse speaks `lang` (English for a language without a catalogue)."""
    localedir = compiled_locale_dir() if lang != i18n.ENGLISH else None
    if localedir is None:
        yield
        return
    domain, language = gettext.textdomain(), os.environ.get("LANGUAGE")
    gettext.bindtextdomain(i18n.DOMAIN, str(localedir))
    gettext.textdomain(i18n.DOMAIN)
    os.environ["LANGUAGE"] = lang
    try:
        yield
    finally:
        gettext.textdomain(domain)
        if language is None:
            os.environ.pop("LANGUAGE", None)
        else:
            os.environ["LANGUAGE"] = language
