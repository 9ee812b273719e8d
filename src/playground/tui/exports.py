"""The app's exports: the transcript as Markdown, the screen as SVG, and the one way any
export is written (recording a session is free play's F9: free_play_screen.py).

An object the app owns (`PlaygroundApp.exports`), made with the app it serves; what it
needs of the app is `ExportHost`."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from playground.history import exports_dir, write_failure, write_private
from playground.i18n import N_, tr
from playground.served import delivered
from playground.tui.widgets.client_pane import ClientPane

if TYPE_CHECKING:
    from playground.engine.playground import Playground
    from textual.screen import Screen


class ExportHost(Protocol):
    """What Exports needs of the app: what was typed, the open scenario, the screen, and
    Textual's App methods (a notice, a picture of the screen, a download when served)."""

    playground: Playground
    clients: list[str]
    transcript: list[tuple[str, str, str]]
    title: str

    @property
    def scenario_run(self) -> Any: ...  # the open scenario's tui ScenarioRun, None in free play

    @property
    def mode_screen(self) -> Screen[Any]: ...  # (its panes are asked whether they show a secret)

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str: ...

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def deliver_binary(self, path_or_file: Any, *args: Any, **kwargs: Any) -> str | None: ...


class Exports:
    """Files the app writes for the learner (0600, where exports go)."""

    def __init__(self, app: ExportHost) -> None:
        """Args:
            app: the app that writes them (a PlaygroundApp).
        """
        self.app = app

    def transcript(self) -> None:
        """The open scenario's transcript, or free play's session, as Markdown."""
        app = self.app
        if app.scenario_run is not None:
            text = app.scenario_run.transcript_markdown()
            name = f"{app.scenario_run.scenario.id}-transcript.md"
        else:
            text = session_markdown(app.transcript, app.clients, app.playground.label)
            name = "session-transcript.md"
        self.write(name, text, N_("Transcript written to {path}"))

    def write(self, name: str, text: str, done: str) -> Path | None:
        """Write an export (0600) where exports go and say where (`done`, untranslated,
        with {path}); a write that fails (a full disk, a read-only directory) is one
        notice naming the path and the reason, and the app goes on.

        Args:
            name: the file's name.
            text: what it holds.
            done: the notice once written (untranslated, with {path}).
        """
        path = exports_dir() / name
        try:
            write_private(path, text)
        except OSError as exc:
            self.app.notify(write_failure(path, exc), severity="error", timeout=10)
            return None
        if not delivered(self.app, path):  # served: a download in the learner's browser
            self.app.notify(tr(done, path=path))
        return path

    def screen_svg(self) -> None:
        """The screen as SVG, with the panes' secrets left out (drawn without them for
        the moment of the picture, as every export leaves them out)."""
        app = self.app
        panes = [pane for pane in app.mode_screen.query(ClientPane) if pane.shows_secrets]
        name = re.sub(r'[ <>:"/\\|?*.]', "_", f"{app.title} {datetime.now().isoformat()}") + ".svg"  # Textual's name

        def take() -> None:
            try:
                svg = app.export_screenshot()
            finally:
                for pane in panes:
                    pane.redraw()
            self.write(name, svg, N_("Screen saved as {path}"))

        for pane in panes:
            pane.redraw(secretless=True)
        if panes:
            app.call_after_refresh(take)
        else:
            take()


def session_markdown(transcript: list[tuple[str, str, str]], clients: list[str], server: str) -> str:
    """A free-typing session as a Markdown table, one row per command, one column per client
    (secrets left out: `redact_exchange`).

    Args:
        transcript: (client, command, what it printed), in the order typed.
        clients: the clients, one column each.
        server: what the server is (its label).
    """
    from playground.resp.cli_secrets import redact_exchange

    out = ["# redis-playground session", "", f"Server: {server}", "",
           "| # | " + " | ".join(clients) + " |", "|---|" + "---|" * len(clients)]
    for i, (client, command, printed) in enumerate(transcript, 1):
        cells = [""] * len(clients)
        command, printed = redact_exchange(command, printed)
        body = [f"`{client}> {command}`"] + [f"`{line}`" for line in printed.rstrip("\n").split("\n") if line]
        cells[clients.index(client) if client in clients else 0] = "<br>".join(body).replace("|", "\\|")
        out.append(f"| {i} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
