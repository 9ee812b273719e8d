"""One client's pane: its state line, everything it printed, and the command input.

A typed line goes to the engine's executor (`engine.executor`), the one command path
the repl, the runner and the stepper share; this pane only draws the events it reports
(`handle`): replies exactly as redis-cli prints them, notes styled apart, the state
line from the engine's own records; then one CommandDone tells the app that something
changed.
"""

from __future__ import annotations

import asyncio
import time

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Input, Static

from playground.engine import events as ev
from playground.engine.session import ClientState
from playground.history import History
from playground.resp.cli_format import render
from playground.resp.cli_lines import INVALID_ARGUMENTS, SplitError, format_argv, split_args
from playground.resp.replies import Bool, Double, Err, Int, Nil, Status
from .command_input import CommandInput
from .messages import CommandDone, ServerStopped
from .pane_log import PaneLog

SHOW_LIMIT = 64 * 1024  # bytes of one reply drawn in a pane; the rest is summarised


def set_line(widget: Static, text: Text) -> None:
    """Update a one-line Static only when its text changed, and without a layout pass
    (its size is fixed): typing must not pay for redrawing the screen."""
    if getattr(widget, "_shown", None) != text:
        widget._shown = text
        widget.update(text, layout=False)


def _safe_split(line: str) -> list[bytes]:
    try:
        return split_args(line)
    except SplitError:
        return []


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
        return Text("connecting…", style="dim")
    text.append(f"{state.name}", style="bold")
    if state.disconnected:
        text.append("  disconnected (QUIT): the next command reconnects", style="bold yellow")
    if state.monitoring:
        text.append("  MONITOR: every command the clients send streams here (Ctrl+C stops)", style="bold blue")
    if state.in_multi:
        text.append(f" (TX {state.queued})", style="bold yellow")
        if state.exec_will_abort:
            text.append(" EXECABORT pending", style="bold red")
    if state.watched:
        keys = " ".join(k.decode("utf-8", "replace") for k in state.watched)
        text.append(f"  WATCH {keys}", style="magenta")
        if state.dirty:
            text.append("  dirty — EXEC will abort", style="bold white on red")
    if state.blocked or state.busy_script:
        what = "blocked" if state.blocked else "running script"
        elapsed = f" {now - pending_since:.1f}s" if (now and pending_since) else ""
        text.append(f"  {what}{elapsed} (Ctrl+C cancels)", style="bold yellow")
    elif state.pending is not None:
        text.append("  waiting…", style="yellow")
    if state.subscribed:
        text.append(f"  subscribed ({state.subscriptions})", style="bold blue")
    if state.resp == 3:
        text.append("  RESP3", style="dim")
    if state.db:
        text.append(f"  db {state.db}", style="dim")
    return text


class ClientPane(Vertical):
    """A redis-cli for one client: type a command, see exactly what redis-cli prints."""

    DEFAULT_CSS = """
    ClientPane { border: round $primary; height: 1fr; }
    ClientPane:focus-within { border: round $accent; }
    ClientPane > #state { height: 1; padding: 0 1; }
    ClientPane > PaneLog { height: 1fr; }
    ClientPane > CommandInput, ClientPane > CommandInput:focus { border: none; height: 1; padding: 0 1; }
    ClientPane > #hint { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("ctrl+c", "cancel", "Cancel pending", priority=True),
        Binding("ctrl+l", "clear", "Clear pane"),
        Binding("ctrl+o", "edit_script", "Lua editor"),
    ]

    state: reactive[ClientState | None] = reactive(None, always_update=True, repaint=False)
    """The client's state, from the engine (server flags merged with what the client knows)."""

    def __init__(self, client: str, history: History | None = None, **kwargs) -> None:
        super().__init__(id=f"pane-{client}", **kwargs)
        self.client = client
        self.border_title = f"Client {client}"
        self._pending_since: float | None = None
        self._busy = False
        self._printed: list[bytes] = []        # what the running line printed (the transcript)
        self._record_as: str | None = None     # how the recorder writes the running line
        self.history = history if history is not None else History.for_client(client)

    def compose(self) -> ComposeResult:
        yield Static(id="state")
        yield PaneLog(id="output", wrap=True, markup=False, highlight=False, max_lines=5000, min_width=20)
        yield CommandInput(self.history, lambda: self.app.help,
                           placeholder=f"{self.client}> type a Redis command", id="input")
        yield Static(id="hint")

    def on_mount(self) -> None:
        self.set_interval(0.25, self._tick)

    def on_descendant_focus(self) -> None:
        # Which pane takes the typing, in words as well as colour (a projector washes
        # colours out; a terminal test reads text).
        self.border_title = f"▶ Client {self.client}"

    def on_descendant_blur(self) -> None:
        self.border_title = f"Client {self.client}"

    def _tick(self) -> None:
        if self._pending_since is not None:
            self._poll_state()

    @work(exclusive=True, group="poll-state", exit_on_error=False)
    async def _poll_state(self) -> None:
        """While a command is pending, ask the server whether the client is blocked."""
        pg = self.app.playground
        await pg.refresh_states()
        self.state = pg.session(self.client).state

    def watch_state(self, state: ClientState | None) -> None:
        set_line(self.query_one("#state", Static), describe_state(state, time.monotonic(), self._pending_since))
        placeholder = f"{self.client}{'(TX)' if state and state.in_multi else ''}> type a Redis command"
        field = self.query_one(Input)
        if field.placeholder != placeholder:
            field.placeholder = placeholder

    @property
    def log_widget(self) -> PaneLog:
        return self.query_one("#output", PaneLog)

    def write(self, data: bytes | str, style: str = "") -> None:
        """Append redis-cli's output (bytes) or a note to the log.

        A reply of megabytes would make the terminal crawl: past SHOW_LIMIT bytes the
        pane shows the start and says how much it left out (the repl prints it all).
        """
        extra = ""
        if isinstance(data, bytes):
            if len(data) > SHOW_LIMIT:
                extra = f"… ({len(data) - SHOW_LIMIT:,} more bytes of this reply not shown)"
                data = data[:SHOW_LIMIT]
            data = data.decode("utf-8", "replace")
        if "\x1b[" in data:  # colours of redis-cli's own (its Lua debugger's lines): kept
            self.log_widget.write(Text.from_ansi(data.rstrip("\n"), style=style))
        else:
            self.log_widget.write(Text(data.rstrip("\n"), style=style))
        if extra:
            self.log_widget.write(Text(extra, style="italic yellow"))

    def note(self, message: str) -> None:
        self.write(f"# {message}", style="italic yellow")

    def on_input_changed(self, event: Input.Changed) -> None:
        hint = self.app.help.hint(event.value) if event.value else None
        text = Text()
        if hint and hint.strip():
            text.append(hint.strip(), style="dim")
            entry = self.app.help.lookup([a.decode(errors="replace") for a in _safe_split(event.value)])
            if entry is not None and entry.summary:
                text.append(f"  — {entry.summary}", style="italic dim")
        set_line(self.query_one("#hint", Static), text)

    def on_command_input_search_changed(self, event: CommandInput.SearchChanged) -> None:
        if event.term is not None:
            set_line(self.query_one("#hint", Static),
                     Text(f"(reverse-i-search)`{event.term}'" + ("" if event.found else " — no match"),
                          style="yellow"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        line = event.value
        why = self.app.executor.busy(self.client)
        if why is not None:  # not echoed as sent: the line stays in the input
            self.note(why)
            return
        event.input.value = ""
        self.write(f"{self.client}> {line}", style="bold")
        self._busy = True  # set before the worker starts: one command at a time per client
        self.run_line(line)

    @work(group="command", exclusive=False, exit_on_error=False)
    async def run_line(self, line: str, argv: list[bytes] | None = None) -> None:
        """Send a typed line (or `argv`, from the Lua editor) through the engine's executor;
        its events are drawn by `handle` as they come."""
        executor = self.app.executor
        self._printed = []
        result = None
        try:
            if argv is None:
                cmd = executor.parse(self.client, line)
                if cmd is None:
                    return
                self.query_one(CommandInput).remember(line, cmd.argv)
                if await executor.answer_locally(self.client, cmd):
                    return
                argv, repeat = cmd.argv, cmd.repeat
            else:
                repeat = 1
            self._record_as = line if repeat == 1 else format_argv(argv)  # scenarios have no repeat counts
            self._pending_since = time.monotonic()
            self.state = self.app.playground.session(self.client).state
            # In this worker (no settle): the state line's own tick (_poll_state) shows
            # a blocked client, and polling the observer would delay the reply.
            result = await executor.run(self.client, argv, repeat, limit=SHOW_LIMIT)
            await self.app.playground.refresh_states()  # then the server's flags, for every state line
        finally:
            self._busy = False
            self._pending_since = None
            recorder = self.app.recorder
            if recorder is not None:
                recorder.abandoned(self.client)  # a command still open was cancelled
            if result is not None:
                text = b"".join(self._printed).decode("utf-8", "replace")
                self.app.transcript.append((self.client, line or format_argv(argv), text))
                self.post_message(CommandDone(self.client, list(argv), result.reply))

    def handle(self, event: ev.Event) -> None:
        """Draw one engine event of this client."""
        recorder = self.app.recorder
        if isinstance(event, ev.Reply):
            self._printed.append(event.output)
            self.write(event.output, style=reply_style(event.reply))
            if event.left_out:
                self.write(f"… ({event.left_out:,} more bytes of this reply not shown)", style="italic yellow")
            if recorder is not None and self._record_as is not None:
                output = render(event.reply, list(event.argv)) if event.left_out else event.output
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
                self.log_widget.write(Text.from_ansi(text.strip("\n") or "(no help for that)"))
        elif isinstance(event, ev.Message):
            self.write(event.output, style=reply_style(event.frame))
        elif isinstance(event, ev.ServerGone):
            self.note(event.text)
            self.post_message(ServerStopped(event.text))
        elif isinstance(event, ev.Notice):
            self.note(event.text)
        elif isinstance(event, ev.Cleared):
            self.action_clear()
        elif isinstance(event, ev.Blocked):
            self.state = self.app.playground.session(self.client).state

    async def type_out(self, line: str, speed: int) -> None:
        """Teaching mode: type `line` into the input at `speed` characters a second."""
        field = self.query_one(CommandInput)
        if not speed:
            field.value = line
            return
        field.value = ""
        for i in range(1, len(line) + 1):
            field.value = line[:i]
            field.cursor_position = i
            await asyncio.sleep(1 / speed)

    def clear_input(self) -> None:
        self.query_one(CommandInput).value = ""

    def show_result(self, result) -> None:
        """Teaching mode: one scenario step as this pane shows it, with its checks."""
        step = result.step
        shown = result.command or step.display
        if step.wait:
            self.write("(the pending reply arrives)", style="italic dim")
        else:
            self.write(f"{self.client}> {shown}", style="bold")
        if result.skipped:
            self.write(f"– skipped: {result.skipped}", style="yellow")
            return
        if result.reply:
            self.write(result.reply.encode(), style=reply_style(result.value))
        if result.note:
            self.note(result.note)
        for check in result.checks:
            if check.ok:
                self.write(f"  ✓ {check.what}", style="green")
            else:
                self.write(f"  ✗ {check.what}: {check.detail}", style="bold white on red")

    async def action_cancel(self) -> None:
        if not await self.app.executor.cancel(self.client):
            self.query_one(Input).value = ""
            return
        self.post_message(CommandDone(self.client, [b"<cancel>"]))

    def action_clear(self) -> None:
        self.log_widget.clear()

    def action_edit_script(self) -> None:
        """Write a Lua script over several lines; it is sent as one EVAL."""
        def send(result: tuple[str, str] | None) -> None:
            if not result:
                return
            source, rest = result
            try:
                tail = split_args(rest)
            except SplitError:
                self.write(INVALID_ARGUMENTS, style="bold red")
                return
            why = self.app.executor.busy(self.client)
            if why is not None:
                self.note(why)
                return
            lines = source.count("\n") + 1
            self.write(f"{self.client}> EVAL <script, {lines} lines> {rest}".rstrip(), style="bold")
            self._busy = True
            argv = [b"EVAL", source.encode(), *(tail or [b"0"])]
            self.run_line(format_argv(argv), argv)

        from .script_editor import ScriptEditor  # TextArea is heavy: import it when asked for

        self.app.push_screen(ScriptEditor(self.client), send)
