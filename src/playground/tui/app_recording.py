"""The app's recordings and exports: F9 records a session as a scenario file, the
transcript as Markdown, the screen as SVG. (A mixin of PlaygroundApp.)"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from textual import work

from playground.history import exports_dir, state_dir, write_failure, write_private
from playground.i18n import N_, tr
from playground.served import delivered
from .client_pane import ClientPane


class RecordingActions:
    """PlaygroundApp's actions that write files."""

    def action_record(self) -> None:
        if self.recorder is not None:
            recorder, self.recorder = self.recorder, None
            if not len(recorder):
                self.notify(tr("Recording stopped: nothing was typed."))
                return
            directory = Path(self.scenario_dirs[0]) if self.scenario_dirs else state_dir() / "scenarios"
            try:
                path = recorder.save(directory, "Recorded session", tuple(self.clients))
            except OSError as exc:  # kept: the recording goes on, F9 tries again
                self.recorder = recorder
                self.notify(write_failure(directory, exc) + tr(" (still recording: F9 tries again)"),
                            severity="error", timeout=10)
                return
            if delivered(self, path):
                return
            self.notify(tr("Recording saved: {path}\nReplay it with: redis-playground check {path}", path=path), timeout=10)
            return

        def go(yes: bool | None) -> None:
            if yes:
                self._start_recording()

        from .confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(tr("Recording starts from an empty server (every key and script is "
                                       "deleted) so that the file replays the same. Start?")), go)

    @work(group="server", exit_on_error=False)
    async def _start_recording(self) -> None:
        try:
            await self.playground.reset()
        except Exception as exc:
            self.notify(tr("cannot record: {error}", error=exc), severity="error")
            return
        self.playground.writes.forget()
        from playground.scenario.recorder import Recorder

        self.recorder = Recorder()
        for name in self.clients:
            self.query_one(f"#pane-{name}", ClientPane).note(tr("recording: type in A and B; F9 stops"))
        self.refresh_everything()

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
        panes = [pane for pane in self.query(ClientPane) if pane.shows_secrets]
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
