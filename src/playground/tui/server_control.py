"""The app's side of its server: the bar's figures, a server that stopped, F5 (a fresh
server, after asking) and F8 (flush, after asking).

An object the app owns (`PlaygroundApp.server_control`), made with the app it serves; what
it needs of the app is `ServerHost`. Its workers are the app's (`run_worker`): they live
as long as the app, whichever mode's screen shows the bar."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.widgets import Static

from playground.engine.playground import Playground, Refused
from playground.i18n import tr
from playground.resp.info_text import parse_info
from playground.tui.messages import ServerStopped
from playground.tui.plain_text import visible_text
from playground.tui.dialogs.confirm import ConfirmScreen
from playground.tui.widgets.server_bar import ServerBar

if TYPE_CHECKING:
    from textual.message import Message
    from textual.worker import Worker

    from playground.engine.key_reader import Inspector
    from playground.tui.class_mode.class_mode import ClassMode
    from playground.tui.screens.mode_screen import ModeScreen
    from playground.tui.widgets.client_pane import ClientPane


class ServerHost(Protocol):
    """What ServerControl needs of the app: its playground, inspector and mode's screen,
    class mode (follow me refuses F5 and F8), and Textual's App methods."""

    playground: Playground
    inspector: Inspector | None
    clients: list[str]
    class_mode: ClassMode

    @property
    def mode_screen(self) -> ModeScreen: ...

    def pane(self, client: str) -> ClientPane: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker[Any]: ...


class ServerControl:
    """The app's server lifecycle as its screens show it (the bar, the banner)."""

    def __init__(self, app: ServerHost) -> None:
        """Args:
            app: the app whose server this is (a PlaygroundApp).
        """
        self.app = app

    @property
    def playground(self) -> Playground:
        """The app's playground (its server and clients)."""
        return self.app.playground

    # -- the bar ---------------------------------------------------------------------

    def update_info(self) -> Worker[None]:
        """The bar's memory, clients and (a topology) nodes, asked of the server: once a
        second and after anything ran; a server killed from outside says so."""
        return self.app.run_worker(self._update_info, name="update_server_info", group="server-info",
                                   exclusive=True, exit_on_error=False)

    async def _update_info(self) -> None:
        app = self.app
        if app.inspector is None or not app.mode_screen.is_mounted:
            return
        bar = app.mode_screen.query_one(ServerBar)
        server = self.playground.server
        if not bar.stopped and server is not None and self.playground.server_stopped():  # killed from outside
            code = server.process.returncode if server.process is not None else None
            app.post_message(ServerStopped(tr("The server stopped (exit status {code})", code=code)))
            return
        try:
            reply = await app.inspector.run([[b"INFO", b"memory"], [b"INFO", b"clients"]])
        except Exception:
            return
        info: dict[str, str] = {}
        for part in reply:
            info.update(parse_info(part))
        bar.memory = info.get("used_memory_human", "")
        bar.clients = int(info.get("connected_clients", "0") or 0)
        if self.playground.topology is not None:  # every node: role, replication offset, lag
            from playground.engine.topology_ops import topology_summary
            bar.where = await topology_summary(self.playground.topology)

    def stopped(self, reason: str) -> None:
        """The server is gone (ServerStopped): the bar and the banner say so."""
        self.app.mode_screen.query_one(ServerBar).stopped = True
        self.show_banner(tr("{reason}. Press F5 to start a fresh server.", reason=reason))

    def show_banner(self, text: str) -> None:
        """The banner over the mode's screen, saying `text`."""
        banner = self.app.mode_screen.query_one("#banner", Static)
        banner.update(visible_text(text))  # it can quote the server: words, never markup
        banner.add_class("-shown")

    def hide_banner(self) -> None:
        """The banner gone."""
        self.app.mode_screen.query_one("#banner", Static).remove_class("-shown")

    # -- F5: a fresh server ------------------------------------------------------------

    def ask_restart(self) -> None:
        """F5: a fresh server; asks first (like F8) unless the server already stopped."""
        if self.app.class_mode.refused("restart_server"):  # serve --class: follow me (the palette calls this too)
            return
        if (not self.playground.private or self.app.mode_screen.query_one(ServerBar).stopped
                or self.playground.server_stopped()):
            self.restart()
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.restart()

        self.app.push_screen(ConfirmScreen(tr("Start a fresh server? Every key, cached script and client state "
                                              "(MULTI, WATCH, subscriptions) is lost.")), confirmed)

    def restart(self) -> Worker[None]:
        """A fresh server now, without asking (the bar and inspector follow: ServerRestarted)."""
        return self.app.run_worker(self._restart, name="restart_server", group="server", exclusive=True,
                                   exit_on_error=False)

    async def _restart(self) -> None:
        if not self.playground.private:
            self.app.notify(tr("This is not the playground's own server (--url): it cannot be restarted."),
                            severity="warning")
            return
        try:
            message = await self.playground.restart()  # the bar and inspector follow (ServerRestarted)
        except Exception as exc:
            self.show_banner(tr("Restart failed: {error}", error=exc))
            return
        for name in self.app.clients:
            self.app.pane(name).note(message)

    # -- F8: flush ---------------------------------------------------------------------

    def ask_flush(self) -> None:
        """F8: every key and cached script deleted, after asking."""
        if self.app.class_mode.refused("flush"):  # serve --class: follow me
            return
        try:  # refused (a --url server without --allow-flush): said before asking, not after Yes
            self.playground.check_allowed([b"flushall"])
        except Refused as exc:
            self.app.notify(str(exc), severity="error", timeout=10)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.flush()

        self.app.push_screen(ConfirmScreen(tr("Delete every key and cached script on this server?")), confirmed)

    def flush(self) -> Worker[None]:
        """Flush now, without asking."""
        return self.app.run_worker(self._flush, name="flush", group="server", exit_on_error=False)

    async def _flush(self) -> None:
        try:
            await self.playground.flushall()
        except Exception as exc:
            self.app.notify(str(exc), severity="error")
            return
        self.app.notify(tr("Flushed: no keys, no cached scripts."))
        self.app.mode_screen.refresh_keys()
