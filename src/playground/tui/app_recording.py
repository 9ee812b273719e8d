"""The app's recordings and exports: F9 records a session as a scenario file, the
transcript as Markdown, the screen as SVG. (A mixin of PlaygroundApp.)"""

from __future__ import annotations

from pathlib import Path

from textual import work

from playground.history import exports_dir, state_dir
from playground.i18n import tr
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
            path = recorder.save(directory, "Recorded session", tuple(self.clients))
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
        directory = exports_dir()
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text, encoding="utf-8")
        if delivered(self, directory / name):
            return
        self.notify(tr("Transcript written to {path}", path=directory / name))

    def action_save_svg(self) -> None:
        directory = exports_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = self.save_screenshot(path=str(directory))
        if delivered(self, Path(path)):
            return
        self.notify(tr("Screen saved as {path}", path=path))


def session_markdown(transcript: list[tuple[str, str, str]], clients: list[str], server: str) -> str:
    """A free-typing session as a Markdown table, one row per command, one column per client."""
    out = ["# redis-playground session", "", f"Server: {server}", "",
           "| # | " + " | ".join(clients) + " |", "|---|" + "---|" * len(clients)]
    for i, (client, command, printed) in enumerate(transcript, 1):
        cells = [""] * len(clients)
        body = [f"`{client}> {command}`"] + [f"`{line}`" for line in printed.rstrip("\n").split("\n") if line]
        cells[clients.index(client) if client in clients else 0] = "<br>".join(body).replace("|", "\\|")
        out.append(f"| {i} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
