"""The bar at the top: which server, where, and how it is doing."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

from playground.i18n import N_, tr

STARTING = N_("starting…")


class ServerBar(Static):
    """One line: flavour and version (and where it came from), socket, memory, clients."""

    DEFAULT_CSS = """
    ServerBar { height: 1; background: $primary-background; color: $text; padding: 0 1;
                text-wrap: nowrap; text-overflow: ellipsis; }
    ServerBar.-stopped { background: $error; }
    """

    label: reactive[str] = reactive(STARTING)
    """What the server is, e.g. "Valkey 9.1.2 (bundled)"."""
    where: reactive[str] = reactive("")
    """The unix socket (or the --url address)."""
    memory: reactive[str] = reactive("")
    """used_memory_human from INFO."""
    clients: reactive[int] = reactive(0)
    """connected_clients from INFO (our observer and inspector included)."""
    stopped: reactive[bool] = reactive(False)
    """True while the server is down."""
    restartable: reactive[bool] = reactive(True)
    """The playground owns the server (F5 starts a fresh one); False under --url."""
    show_stats: reactive[bool] = reactive(True)
    """Show memory and connections (they change all the time; pictures and slides may not want them)."""

    def render(self) -> str:
        if self.stopped:
            if not self.restartable:
                return self.label + tr(" — UNREACHABLE")
            return self.label + tr(" — STOPPED (F5 restarts a fresh server)")
        parts = [tr(self.label) if self.label == STARTING else self.label, self.where]
        if self.memory and self.show_stats:
            parts.append(tr("mem {memory}", memory=self.memory))
        if self.clients and self.show_stats:
            parts.append(tr("{count} connections", count=self.clients))
        return "  │  ".join(p for p in parts if p)

    def watch_stopped(self, stopped: bool) -> None:
        self.set_class(stopped, "-stopped")
