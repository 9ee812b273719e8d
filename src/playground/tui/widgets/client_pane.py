"""One client's pane: its state line, everything it printed, and the command input.

A typed line goes to the engine's executor (`engine.executor`), the one command path
the repl, the runner and the stepper share; this pane only draws the events it reports
(`handle`): replies exactly as redis-cli prints them, notes styled apart, the state
line from the engine's own records; then one CommandDone tells the app that something
changed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from playground.cells import cut, width
from playground.engine import events as ev
from playground.engine.client_state import ClientState
from playground.history import History
from playground.i18n import N_, Translated, again, current_language, tr, tr_check
from playground.served import label
from playground.tui.widgets.wrapped_text import Wrapped
from playground.resp.cli_format import render
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import SECRET, redact_line, redact_reply
from playground.resp.replies import Nil
from playground.tui.messages import CommandDone, ServerStopped
from playground.tui.plain_text import visible_text
from playground.tui.widgets.pane_lines import RenderedLines
from playground.tui.widgets.pane_log import KEPT_LINES, PaneLog
from playground.tui.widgets.pane_prompt import PanePrompt
from playground.tui.widgets.pane_services import PaneServices
from playground.tui.widgets.pane_state import describe_state, hanging, node_prompt, reply_style, set_line

if TYPE_CHECKING:
    from playground.scenario.checks import CheckResult

SHOW_LIMIT = 64 * 1024  # bytes of one reply drawn in a pane; the rest is summarised
ONE_FRAME_FOR = 0.025
"""Seconds the screen may wait, after Enter, for the line's reply and state: the line, its
reply, the cleared command line and the state line then come in one frame (one drawing of
the log instead of two), and a reply slower than that shows when it comes."""
WHY_STYLE = "italic #8f8fc8"  # a "why" (engine/why.py): a note, never mistaken for redis-cli output
GUTTER_STYLE = "dim"
Entry = tuple[str, int | None, Text | Callable[[], Text], Text | None]
"""One thing a pane drew: (kind, server-order number or None, text, the text without its secrets or None)."""


def failed_check_line(check: CheckResult) -> Text:
    """A failed check of a step, on a line of its own (made anew in the language shown)."""
    return Text(f"  ✗ {tr_check(check.what)}: {check.detail}", style="bold white on red")


def checks_line(checks, cells: int = 0) -> Text | None:
    """The passed checks of one step folded into one line, cut to `cells` (failures get
    their own lines): "✓ reply · state balance, lock"."""
    passed = [c.what for c in checks if c.ok]
    if not passed:
        return None
    keys = [w.split(" ", 1)[1] for w in passed if w.startswith("state ")]
    parts = [tr_check(w) for w in passed if not w.startswith("state ")]
    if keys:
        parts.append(tr("state {key}", key=", ".join(keys)))
    line = "  ✓ " + " · ".join(parts)
    if cells > 10 and width(line) > cells:
        line = cut(line, cells - 1) + "…"
    return Text(line, style="green")


class ClientPane(Vertical):
    """A redis-cli for one client: type a command, see exactly what redis-cli prints."""

    DEFAULT_CSS = """
    ClientPane { border: round $primary; height: 1fr; }
    ClientPane:focus-within { border: round $accent; }
    ClientPane > #state { height: 1; padding: 0 1; }
    ClientPane > PaneLog { height: 1fr; }
    ClientPane > PanePrompt { dock: bottom; }  /* in sight in a pane too low for its log and hints */
    ClientPane > #first-run { height: auto; padding: 0 1; color: $text-muted; text-style: italic;
        display: none; }
    ClientPane > #first-run.-shown { display: block; }
    """

    BINDINGS = [
        Binding("ctrl+c", "cancel", "Cancel", priority=True, tooltip=N_("cancel a blocked or busy command")),
        Binding("ctrl+l", "clear", "Clear", show=False, tooltip=N_("clear the pane")),  # F1 lists both: at 80
        Binding("ctrl+o", "edit_script", "Lua", show=False,  # columns the footer keeps F7 and Ctrl+T instead
                tooltip=N_("write a Lua script over several lines (sent as EVAL)")),
        Binding("pageup", "read_back('page_up')", "Scroll up", show=False, tooltip=N_("scroll the pane up a page")),
        Binding("pagedown", "read_back('page_down')", "Scroll down", show=False,
                tooltip=N_("scroll the pane down a page")),
        Binding("shift+up", "read_back('up')", "Line up", show=False, tooltip=N_("scroll the pane up a line")),
        Binding("shift+down", "read_back('down')", "Line down", show=False, tooltip=N_("scroll the pane down a line")),
        Binding("ctrl+end", "read_back('end')", "Newest", show=False, tooltip=N_("back to the newest lines")),
    ]

    state: reactive[ClientState | None] = reactive(None, always_update=True, repaint=False)
    """The client's state, from the engine (server flags merged with what the client knows)."""

    def __init__(self, client: str, history: History | None, services: PaneServices, **kwargs) -> None:
        super().__init__(id=f"pane-{client}", **kwargs)
        self.services = services
        """The playground, the executor, help, the recorder and the display switches."""
        self.client = client
        self.border_title = tr("Client {name}", name=client)
        self._pending_since: float | None = None
        self._frame: AbstractContextManager[None] | None = None
        """App.batch_update while a typed line's reply is awaited (ONE_FRAME_FOR)."""
        self._printed: list[bytes] = []        # what the running line printed (the transcript)
        self._record_as: str | None = None     # how the recorder writes the running line
        self.history = history if history is not None else History.for_client(client)
        # Everything drawn, to draw it again when the gutter or the whys are switched on or off:
        # (kind, server-order number or None, text, the text without its secrets or None);
        # kind "why" is hidden while whys are off.
        self.drawn_lines: deque[Entry] = deque(maxlen=5000)
        self._rendered = RenderedLines(lambda: self.app.console)  # each entry's lines, per way it is shown
        self.outcome: str = ""  # what the last command's reply means, on the state line until the next

    def compose(self) -> ComposeResult:
        yield Static(id="state")
        yield Static(id="first-run")
        yield PaneLog(id="output", wrap=True, markup=False, highlight=False, min_width=20)
        yield PanePrompt(self.client, self.history, self.services.help, id="prompt-area")

    def on_mount(self) -> None:
        self._ticker = self.set_interval(0.25, self._tick, pause=True)  # while a line is pending only

    def on_descendant_focus(self) -> None:
        # Which pane takes the typing, in words as well as colour (a projector washes
        # colours out; a terminal test reads text).
        self.border_title = "▶ " + tr("Client {name}", name=self.client)

    def on_descendant_blur(self) -> None:
        self.border_title = tr("Client {name}", name=self.client)

    def _tick(self) -> None:
        if self._pending_since is not None:
            self._poll_state()

    @work(exclusive=True, group="poll-state", exit_on_error=False)
    async def _poll_state(self) -> None:
        """While a command is pending, ask the server whether the client is blocked."""
        pg = self.services.playground
        await pg.refresh_states()
        self.state = pg.session(self.client).state

    def watch_state(self, state: ClientState | None) -> None:
        line = describe_state(state, time.monotonic(), self._pending_since)
        if self.outcome and state is not None:  # (said again in the language shown: F12)
            line.append(f"  {again(self.outcome, current_language())}", style="bold yellow")
        set_line(self.query_one("#state", Static), line)
        node = node_prompt(self.services.playground, self.client)  # on a topology: the node, like redis-cli
        self.prompt.set_prompt(f"{self.client}{node}{'(TX)' if state and state.in_multi else ''}> ")

    @property
    def prompt(self) -> PanePrompt:
        """The command line, the lines typed ahead and the hint (pane_prompt.py)."""
        return self.query_one(PanePrompt)

    @property
    def running(self) -> bool:
        """A line of this pane's runs (a line typed now waits its turn)."""
        return self.prompt.running

    def queued(self) -> list[str]:
        """The lines typed ahead, waiting their turn."""
        return self.prompt.queued()

    async def type_out(self, line: str, speed: int) -> None:
        """A lesson's step: `line` typed into the command line at `speed` characters a second."""
        await self.prompt.type_out(line, speed)

    def clear_input(self) -> None:
        self.prompt.clear_input()

    @property
    def log_widget(self) -> PaneLog:
        return self.query_one("#output", PaneLog)

    def write(self, data: bytes | str, style: str = "", seq: int | None = None, secretless: str | None = None) -> None:
        """Append redis-cli's output (bytes) or a note to the log; `seq`: the reply's
        server-order number, shown in the gutter while the server order is on (Ctrl+T);
        `secretless`: the same text with its secrets left out, for the SVG screenshot.

        A reply of megabytes would make the terminal crawl: past SHOW_LIMIT bytes the
        pane shows the start and says how much it left out (the repl prints it all).
        """
        extra = ""
        if isinstance(data, bytes):
            if len(data) > SHOW_LIMIT:
                extra = tr("… ({count:,} more bytes of this reply not shown)", count=len(data) - SHOW_LIMIT)
                data = data[:SHOW_LIMIT]
            data = data.decode("utf-8", "replace")
        elif len(data) > SHOW_LIMIT:  # a line typed or pasted of megabytes: its start, as of a reply
            extra = tr("… ({count:,} more bytes of this command not shown)", count=len(data[SHOW_LIMIT:].encode()))
            data = data[:SHOW_LIMIT]
        if "\x1b[" in data:  # colours of redis-cli's own (its Lua debugger's lines): kept
            self.add(Text.from_ansi(data.rstrip("\n"), style=style), seq)
        else:
            hidden = None
            if secretless is not None and SECRET.decode() in secretless:  # something was left out
                hidden = Text(secretless[:SHOW_LIMIT].rstrip("\n"), style=style)
            self.add(Text(data.rstrip("\n"), style=style), seq, hidden=hidden)
        if extra:
            self.add(Text(extra, style="italic yellow"))

    def add(self, text: "Text | Callable[[], Text]", seq: int | None = None, kind: str = "out",
            hidden: Text | None = None) -> None:
        """Draw `text` (and keep it, to redraw when the gutter or the whys are toggled, the
        width or the language changes: a callable makes the Text anew each time);
        `hidden`: `text` without its secrets."""
        entry = (kind, seq, text, hidden)
        self.drawn_lines.append(entry)
        self._draw(entry)
        self.call_after_refresh(self._prime, entry)

    def why(self, why: "ev.Why | str") -> None:
        """A "why" under the reply it explains (engine/why.py): styled as a note, and said
        again in the interface's language whenever the pane is redrawn (F12)."""
        from playground.engine.why_text import LABEL

        def said() -> Text:
            words = why.text_in(current_language()) if isinstance(why, ev.Why) else again(why, current_language())
            return Text(f"  ↳ {tr(LABEL)}: {words}", style=WHY_STYLE)

        self.add(said, kind="why")

    def _text(self, entry: Entry,
              secretless: bool, gutter: bool) -> Text | None:
        """The entry as the log shows it (None: not shown, a why while whys are off)."""
        kind, seq, text, hidden = entry
        if secretless and hidden is not None:
            text = hidden
        if callable(text):  # a note of the app's own: in the language shown now
            text = text()
        if kind == "why":
            return hanging(text, 4 if gutter else 0) if self.services.show_why() else None
        if gutter and isinstance(text, Text):  # the gutter: a narrow dim column of numbers (a table: none)
            number = f"{seq:>3} " if seq is not None else "    "
            out = Text()
            for i, line in enumerate(text.split("\n")):
                if i:
                    out.append("\n")
                out.append(number if i == 0 else " " * len(number), style=GUTTER_STYLE)
                out.append_text(line)
            text = out
        return text

    def _draw(self, entry: Entry,
              secretless: bool = False) -> None:
        """Write `entry` at the end of the log, and keep the lines the log made of it."""
        gutter = self.services.show_order()
        text = self._text(entry, secretless, gutter)
        if text is None:
            return
        log = self.log_widget
        before = len(log.lines)
        log.write(text)
        width = log.scrollable_content_region.width
        if width > 0 and len(log.lines) > before:  # (written, not deferred till the log knows its size)
            self._rendered.put(entry, (secretless, gutter, current_language()), width, log.lines[before:])
        log.compact()

    def _lines(self, entry: Entry,
               secretless: bool, gutter: bool, width: int) -> list:
        """The log's lines for `entry` shown this way: those kept, or made now."""
        if entry[0] == "why" and not self.services.show_why():
            return []
        how = (secretless, gutter, current_language())
        kept = self._rendered.get(entry, how, width)
        if kept is not None:
            return kept
        text = self._text(entry, secretless, gutter)
        if text is None:
            return []
        renderable = visible_text(text) if isinstance(text, Text) else text  # (a table: as it is)
        return self._rendered.render(entry, how, renderable, width, self.log_widget.min_width)

    def _prime(self, entry: Entry) -> None:
        """Make `entry`'s lines as the other gutter setting shows them, ahead of Ctrl+T (after
        the frame that drew it): a toggle then puts back lines already made."""
        if not self.is_mounted:
            return
        log = self.log_widget
        width = log.scrollable_content_region.width
        if width <= 0:
            return
        if self._rendered.size > 4 * KEPT_LINES:  # only what a redraw can show is kept
            self._rendered.keep(self._newest_that_fill(KEPT_LINES, max(20, width - 4)), width)
        self._lines(entry, False, not self.services.show_order(), width)

    def redraw(self, secretless: bool = False) -> None:
        """Draw the log again (the gutter or the whys were switched on or off; or with its
        secrets left out for a screenshot, `secretless`): the newest entries that fill the
        log's KEPT_LINES, as many as it would keep of them all (the work is bounded by
        what the log can hold, not by the history), each from the lines kept for it shown
        this way when there are (pane_lines.py: a toggle wraps nothing again)."""
        log = self.log_widget
        width = log.scrollable_content_region.width
        entries = self._newest_that_fill(KEPT_LINES, max(20, width - 4))
        if width <= 0:  # (not laid out yet: the log renders the entries once it knows its size)
            log.clear()
            for entry in entries:
                self._draw(entry, secretless)
            return
        strips: list = []
        for entry in entries:
            strips += self._lines(entry, secretless, self.services.show_order(), width)
        log.show_lines(strips)
        self._rendered.keep(entries, width)

    def _newest_that_fill(self, lines: int, width: int) -> list:
        """The newest entries of `drawn_lines` whose lines (wrapped at about `width` cells)
        fill `lines` lines, oldest first."""
        kept, used = [], 0
        for entry in reversed(self.drawn_lines):
            kept.append(entry)
            text = entry[2]
            plain = text.plain if isinstance(text, Text) else ""
            used += sum(1 + cell_len(part) // width for part in plain.split("\n"))
            if used >= lines:
                break
        return kept[::-1]

    def say_again(self, redraw: bool = True) -> None:
        """Everything the pane says of its own, in the language shown now (F12): its title,
        the prompt's placeholder, the state line and (`redraw`) the notes in its log
        (replies stay redis-cli's)."""
        focused = self.app.focused is not None and self in self.app.focused.ancestors_with_self
        self.border_title = ("▶ " if focused else "") + tr("Client {name}", name=self.client)
        self.prompt.say_again()
        self.watch_state(self.state)
        if redraw:
            self.redraw()

    def take_over(self, old: "ClientPane") -> None:
        """What `old` (the same client's pane on the screen this one replaces) showed, in
        place of what this one showed when its screen was last the mode's."""
        if old is self:
            return
        self.drawn_lines.clear()
        self.drawn_lines.extend(old.drawn_lines)
        self.outcome = old.outcome
        self.redraw()

    def on_pane_log_reflow(self, message: PaneLog.Reflow) -> None:
        """The terminal (or the layout) changed the log's width: the lines wrap anew."""
        message.stop()
        self.redraw()

    @property
    def shows_secrets(self) -> bool:
        return any(entry[3] is not None for entry in self.drawn_lines)

    def note(self, message: str) -> None:
        """A note of the app's own (never redis-cli's output), redrawn in the language
        shown when it came from the catalogue."""
        if isinstance(message, Translated):
            self.add(lambda: Text(f"# {again(message, current_language())}", style="italic yellow"))
        else:
            self.write(f"# {message}", style="italic yellow")

    def on_pane_prompt_line_entered(self, message: PanePrompt.LineEntered) -> None:
        """A line typed (or pasted) whose turn it is (pane_prompt.py: one at a time)."""
        message.stop()
        why = self.services.executor.busy(self.client)
        if why is not None:  # the client runs a line of a lesson's: this one goes back to the prompt
            self.note(why)
            self.prompt.give_back(message.line)
            self.prompt.line_done()
            return
        self.send(message.line)

    def on_pane_prompt_noted(self, message: PanePrompt.Noted) -> None:
        message.stop()
        self.note(message.text)

    def send(self, line: str) -> None:
        """Send a line typed (or pasted) into this pane: echoed, then run."""
        self._hold_frame()
        self.outcome = ""
        self.write(f"{self.client}> {line}", style="bold", secretless=f"{self.client}> {redact_line(line)}")
        self.start_line(line)

    def start_line(self, line: str, argv: list[bytes] | None = None) -> None:
        """Run `line` (or `argv`), this pane busy from now on: one command at a time per client."""
        self.prompt.running = True  # set before the worker starts
        self.run_line(line, argv)

    def _hold_frame(self) -> None:
        if self._frame is None:
            self._frame = frame = self.app.batch_update()
            frame.__enter__()
            self.set_timer(ONE_FRAME_FOR, self._release_frame)

    def _release_frame(self) -> None:
        frame, self._frame = self._frame, None
        if frame is not None:
            frame.__exit__(None, None, None)

    def on_unmount(self) -> None:
        self._release_frame()

    @work(group="command", exclusive=False, exit_on_error=False)
    async def run_line(self, line: str, argv: list[bytes] | None = None) -> None:
        """Send a typed line (or `argv`, from the Lua editor) through the engine's executor;
        its events are drawn by `handle` as they come."""
        executor = self.services.executor
        self._printed = []
        result = None
        try:
            if argv is None:
                cmd = executor.parse(self.client, line)
                if cmd is None:
                    return
                self.prompt.input.remember(line, cmd.argv)
                if await executor.answer_locally(self.client, cmd):
                    return
                argv, repeat = cmd.argv, cmd.repeat
            else:
                repeat = 1
            self._record_as = line if repeat == 1 else format_argv(argv)  # scenarios have no repeat counts
            self._pending_since = time.monotonic()
            self._ticker.resume()
            self.state = self.services.playground.session(self.client).state
            # In this worker (no settle): the state line's own tick (_poll_state) shows
            # a blocked client, and polling the observer would delay the reply.
            result = await executor.run(self.client, argv, repeat, limit=SHOW_LIMIT)
            await self.services.playground.refresh_states()  # then the server's flags, for every state line
        finally:
            self._pending_since = None
            self._ticker.pause()
            self._release_frame()
            recorder = self.services.recorder()
            if recorder is not None:
                recorder.abandoned(self.client)  # a command still open was cancelled
            if result is not None and argv is not None:  # the app keeps the transcript
                text = b"".join(self._printed).decode("utf-8", "replace")
                self.post_message(CommandDone(self.client, list(argv), result.reply,
                                              line=line or format_argv(argv), printed=text))
            self.prompt.line_done()

    def handle(self, event: ev.Event) -> None:
        """Draw one engine event of this client."""
        recorder = self.services.recorder()
        if isinstance(event, ev.Reply):
            self.note_outcome(event.argv, event.reply)
            printed = event.output if isinstance(event.output, bytes) else b"".join(event.output)  # (bytes here)
            self._printed.append(printed)
            self.write(printed, style=reply_style(event.reply), seq=event.seq,
                       secretless=redact_reply(list(event.argv), printed.decode("utf-8", "replace")))
            if event.left_out:
                self.write(tr("… ({count:,} more bytes of this reply not shown)", count=event.left_out),
                           style="italic yellow")
            if recorder is not None and self._record_as is not None:
                output = render(event.reply, list(event.argv)) if event.left_out else printed
                recorder.replied(self.client, output.decode("utf-8", "replace"), event.reply)
        elif isinstance(event, ev.Sent):
            if recorder is not None and self._record_as is not None:
                recorder.sent(self.client, self._record_as)
        elif isinstance(event, ev.Output):
            if event.kind == "error":
                self.write(event.output, style="bold red")
            elif event.kind == "timing":
                self.write(event.output, style="dim")
            else:
                text = event.output.decode("utf-8", "replace").replace("\r\n", "\n")
                self.add(Text.from_ansi(text.strip("\n") or tr("(no help for that)")))
        elif isinstance(event, ev.Pushed):
            self.write(event.output, style=reply_style(event.frame))
        elif isinstance(event, ev.ServerGone):
            self.note(event.text)
            self.post_message(ServerStopped(event.text))
        elif isinstance(event, ev.Notice):
            self.note(event.text)
        elif isinstance(event, ev.Cleared):
            self.action_clear()
        elif isinstance(event, ev.Blocked):
            self.state = self.services.playground.session(self.client).state
        elif isinstance(event, ev.Why):
            self.why(event)

    def show_result(self, result) -> None:
        """Teaching mode: one scenario step as this pane shows it, with its checks."""
        step = result.step
        shown = result.command or step.display
        if step.wait:  # what it answers, then the reply (as redis-cli prints a reply under its command)
            self.add(lambda: Text(tr("(the pending reply arrives)"), style="italic dim"))
            if result.note and not result.skipped:
                self.note(result.note)
        elif step.kind == "server":  # "# [server] kill primary", as free play's palette says it: nobody typed it
            self.note(shown)
        else:
            self.write(f"{self.client}> {shown}", style="bold",
                       secretless=f"{self.client}> {redact_line(shown, list(result.argv) if result.argv else None)}")
        if result.skipped:
            self.add(lambda: Text(tr("– skipped: {reason}", reason=result.skipped), style="yellow"))
            return
        self.note_outcome(result.argv, result.value)
        for redirect in result.redirects:  # a cluster's `-> Redirected to slot ...`, as in free play
            self.add(Text(redirect.line))
        if result.reply:
            self.write(result.reply.encode(), style=reply_style(result.value), seq=result.seq,
                       secretless=redact_reply(list(result.argv or ()), result.reply))
        for why in result.whys:
            self.why(why)
        if result.note and not step.wait:
            self.note(result.note)
        # one line per step: the commands stay in view; made anew when the log is redrawn
        # (Ctrl+T, Ctrl+Y, a new width, F12: the check names in the language shown)
        if checks_line(result.checks) is not None:
            self.add(lambda: checks_line(result.checks, self.log_widget.scrollable_content_region.width) or Text())
        for check in result.checks:
            if not check.ok:
                self.add(partial(failed_check_line, check))

    def separator(self, name: str) -> None:
        """Teaching mode: a part of the scenario starts here."""
        self.add(Text(f"━━ {name} ━━", style="bold magenta reverse"))

    def note_outcome(self, argv, reply) -> None:
        """Keep the state line honest after the state it described is gone: an EXEC that
        answered (nil) was aborted because a WATCHed key changed."""
        if argv and bytes(argv[0]).upper() == b"EXEC" and reply is Nil:
            self.outcome = tr("EXEC aborted: a WATCHed key changed, nothing ran")
        else:
            self.outcome = ""

    def first_run(self, hint: Text | None) -> None:
        """A hint where to start, in an empty pane (styled apart: it is not output)."""
        shown = self.query_one("#first-run", Static)
        shown.set_class(hint is not None, "-shown")  # (on the hint alone: a class on the pane restyles all of it)
        if hint is not None:
            shown.update(Wrapped(hint))  # Chinese breaks between characters

    async def action_cancel(self) -> None:
        self.prompt.drop_pending()  # as a terminal drops what was typed ahead
        if not await self.services.executor.cancel(self.client):
            line = self.prompt.input
            if not line.value:  # redis-cli quits here: say how this app quits
                self.notify(label(tr("Ctrl+Q quits the playground (Ctrl+C cancels a command that waits, "
                                         "or clears the line)")), timeout=4)
            line.value = ""
            return
        self.post_message(CommandDone(self.client, [b"<cancel>"]))

    def action_read_back(self, how: str) -> None:
        """Scroll the pane's output from the keyboard while typing (it took the mouse)."""
        log = self.log_widget
        {"page_up": log.scroll_page_up, "page_down": log.scroll_page_down, "up": log.scroll_up,
         "down": log.scroll_down, "end": log.scroll_end}[how](animate=False)

    def action_clear(self) -> None:
        self.log_widget.clear()
        self.drawn_lines.clear()
        self.outcome = ""

    def action_edit_script(self) -> None:
        """Write a Lua script over several lines; it is sent as one EVAL."""
        from playground.tui.dialogs.script_editor import edit_script  # TextArea is heavy: imported when asked for

        edit_script(self)
