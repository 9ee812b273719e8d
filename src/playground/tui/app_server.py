"""The app's server lifecycle: the bar's figures, a server that stopped, F5 (a fresh
server, after asking) and F8 (flush, after asking). (A mixin of PlaygroundApp.)"""

from __future__ import annotations

from textual import work
from textual.widgets import Static

from playground.engine.playground import Refused
from playground.i18n import tr
from playground.resp.info_text import parse_info
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.messages import ServerStopped
from playground.tui.plain_text import visible_text
from playground.tui.widgets.server_bar import ServerBar


class ServerActions:
    """PlaygroundApp's side of the private server."""

    @work(exclusive=True, group="server-info", exit_on_error=False)
    async def _update_server_info(self) -> None:
        if self.inspector is None or not self.mode_screen.is_mounted:
            return
        bar = self.mode_screen.query_one(ServerBar)
        if not bar.stopped and self.playground.server_stopped():  # killed from outside
            code = self.playground.server.process.returncode
            self.post_message(ServerStopped(tr("The server stopped (exit status {code})", code=code)))
            return
        try:
            reply = (await self.inspector.run([[b"INFO", b"memory"], [b"INFO", b"clients"]]))
        except Exception:
            return
        info = {}
        for part in reply:
            info.update(parse_info(part))
        bar.memory = info.get("used_memory_human", "")
        bar.clients = int(info.get("connected_clients", "0") or 0)
        if self.playground.topology is not None:  # every node: role, replication offset, lag
            from playground.engine.topology_ops import topology_summary
            bar.where = await topology_summary(self.playground.topology)

    def on_server_stopped(self, message: ServerStopped) -> None:
        self.mode_screen.query_one(ServerBar).stopped = True
        self.show_banner(tr("{reason}. Press F5 to start a fresh server.", reason=message.reason))

    def show_banner(self, text: str) -> None:
        banner = self.mode_screen.query_one("#banner", Static)
        banner.update(visible_text(text))  # it can quote the server: words, never markup
        banner.add_class("-shown")

    def hide_banner(self) -> None:
        self.mode_screen.query_one("#banner", Static).remove_class("-shown")

    def action_restart_server(self) -> None:
        """F5: a fresh server; asks first (like F8) unless the server already stopped."""
        if self.class_mode.refused("restart_server"):  # serve --class: follow me (the palette calls this too)
            return
        if not self.playground.private or self.mode_screen.query_one(ServerBar).stopped or self.playground.server_stopped():
            self._restart_server()
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._restart_server()

        from playground.tui.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(tr("Start a fresh server? Every key, cached script and client state "
                                          "(MULTI, WATCH, subscriptions) is lost.")), confirmed)

    @work(exclusive=True, group="server", exit_on_error=False)
    async def _restart_server(self) -> None:
        if not self.playground.private:
            self.notify(tr("This is not the playground's own server (--url): it cannot be restarted."),
                        severity="warning")
            return
        try:
            message = await self.playground.restart()  # the bar and inspector follow (ServerRestarted)
        except Exception as exc:
            self.show_banner(tr("Restart failed: {error}", error=exc))
            return
        for name in self.clients:
            self.pane(name).note(message)

    def action_flush(self) -> None:
        if self.class_mode.refused("flush"):  # serve --class: follow me
            return
        try:  # refused (a --url server without --allow-flush): said before asking, not after Yes
            self.playground.check_allowed([b"flushall"])
        except Refused as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._flush()

        from playground.tui.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(tr("Delete every key and cached script on this server?")), confirmed)

    @work(group="server", exit_on_error=False)
    async def _flush(self) -> None:
        try:
            await self.playground.flushall()
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(tr("Flushed: no keys, no cached scripts."))
        self.mode_screen.query_one(KeyInspector).refresh_keys()
