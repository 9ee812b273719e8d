"""Lua source as the TUI shows it: syntax-coloured, indented (a lesson's named scripts, the
server's cached scripts in F7's view)."""

from __future__ import annotations

from rich.text import Text


def lua_text(source: str, indent: str = "  ") -> Text:
    """Lua source, syntax-coloured by Rich (Pygments ships with it), indented."""
    try:
        from rich.syntax import Syntax

        body = Syntax(source, "lua", theme="ansi_dark", background_color="default").highlight(source)
        body.rstrip()
    except Exception:  # no lexer: plain text is as good for reading
        body = Text(source)
    out = Text()
    for line in body.split("\n"):
        out.append(indent)
        out.append_text(line)
        out.append("\n")
    return out
