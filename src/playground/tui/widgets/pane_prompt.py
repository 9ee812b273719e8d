"""A pane's prompt, as a terminal's: lines typed (or pasted) while the client's command
still runs wait their turn, shown as pending under the output, and are sent one by one
in the order they came; Ctrl+C drops them, as a terminal drops what was typed ahead.
And the hint line under it (the command's arguments, the reverse search).
(A mixin of tui.client_pane.ClientPane.)"""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual.widgets import Input, Static

from playground.i18n import reworded, tr, trn
from playground.resp.cli_lines import SplitError, split_args
from playground.tui.widgets.command_input import CommandInput
from playground.tui.widgets.pane_state import set_line

MAX_PENDING = 1000
"""Lines one pane keeps waiting at most: a paste of more is refused whole (memory stays bounded)."""
SHOWN_PENDING = 3
"""Pending lines drawn under the output; the rest are counted."""


def _safe_split(line: str) -> list[bytes]:
    try:
        return split_args(line)
    except SplitError:
        return []


class PanePrompt:
    """ClientPane's prompt: typed-ahead lines, pastes, the hint line."""

    _queue: deque[str]

    def queued(self) -> list[str]:
        return list(self._queue)

    def on_input_submitted(self, event: CommandInput.Submitted) -> None:
        event.stop()
        line = event.value
        if self._busy or self._queue:  # this pane's own line runs: this one waits its turn
            if len(self._queue) >= MAX_PENDING:
                self.note(tr("{count} lines already wait: this line was not sent", count=MAX_PENDING))
                return
            self._queue.append(line)
            self._show_pending()
            return
        why = self.services.executor.busy(self.client)
        if why is not None:  # the client runs a line of a lesson's: this one goes back to the prompt
            self.note(why)
            if not event.input.value:
                event.input.value = line
            return
        self.send(line)

    def send_next(self) -> None:
        """The running line ended: the oldest pending one goes."""
        if self._queue and self.is_attached:
            line = self._queue.popleft()
            self._show_pending()
            self.send(line)

    def drop_pending(self) -> None:
        """Ctrl+C: what was typed ahead is dropped (said, with how many lines)."""
        if self._queue:
            count = len(self._queue)
            self._queue.clear()
            self._show_pending()
            self.note(trn("{count} pending line dropped", "{count} pending lines dropped", count, count=count))

    def _show_pending(self) -> None:
        shown = self.query_one("#pending", Static)
        shown.display = bool(self._queue)
        text = Text(style="dim")
        for i, line in enumerate(list(self._queue)[:SHOWN_PENDING]):
            if i:
                text.append("\n")
            text.append(f"{self.client}> {line}")
            text.append(f"  ({tr('pending')})", style="italic")
        if len(self._queue) > SHOWN_PENDING:
            text.append("\n" + tr("… and {count} more pending", count=len(self._queue) - SHOWN_PENDING),
                        style="italic")
        set_line(shown, text)

    def on_command_input_pasted(self, event: CommandInput.Pasted) -> None:
        """A paste of several lines: each runs, as redis-cli runs the lines pasted into
        it; more than one after asking once (a stray paste must not run a page of commands)."""
        event.stop()
        lines = event.lines
        if len(lines) + len(self._queue) > MAX_PENDING:
            self.note(tr("a paste of {count} lines: at most {most} wait at once; nothing was sent",
                         count=len(lines), most=MAX_PENDING))
            return
        field = event.field
        if len(lines) <= 1:
            field.value = event.rest
            if lines:
                field.post_message(CommandInput.Submitted(field, lines[0]))
            return
        from playground.tui.screens.confirm import ConfirmScreen

        preview = "\n".join(f"  {line[:60]}" for line in lines[:5]) + ("\n  …" if len(lines) > 5 else "")
        question = reworded(tr("Run these {count} pasted lines as client {client}, one after another?",
                               count=len(lines), client=self.client), lambda said: said + "\n" + preview)

        def answered(yes: bool | None) -> None:
            if yes:  # (no: nothing was sent, the line is as it was)
                field.value = event.rest
                for line in lines:
                    field.post_message(CommandInput.Submitted(field, line))

        self.app.push_screen(ConfirmScreen(question), answered)  # (a str is shown as plain text, never markup)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()  # the pane's own line: nobody above reads it (each key's message went up to the app)
        help = self.services.help()
        hint = help.hint(event.value) if event.value else None
        text = Text()
        if hint and hint.strip():
            text.append(hint.strip(), style="dim")
            entry = help.lookup([a.decode(errors="replace") for a in _safe_split(event.value)])
            if entry is not None and entry.summary:
                text.append(f"  — {entry.summary}", style="italic dim")
        set_line(self.query_one("#hint", Static), text)

    def on_command_input_search_changed(self, event: CommandInput.SearchChanged) -> None:
        if event.term is not None:
            set_line(self.query_one("#hint", Static),
                     Text(f"(reverse-i-search)`{event.term}'" + ("" if event.found else tr(" — no match")),
                          style="yellow"))
