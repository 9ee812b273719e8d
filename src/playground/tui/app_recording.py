"""The app's exports: the transcript as Markdown, the screen as SVG (recording a session
is free play's F9: free_play_screen.py). (A mixin of PlaygroundApp.)"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from playground.history import exports_dir, write_failure, write_private
from playground.i18n import N_, tr
from playground.served import delivered
from playground.tui.widgets.client_pane import ClientPane


class RecordingActions:
    """PlaygroundApp's actions that write files."""

    def action_export_transcript(self) -> None:
        if self.teacher is not None:
            text = self.teacher.transcript_markdown()
            name = f"{self.teacher.scenario.id}-transcript.md"
        else:
            text = session_markdown(self.transcript, self.clients, self.playground.label)
            name = "session-transcript.md"
        self.write_export(name, text, N_("Transcript written to {path}"))

    def write_export(self, name: str, text: str, done: str) -> Path | None:
        """Write an export (0600) where exports go and say where (`done`, untranslated,
        with {path}); a write that fails (a full disk, a read-only directory) is one
        notice naming the path and the reason, and the app goes on."""
        path = exports_dir() / name
        try:
            write_private(path, text)
        except OSError as exc:
            self.notify(write_failure(path, exc), severity="error", timeout=10)
            return None
        if not delivered(self, path):  # served: a download in the learner's browser
            self.notify(tr(done, path=path))
        return path

    def action_save_svg(self) -> None:
        """The screen as SVG, with the panes' secrets left out (drawn without them for
        the moment of the picture, as every export leaves them out)."""
        panes = [pane for pane in self.mode_screen.query(ClientPane) if pane.shows_secrets]
        name = re.sub(r'[ <>:"/\\|?*.]', "_", f"{self.title} {datetime.now().isoformat()}") + ".svg"  # Textual's name

        def take() -> None:
            try:
                svg = self.export_screenshot()
            finally:
                for pane in panes:
                    pane.redraw()
            self.write_export(name, svg, N_("Screen saved as {path}"))

        for pane in panes:
            pane.redraw(secretless=True)
        if panes:
            self.call_after_refresh(take)
        else:
            take()


def session_markdown(transcript: list[tuple[str, str, str]], clients: list[str], server: str) -> str:
    """A free-typing session as a Markdown table, one row per command, one column per client
    (secrets left out: `redact_exchange`)."""
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
