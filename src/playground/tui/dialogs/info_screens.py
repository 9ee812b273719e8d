"""Modals that show one thing in full: a key's details, the scripts the server caches."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from playground.cells import width
from playground.i18n import N_, again, current_language, tr
from playground.tui.lua_source import lua_text
from playground.tui.plain_text import plain, visible_text


class InfoScreen(ModalScreen[None]):
    """A scrollable text panel; Escape or q closes it."""

    DEFAULT_CSS = """
    InfoScreen { align: center middle; }
    InfoScreen > VerticalScroll { width: 90%; height: 80%; border: thick $accent; background: $surface; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, body: Text | str | Callable[[], Text | str]) -> None:
        """Args:
            title: the panel's title (said again after F12 when it came from tr).
            body: the text, or what makes it (made again in the language shown after F12).
        """
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        body = self.body() if callable(self.body) else self.body
        with VerticalScroll() as scroll:
            scroll.border_title = plain(again(self.title_text, current_language()))  # "key {name}": a name
            yield Static(visible_text(body))

    def say_again(self) -> None:
        """The panel in the language shown now (F12)."""
        self.refresh(recompose=True)


DETAIL_FIELDS = (("key", N_("key")), ("type", N_("type")), ("node", N_("node")), ("ttl", "ttl"),
                 ("encoding", N_("encoding")), ("memory", N_("memory")), ("size", N_("size")), ("shown", N_("shown")))
"""The key detail's fields (Enter on a key), in order, each with its label (untranslated)."""


def key_detail_text(detail: dict[str, str]) -> Text:
    """A key's detail (Enter in the key table): its fields, then its value."""
    text = Text()
    for field, label in DETAIL_FIELDS:
        if detail.get(field):
            text.append(" " * (9 - width(tr(label))) + tr(label) + ": ", style="bold")
            text.append(detail[field] + "\n")
    text.append("\n")
    text.append(detail.get("value", ""))
    return text


def scripts_text(scripts: list[tuple[str, bytes | None, bool]]) -> Text:
    """F6: the scripts seen in this session, (sha, source, still cached) each."""
    text = Text()
    if not scripts:
        return Text(tr("No script has been used yet (EVAL, EVALSHA, SCRIPT LOAD)."), style="dim")
    for sha, source, cached in scripts:
        text.append(sha, style="bold")
        text.append(tr("  cached") + "\n" if cached else tr("  NOT cached (EVALSHA answers NOSCRIPT)") + "\n",
                    style="green" if cached else "bold red")
        if source is not None:  # whole: a question may be about its third line
            text.append_text(lua_text(source.decode("utf-8", "replace").strip("\n"), indent="    "))
        text.append("\n")
    return text
