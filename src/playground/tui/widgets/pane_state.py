"""What a client pane draws besides redis-cli's output: its state line (`describe_state`),
the colour of a reply (`reply_style`), and one-line updates without a layout pass."""

from __future__ import annotations

import weakref

from rich.text import Text
from textual.widgets import Static

from playground.engine.client_state import ClientState
from playground.i18n import tr
from playground.resp.replies import Bool, Double, Err, Int, Nil, Status


_SHOWN: "weakref.WeakKeyDictionary[Static, Text]" = weakref.WeakKeyDictionary()  # what each line shows


def set_line(widget: Static, text: Text, layout: bool = False) -> None:
    """Update a one-line Static only when its text changed, and without a layout pass
    unless asked (its size is fixed): typing must not pay for redrawing the screen."""
    if _SHOWN.get(widget) != text:
        _SHOWN[widget] = text
        widget.update(text, layout=layout)


def reply_style(reply: object) -> str:
    """Colour by the reply's type, as a terminal user expects from redis-cli's spirit."""
    if isinstance(reply, Err):
        return "bold red"
    if reply is Nil:
        return "dim"
    if isinstance(reply, (Int, Double, Bool)):
        return "cyan"
    if isinstance(reply, Status):
        return "green"
    return ""


def describe_state(state: ClientState | None, now: float | None = None, pending_since: float | None = None) -> Text:
    """The state line: name, (TX n), WATCHed keys and whether EXEC will abort, blocked, subscribed."""
    text = Text()
    if state is None:
        return Text(tr("connecting…"), style="dim")
    text.append(f"{state.name}", style="bold")
    if state.server_stopped:
        text.append(tr("  connection closed: the server stopped"), style="bold red")
    if state.disconnected:
        text.append(tr("  disconnected (QUIT): the next command reconnects"), style="bold yellow")
    if state.monitoring:
        text.append(tr("  MONITOR: every command the clients send streams here (Ctrl+C stops)"), style="bold blue")
    if state.in_multi:
        text.append(f" (TX {state.queued})", style="bold yellow")
        if state.exec_will_abort:
            text.append(tr(" EXECABORT pending"), style="bold red")
    if state.watched:
        keys = " ".join(k.decode("utf-8", "replace") for k in state.watched)
        text.append(f"  WATCH {keys}", style="magenta")
        if state.dirty:
            text.append(tr("  dirty — EXEC will abort"), style="bold white on red")
    if state.blocked or state.busy_script:
        what = tr("blocked") if state.blocked else tr("running script")
        elapsed = f" {now - pending_since:.1f}s" if (now and pending_since) else ""
        text.append(tr("  {what}{elapsed} (Ctrl+C cancels)", what=what, elapsed=elapsed), style="bold yellow")
    elif state.pending is not None:
        text.append(tr("  waiting…"), style="yellow")
    if state.subscribed:
        text.append(tr("  subscribed ({count})", count=state.subscriptions), style="bold blue")
    if state.resp == 3:
        text.append("  RESP3", style="dim")
    if state.db:
        text.append(f"  db {state.db}", style="dim")
    return text


def hanging(text: Text, indent: int):
    """A why note wrapped under its own text, not under the "↳ why:" before it (and
    `indent` cells in: past the gutter's column when the gutter is on)."""
    from rich.table import Table

    from playground.tui.widgets.wrapped_text import Wrapped

    head = text.plain.find(": ") + 2
    grid = Table.grid(expand=True)
    grid.add_column(width=indent + text[:head].cell_len, no_wrap=True)  # (cells: 原因 is four)
    grid.add_column(ratio=1)
    grid.add_row(Text(" " * indent) + text[:head], Wrapped(text[head:]))  # wrapped, never cut with "…"
    return grid


def node_prompt(playground, client: str) -> str:
    """" 127.0.0.1:PORT" (redis-cli's prompt) when the playground runs a topology."""
    if getattr(playground, "topology", None) is None:
        return ""
    address = playground.session(client).address
    return f" {address.host}:{address.port}" if address is not None and not address.path else ""
