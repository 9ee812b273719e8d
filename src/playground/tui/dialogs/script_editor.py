"""A modal to write a Lua script over several lines and send it as one EVAL."""

from __future__ import annotations

from typing import Protocol, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, TextArea

from playground.i18n import tr



class DraftsHost(Protocol):
    """What the editor needs of its app (a PlaygroundApp): each client's draft, kept
    between openings."""

    script_drafts: dict[str, tuple[str, str]]

EXAMPLE = """-- KEYS[1], ARGV[1] ... are the arguments after numkeys
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return n
"""


class ScriptEditor(ModalScreen[tuple[str, str] | None]):
    """Dismisses with (source, "numkeys key ... arg ...") on Ctrl+S, None on Escape."""

    DEFAULT_CSS = """
    ScriptEditor { align: center middle; }
    ScriptEditor > Vertical { width: 90%; height: 80%; border: thick $accent; background: $surface; padding: 0 1; }
    ScriptEditor TextArea { height: 1fr; }
    ScriptEditor #args-label { margin-top: 1; color: $text-muted; }
    ScriptEditor Horizontal { height: auto; align-horizontal: right; }
    ScriptEditor Button { margin-left: 2; }
    """

    BINDINGS = [
        Binding("ctrl+s", "send", "Send as EVAL", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, client: str) -> None:
        super().__init__()
        self.client = client

    @property
    def host(self) -> DraftsHost:
        """The app, as the editor needs it (a PlaygroundApp: tui/app.py checks that it is one)."""
        return cast("DraftsHost", self.app)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(tr("Lua script for client {client} — Ctrl+S sends it as EVAL, Escape cancels",
                           client=self.client))
            source, args = self.host.script_drafts.get(self.client, (EXAMPLE, "1 rate:ip 60"))
            yield TextArea(source, id="source", show_line_numbers=True, tab_behavior="indent")
            yield Label(tr("numkeys, then the KEYS, then the ARGV (what follows the script in EVAL):"), id="args-label")
            yield Input(placeholder=tr("numkeys key ... arg ...   e.g. 1 rate:ip 60"), value=args, id="args")
            with Horizontal():
                yield Button(tr("Cancel"), id="cancel")
                yield Button(tr("Send EVAL"), id="send", variant="primary")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "send":
            self.action_send()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def _keep(self) -> tuple[str, str]:
        draft = (self.query_one(TextArea).text, self.query_one("#args", Input).value)
        self.host.script_drafts[self.client] = draft
        return draft

    def action_send(self) -> None:
        self.dismiss(self._keep())

    def action_cancel(self) -> None:
        self._keep()
        self.dismiss(None)


def edit_script(pane) -> None:
    """Pane `pane`'s Lua editor: the script written over several lines is sent as one EVAL
    through the pane (echoed as `A> EVAL <script, N lines> …`)."""
    from playground.resp.cli_lines import INVALID_ARGUMENTS, SplitError, format_argv, split_args

    def send(result: tuple[str, str] | None) -> None:
        if not result:
            return
        source, rest = result
        try:
            tail = split_args(rest)
        except SplitError:
            pane.write(INVALID_ARGUMENTS, style="bold red")
            return
        why = pane.services.executor.busy(pane.client)
        if why is not None:
            pane.note(why)
            return
        lines = source.count("\n") + 1
        pane.write(tr("{client}> EVAL <script, {lines} lines> {rest}", client=pane.client, lines=lines,
                      rest=rest).rstrip(), style="bold")
        argv = [b"EVAL", source.encode(), *(tail or [b"0"])]
        pane.prompt.input.remember(format_argv(argv), argv)  # Up brings it back
        pane.start_line(format_argv(argv), argv)

    pane.app.push_screen(ScriptEditor(pane.client), send)
