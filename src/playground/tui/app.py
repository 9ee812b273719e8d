"""The TUI app: server bar, clients A and B side by side, the key inspector, the footer.

`make_app` is the one factory the CLI and the tests share (like posting's make_posting).
"""

from __future__ import annotations

import signal
from typing import Iterable

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Static

from ..engine import Playground
from ..attribution import WriteTracker
from ..help import HelpIndex
from ..inspector import Inspector
from ..replies import Bulk
from ..server import ServerError
from .client_pane import ClientPane
from .confirm import ConfirmScreen
from .info_screens import InfoScreen, scripts_text
from .key_inspector import KeyInspector
from .messages import CommandDone, ServerStopped
from .server_bar import ServerBar


class PlaygroundApp(App):
    """Two real clients on a private server, and every key they touch."""

    TITLE = "redis-playground"
    CSS = """
    #panes { height: 2fr; }
    #banner { display: none; height: auto; background: $error; color: $text; padding: 0 1; }
    #banner.-shown { display: block; }
    .-narrow #panes { layout: vertical; }
    .-short #panes { height: 3fr; }
    .-short KeyInspector > #filter { display: none; }
    .-short KeyInspector.-filtering > #filter { display: block; }
    """

    BINDINGS = [
        Binding("f2", "focus_client('A')", "Client A"),
        Binding("f3", "focus_client('B')", "Client B"),
        Binding("f4", "focus_inspector", "Keys"),
        Binding("f5", "restart_server", "Restart server"),
        Binding("f6", "show_scripts", "Scripts"),
        Binding("f8", "flush", "Flush db"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, playground: Playground, clients: Iterable[str] = ("A", "B")) -> None:
        super().__init__()
        self.playground = playground
        self.clients = list(clients)
        self.inspector: Inspector | None = None
        self.help: HelpIndex = HelpIndex.bundled()  # replaced by the server's COMMAND DOCS
        self.tracker: WriteTracker | None = None      # who last wrote each key

    def compose(self) -> ComposeResult:
        yield ServerBar(id="server-bar")
        yield Static(id="banner")
        with Horizontal(id="panes"):
            for name in self.clients:
                yield ClientPane(name)
        yield KeyInspector()
        yield Footer()

    def on_mount(self) -> None:
        loop = __import__("asyncio").get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, self.exit)
            except (NotImplementedError, RuntimeError):
                pass
        for name in self.clients:
            self.playground.session(name).on_stream = self._on_stream
        self.query_one(f"#pane-{self.clients[0]} Input").focus()
        self.start_playground()

    def on_resize(self, event) -> None:
        # Side by side down to 70 columns (the race is easier to follow); stacked below.
        self.set_class(event.size.width < 70, "-narrow")
        self.set_class(event.size.height < 30, "-short")

    @work(exclusive=True, group="server", exit_on_error=False)
    async def start_playground(self) -> None:
        bar = self.query_one(ServerBar)
        try:
            await self.playground.start()
            self.inspector = self.playground.reader
            self.tracker = WriteTracker(self.playground.reader)
            self.help = await self.playground.help_index()
        except (ServerError, OSError, Exception) as exc:
            bar.label = "no server"
            bar.stopped = True
            self.show_banner(f"The server could not start: {exc}")
            return
        bar.label = self.playground.label
        bar.where = self.playground.address.describe()
        bar.stopped = False
        self.hide_banner()
        self.query_one(KeyInspector).attach(self.inspector)
        self._refresh_states()
        self._update_server_info()

    def _on_stream(self, session, frame) -> None:
        self.query_one(f"#pane-{session.name}", ClientPane).show_frame(frame)
        self.query_one(KeyInspector).refresh_keys()

    async def on_command_done(self, message: CommandDone) -> None:
        """One command finished: note what it wrote, then refresh states and keys once."""
        if self.tracker is not None and message.reply is not None:
            try:
                await self.tracker.note(message.client, message.argv, message.reply, message.was_in_multi)
            except Exception:
                pass  # server busy or gone: the attribution of this write is unknown
        self._refresh_states()
        self.query_one(KeyInspector).refresh_keys()
        self._update_server_info()

    def _refresh_states(self) -> None:
        """Every pane's state line and the inspector's WATCH badges, from the engine."""
        watchers: dict[bytes, list[tuple[str, bool]]] = {}
        for name in self.clients:
            state = self.playground.session(name).state
            self.query_one(f"#pane-{name}", ClientPane).state = state
            for key in state.watched:
                watchers.setdefault(key, []).append((name, state.dirty))
        self.query_one(KeyInspector).set_watchers(watchers)

    def get_system_commands(self, screen):
        """The command palette (Ctrl+P): Textual's own commands and every playground action."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Focus client A", "Type into client A's pane", lambda: self.action_focus_client("A"))
        yield SystemCommand("Focus client B", "Type into client B's pane", lambda: self.action_focus_client("B"))
        yield SystemCommand("Focus keys", "Browse the key inspector", self.action_focus_inspector)
        yield SystemCommand("Restart server", "A fresh, empty private server", self.action_restart_server)
        yield SystemCommand("Flush database", "Delete every key and cached script (asks first)",
                            self.action_flush)
        yield SystemCommand("Show cached scripts", "Which scripts SCRIPT EXISTS still knows",
                            self.action_show_scripts)

    @work(group="scripts", exit_on_error=False)
    async def action_show_scripts(self) -> None:
        try:
            scripts = await self.playground.cached_scripts()
        except Exception as exc:
            self.notify(f"cannot ask the server: {exc}", severity="error")
            return
        self.push_screen(InfoScreen("Lua scripts seen in this session", scripts_text(scripts)))

    @work(exclusive=True, group="server-info", exit_on_error=False)
    async def _update_server_info(self) -> None:
        if self.inspector is None:
            return
        try:
            reply = (await self.inspector.run([[b"INFO", b"memory"], [b"INFO", b"clients"]]))
        except Exception:
            return
        info = {}
        for part in reply:
            if isinstance(part, Bulk):
                for line in bytes(part).decode(errors="replace").splitlines():
                    key, _, value = line.partition(":")
                    info[key] = value
        bar = self.query_one(ServerBar)
        bar.memory = info.get("used_memory_human", "")
        bar.clients = int(info.get("connected_clients", "0") or 0)

    def on_server_stopped(self, message: ServerStopped) -> None:
        self.query_one(ServerBar).stopped = True
        self.show_banner(f"{message.reason}. Press F5 to start a fresh server.")

    def show_banner(self, text: str) -> None:
        banner = self.query_one("#banner", Static)
        banner.update(text)
        banner.add_class("-shown")

    def hide_banner(self) -> None:
        self.query_one("#banner", Static).remove_class("-shown")

    def action_focus_client(self, name: str) -> None:
        self.query_one(f"#pane-{name} Input").focus()

    def action_focus_inspector(self) -> None:
        self.query_one("#inspector #keys").focus()

    @work(exclusive=True, group="server", exit_on_error=False)
    async def action_restart_server(self) -> None:
        if not self.playground.private:
            self.notify("This is not the playground's own server (--url): it cannot be restarted.",
                        severity="warning")
            return
        try:
            message = await self.playground.restart()
            self.inspector = self.playground.reader
            self.tracker = WriteTracker(self.playground.reader)
            self.query_one(KeyInspector).attach(self.inspector)
        except Exception as exc:
            self.show_banner(f"Restart failed: {exc}")
            return
        bar = self.query_one(ServerBar)
        bar.stopped = False
        bar.where = self.playground.address.describe()
        self.hide_banner()
        for name in self.clients:
            self.query_one(f"#pane-{name}", ClientPane).note(message)
        self._refresh_states()
        self.query_one(KeyInspector).refresh_keys()

    def action_flush(self) -> None:
        def confirmed(yes: bool | None) -> None:
            if yes:
                self._flush()

        self.push_screen(ConfirmScreen("Delete every key and cached script on this server?"), confirmed)

    @work(group="server", exit_on_error=False)
    async def _flush(self) -> None:
        try:
            await self.playground.flushall()
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        if self.tracker is not None:
            self.tracker.forget()
        self.notify("Flushed: no keys, no cached scripts.")
        self.query_one(KeyInspector).refresh_keys()

    async def on_unmount(self) -> None:
        await self.playground.close()


def make_app(server_choice: str | None = None, url: str | None = None,
             allow_flush: bool = False, clients: Iterable[str] = ("A", "B")) -> PlaygroundApp:
    """The app on a fresh private server (or an explicit --url); shared by CLI and tests."""
    playground = Playground.create(server_choice=server_choice, url=url,
                                   allow_flush=allow_flush, clients=clients)
    return PlaygroundApp(playground, clients=clients)


def run_app(args) -> int:
    app = make_app(args.server, args.url, args.allow_flush, args.clients)
    try:
        app.run()
    finally:
        if app.playground.server is not None:
            app.playground.server.stop()  # whatever happened, the server goes with us
    return app.return_code or 0
