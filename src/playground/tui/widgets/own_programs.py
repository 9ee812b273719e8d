"""Programs of the learner's own, started by hand against the gate, in free play.

Ctrl+G opens the stepping gate (gate/endpoint.py) on a unix socket in the private
server's 0700 directory and shows its URL with how to use it. Nothing opens before the
key is pressed. Every connection of a program becomes a line of the "programs" panel
under the two panes: what it ran last (and the reply), and "next: …", the command held at
the gate; Ctrl+N lets the oldest held command through, one at a time, or every command
goes at once while "run free" is on (the palette). A program that disconnects is shown as
gone. Replies go back to the program byte for byte (the gate never re-encodes them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text
from textual.widgets import Static

from playground.i18n import tr
from playground.resp.cli_format import render_head
from playground.served import label
from playground.tui.plain_text import visible

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from playground.engine.executor import Executor
    from playground.engine.playground import Playground
    from playground.gate.endpoint import Gate

SHOWN = 3  # program connections on screen (the newest): the two panes keep their room at 80×24


REPLY_CHARS = 60  # of a reply's line shown
_HEAD_BYTES = 4 * REPLY_CHARS + 64  # of redis-cli's rendering made: a 50 MB value is never rendered whole


def reply_line(line) -> str:
    """A program's line as the executor recorded it (its `LineResult`: engine/program_lines.py)
    in one line of the panel: the first line of what redis-cli --no-raw prints for its reply
    (resp/cli_format.py, the one formatter), control characters written out (a reply never
    breaks the panel's lines), "…" where it is cut or more lines follow; "…" alone while
    there is no reply to show (not recorded yet, or none: CLIENT REPLY OFF)."""
    if line is None or not line.replies:
        return "…"
    head, left = render_head(line.reply, list(line.argv), _HEAD_BYTES)
    first, newline, rest = head.partition(b"\n")
    if newline and first.endswith(b"\r"):  # INFO's lines end in CRLF: a terminal shows no \r
        first = first[:-1]
    text = visible(first.decode("utf-8", "replace"))
    if len(text) > REPLY_CHARS:
        return text[:REPLY_CHARS] + "…"
    return text + " …" if rest or left else text


def _recorded(held):
    """`held`'s line as the executor recorded it, once it is (None before, or never)."""
    record = held.record
    if record is None or not record.done() or record.cancelled() or record.exception() is not None:
        return None
    return record.result()


class ProgramsPanel(Static):
    """The programs started by hand against the gate: one line each."""

    DEFAULT_CSS = """
    ProgramsPanel { display: none; height: auto; max-height: 4; padding: 0 1; background: $boost;
                    text-wrap: nowrap; text-overflow: ellipsis; }
    ProgramsPanel.-open { display: block; }
    """


class OwnProgramsHost(Protocol):
    """What OwnPrograms needs of the app: its playground and executor, the mode's screen
    (its programs line and keys), its WATCH badges (`refresh_states`), and Textual's App
    methods."""

    playground: Playground
    executor: Executor

    @property
    def mode_screen(self) -> Screen[Any]: ...

    def refresh_bindings(self) -> None: ...

    def refresh_states(self) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker[Any]: ...


class OwnPrograms:
    """The app's gate for programs started by hand, and what the panel shows of them."""

    def __init__(self, app: OwnProgramsHost) -> None:
        """Args:
            app: the app whose gate this is (a PlaygroundApp).
        """
        self.app = app
        self.gate: Gate | None = None
        self.url: str | None = None
        self._logged = 0           # gate.log entries already seen
        self._last: dict = {}      # GateClient -> its last answered command (Held)
        self._pending = False

    @property
    def open(self) -> bool:
        return self.gate is not None

    async def start(self) -> str:
        """The gate's URL (opening it the first time). ValueError: no private server."""
        if self.gate is None:
            from playground.gate.endpoint import Gate

            from playground.engine.program_lines import ProgramLines

            gate = Gate.for_playground(self.app.playground)
            # its commands go into the executor's records as typed ones do: lanes, why, "changed by"
            ProgramLines(self.app.executor.recorder).attach(gate, name=lambda client: client.name)
            self.url = url = await gate.listen(None)
            self.gate = gate
            gate.listeners.append(self._changed)
            self.app.playground.closing.append(self.close)
            self.app.mode_screen.query_one(ProgramsPanel).add_class("-open")
            self.app.refresh_bindings()
            self._refresh()
            return url
        return self.url or ""

    async def close(self) -> None:
        gate, self.gate, self.url = self.gate, None, None
        if gate is not None:
            gate.listeners.clear()  # (the app may be going: nothing to show any more)
            await gate.close()
        self._last.clear()
        self._logged = 0
        if self.close in self.app.playground.closing:
            self.app.playground.closing.remove(self.close)

    def release_next(self) -> None:
        """Ctrl+N in free play: the oldest held command goes to the server."""
        if self.gate is None:
            return
        held = self.gate.held()
        if not held:
            self.app.notify(tr("No program command is waiting at the gate"), timeout=3)
            return
        self.gate.release(held[0])

    def toggle_free(self) -> None:
        if self.gate is None:
            self.app.notify(tr("Open the gate first (Ctrl+G)"), timeout=3)
            return
        self.gate.run_free(not self.gate.free_running)
        self._refresh()

    def _changed(self) -> None:
        if not self._pending:  # one refresh for a burst of changes (a free-running program)
            self._pending = True
            self.app.call_later(self._refresh)

    def _refresh(self) -> None:
        self._pending = False
        if self.gate is None:
            return
        from textual.css.query import NoMatches

        from playground.tui.widgets.key_inspector import KeyInspector

        try:  # (a program that goes while the app quits: its screen's widgets are gone)
            screen = self.app.mode_screen
            inspector, panel = screen.query_one(KeyInspector), screen.query_one(ProgramsPanel)
        except NoMatches:
            return
        log = self.gate.log
        if len(log) > self._logged:
            for held in log[self._logged:]:
                if not held.unstepped:  # (the client library's handshake is not what it ran)
                    self._last[held.client] = held
                if held.record is not None and not held.record.done():  # its reply, who wrote what: once recorded
                    held.record.add_done_callback(lambda _: self.app.call_later(self._recorded))
            self._logged = len(log)
            inspector.refresh_keys()
        self.app.refresh_states()  # (a connection that ended: its WATCHes are gone)
        panel.update(self.render())

    def _recorded(self) -> None:
        """A program's line is recorded: the panel shows its reply, "changed by" names
        the program for what it wrote, and the WATCH badges follow its WATCH, EXEC,
        DISCARD or UNWATCH (and anyone's write to a WATCHed key)."""
        from textual.css.query import NoMatches

        from playground.tui.widgets.key_inspector import KeyInspector
        if self.gate is not None:
            try:  # (the app may be quitting: its screen's widgets are gone)
                screen = self.app.mode_screen
                screen.query_one(KeyInspector).refresh_keys()
                screen.query_one(ProgramsPanel).update(self.render())
            except NoMatches:
                return
            self.app.refresh_states()

    def render(self) -> Text:
        gate = self.gate
        text = Text(no_wrap=True, overflow="ellipsis")
        if gate is None:  # (closed: the panel is hidden)
            return text
        free = tr("run free: on") if gate.free_running else tr("run free: off")
        text.append(tr("Your programs"), style="bold")
        text.append(" · " + label(tr("Ctrl+N: next")) + " · " + free
                    + " · " + tr("Ctrl+G: the URL"), style="dim")
        clients = gate.clients[-SHOWN:] if SHOWN else []
        if not clients:
            text.append("\n" + tr("none yet: REDIS_URL={url} python myprog.py", url=self.url))
        hidden = len(gate.clients) - len(clients)
        if hidden:  # on the first line: the panel's height stays bounded
            text.append(" · " + tr("(and {n} more)", n=hidden), style="dim")
        for client in clients:
            text.append("\n" + visible(client.name), style="bold cyan")
            last = self._last.get(client)
            if last is not None:
                text.append(f"  {visible(last.display)} → {reply_line(_recorded(last))}")
            if client.closed:
                text.append("  " + tr("gone (disconnected)"), style="red")
            elif client.next is not None and not client.next.unstepped:
                text.append("  " + tr("next: {command}", command=visible(client.next.display)), style="bold yellow")
        return text

    def server_restarted(self) -> None:
        """A fresh server has a fresh directory: the old socket is gone with it."""
        if self.gate is not None:
            self.app.mode_screen.query_one(ProgramsPanel).remove_class("-open")
            self.app.notify(tr("The gate closed with the old server: Ctrl+G opens a new one"), timeout=5)
            self.app.run_worker(self._close_gate(), group="own-gate", exit_on_error=False)

    async def _close_gate(self) -> None:
        await self.close()
        self.app.refresh_bindings()


def usage_text(url: str) -> Text:
    """What Ctrl+G shows: the URL and how a program uses it."""
    text = Text()
    text.append(tr("Paste this URL into your own program:") + "\n\n", style="bold")
    text.append("  " + url + "\n\n", style="bold cyan")
    text.append(tr("Start it from a shell, e.g.") + "\n\n")
    text.append(f"  REDIS_URL={url} python myprog.py\n\n", style="cyan")
    text.append(tr("and in a redis-py program connect with") + "\n\n")
    text.append('  r = redis.Redis.from_url(os.environ["REDIS_URL"])\n\n', style="cyan")
    text.append(tr("Each of its connections appears in the programs panel under the panes; every command it "
                   "sends waits there as \"next: …\" until Ctrl+N lets it through (or all go at once while "
                   "\"run free\" is on: Ctrl+P, Programs run free). Replies go back byte for byte; the key "
                   "inspector follows. The socket is in the private server's own directory (only you can "
                   "reach it), and goes when the app quits or the server restarts."))
    return text
