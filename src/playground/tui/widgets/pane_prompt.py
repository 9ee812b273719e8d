"""A pane's prompt, as a terminal's: the command line (`A> ` and the input), the lines
typed (or pasted) while the client's own line still runs, shown as pending above it and
let go one by one in the order they came (Ctrl+C drops them, as a terminal drops what was
typed ahead), and the hint line under it (the command's arguments, the reverse search).

A child of tui.widgets.client_pane.ClientPane: it posts `LineEntered` for each line to
run and `Noted` for what the pane should note; the pane says when a line ends
(`line_done`)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from playground.engine.help import HelpIndex
from playground.history import History
from playground.i18n import reworded, tr, trn
from playground.resp.cli_lines import SplitError, split_args
from playground.tui.dialogs.confirm import ConfirmScreen
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


class PanePrompt(Vertical):
    """One client's command line, the lines typed ahead of it, and its hint."""

    DEFAULT_CSS = """
    PanePrompt { height: auto; }
    PanePrompt > #pending { height: auto; max-height: 4; padding: 0 1; display: none; }
    PanePrompt > #line { height: 1; padding: 0 0 0 1; }
    PanePrompt > #line > #prompt { width: auto; height: 1; text-style: bold; }
    PanePrompt > #line > CommandInput, PanePrompt > #line > CommandInput:focus {
        border: none; height: 1; padding: 0 1 0 0; width: 1fr; }
    PanePrompt > #hint { height: 1; padding: 0 1; color: $text-muted; }
    """

    running: reactive[bool] = reactive(False)
    """A line of this prompt's client runs: a line entered now waits its turn (pending)."""

    class LineEntered(Message):
        """A line to run now (the prompt counts it running until `line_done`)."""

        def __init__(self, prompt: PanePrompt, line: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.line = line

        @property
        def control(self) -> PanePrompt:
            return self.prompt

    class Noted(Message):
        """Something the pane should say in its log (a paste refused, lines dropped)."""

        def __init__(self, prompt: PanePrompt, text: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text

        @property
        def control(self) -> PanePrompt:
            return self.prompt

    def __init__(self, client: str, history: History, help: Callable[[], HelpIndex], **kwargs) -> None:
        """The prompt of `client`.

        Args:
            client: the client's name (`A> `).
            history: the client's command history (Up, Ctrl+R).
            help: the command help now (the bundled table until the server's is read).
            kwargs: Textual's own (id, classes).
        """
        super().__init__(**kwargs)
        self.client = client
        self.history = history
        self.help = help
        self._queue: deque[str] = deque()
        self._draft: tuple[str, int] | None = None  # the line typed, and its cursor, when a step took the line

    def compose(self) -> ComposeResult:
        yield Static(id="pending")
        with Horizontal(id="line"):  # the prompt stays in sight while typing
            yield Static(f"{self.client}> ", id="prompt")
            yield CommandInput(self.history, self.help, placeholder=tr("type a Redis command"), id="input")
        yield Static(id="hint")

    @property
    def input(self) -> CommandInput:
        """The command line itself."""
        return self.query_one(CommandInput)

    def queued(self) -> list[str]:
        """The lines waiting their turn, oldest first."""
        return list(self._queue)

    def set_prompt(self, prompt: str) -> None:
        """What stands before the input: `A> `, `A(TX)> `, `A 127.0.0.1:7001> `."""
        set_line(self.query_one("#prompt", Static), Text(prompt), layout=True)  # its width changes: a layout pass

    def say_again(self) -> None:
        """The placeholder in the language shown now (F12)."""
        self.input.placeholder = tr("type a Redis command")

    # -- lines: entered, waiting, let go ---------------------------------------------------

    def enter(self, line: str) -> None:
        """`line` runs now, or after the lines before it (as if typed and Enter pressed)."""
        if self.running or self._queue:  # this client's own line runs: this one waits its turn
            if len(self._queue) >= MAX_PENDING:
                self.post_message(self.Noted(self, tr("{count} lines already wait: this line was not sent",
                                                      count=MAX_PENDING)))
                return
            self._queue.append(line)
            self._show_pending()
            return
        self.running = True  # at once: a line entered before the pane hears of this one waits
        self.post_message(self.LineEntered(self, line))

    def line_done(self) -> None:
        """The running line ended (or was not run): the oldest pending one goes."""
        self.running = False
        if self._queue and self.is_attached:
            line = self._queue.popleft()
            self._show_pending()
            self.running = True
            self.post_message(self.LineEntered(self, line))

    def give_back(self, line: str) -> None:
        """`line` was not run: it goes back to the command line, unless something is typed there."""
        if not self.input.value:
            self.input.value = line

    def drop_pending(self) -> None:
        """Ctrl+C: what was typed ahead is dropped (said, with how many lines)."""
        if self._queue:
            count = len(self._queue)
            self._queue.clear()
            self._show_pending()
            self.post_message(self.Noted(self, trn("{count} pending line dropped", "{count} pending lines dropped",
                                                   count, count=count)))

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

    def on_input_submitted(self, event: CommandInput.Submitted) -> None:
        event.stop()
        self.enter(event.value)

    def on_command_input_pasted(self, event: CommandInput.Pasted) -> None:
        """A paste of several lines: each runs, as redis-cli runs the lines pasted into
        it; more than one after asking once (a stray paste must not run a page of commands)."""
        event.stop()
        lines = event.lines
        if len(lines) + len(self._queue) > MAX_PENDING:
            self.post_message(self.Noted(self, tr("a paste of {count} lines: at most {most} wait at once; nothing "
                                                  "was sent", count=len(lines), most=MAX_PENDING)))
            return
        field = event.field
        if len(lines) <= 1:
            field.value = event.rest
            if lines:
                field.post_message(CommandInput.Submitted(field, lines[0]))
            return
        preview = "\n".join(f"  {line[:60]}" for line in lines[:5]) + ("\n  …" if len(lines) > 5 else "")
        question = reworded(tr("Run these {count} pasted lines as client {client}, one after another?",
                               count=len(lines), client=self.client), lambda said: said + "\n" + preview)

        def answered(yes: bool | None) -> None:
            if yes:  # (no: nothing was sent, the line is as it was)
                field.value = event.rest
                for line in lines:
                    field.post_message(CommandInput.Submitted(field, line))

        self.app.push_screen(ConfirmScreen(question), answered)  # (a str is shown as plain text, never markup)

    # -- the hint line ---------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()  # the prompt's own line: nobody above reads it (each key's message went up to the app)
        help = self.help()
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

    # -- a lesson's step, typed out --------------------------------------------------------

    async def type_out(self, line: str, speed: int) -> None:
        """Type `line` into the command line at `speed` characters a second (0: at once).
        What was typed there is kept: `clear_input` gives it back (a class's step, which the
        learner did not ask for, took a line half typed)."""
        field = self.input
        if self._draft is None and field.value:
            self._draft = (field.value, field.cursor_position)
        if not speed:
            field.value = line
            return
        field.value = ""
        for i in range(1, len(line) + 1):
            field.value = line[:i]
            field.cursor_position = i
            await asyncio.sleep(1 / speed)

    def clear_input(self) -> None:
        """The command line empty again after a step, or with what was typed before it."""
        draft, self._draft = self._draft, None
        self.input.value = draft[0] if draft else ""
        if draft:
            self.input.cursor_position = draft[1]
