"""Text that someone else wrote (a learner's name, a key, a reply, a scenario's words) as
the interface shows it: always as text, never as markup (a Rich `Text`, which Textual
draws as it is), and with its control characters written out (`\\x1b`), so an escape
sequence is read, not obeyed by the terminal (`visible`, playground/visible.py: the one
escaping function, for files and the command line too)."""

from __future__ import annotations

from rich.text import Span, Text

from playground.visible import CONTROL as _CONTROL
from playground.visible import visible

__all__ = ["lines", "plain", "visible", "visible_text"]


def plain(text: str, style: str = "", keep: str = "") -> Text:
    """Someone else's text for a widget: drawn as it is, control characters written out."""
    return Text(visible(text, keep), style=style)


def lines(text: str, style: str = "") -> Text:
    """Someone else's text of several lines (narration, a lesson): newlines and tabs kept."""
    return plain(text, style, keep="\n\t")


def visible_text(text: Text | str, keep: str = "\n\t") -> Text:
    """A Text built from others' words (styles kept) with its control characters written
    out; a str is taken as plain text, never as markup."""
    if isinstance(text, str):
        return plain(text, keep=keep)
    found = [m for m in _CONTROL.finditer(text.plain) if m[0] not in keep]
    if not found:
        return text
    out, start = Text(style=text.style, justify=text.justify, no_wrap=text.no_wrap, overflow=text.overflow), 0
    for m in found:
        out.append_text(text[start:m.start()])
        one, shown = text[m.start():m.end()], visible(m[0])  # styled as the character it stands for
        out.append_text(Text(shown, spans=[Span(0, len(shown), span.style) for span in one.spans]))
        start = m.end()
    out.append_text(text[start:])
    return out
