"""Free play: two real clients typing on the private server, the key inspector, the
recorder (F9) and programs of the learner's own at the gate (Ctrl+G, Ctrl+N)."""

from __future__ import annotations

from textual import work
from textual.binding import Binding

from playground.engine.playground import Refused
from playground.history import write_failure
from playground.i18n import N_, tr
from playground.served import delivered, key_display, keys
from playground.tui.screens.mode_screen import HELP, SHARED, ModeScreen


class FreePlayScreen(ModeScreen, inherit_bindings=False):
    """Type in A and B; nothing is scripted."""

    BINDINGS = [
        HELP,
        *SHARED,
        Binding("f9", "record", "Record", show=False,
                tooltip=N_("record what you type as a scenario (F9 again saves)")),
        Binding("ctrl+g", "open_gate", "Your program", show=False,  # a pane's reverse search takes it first
                tooltip=N_("the URL for a program of your own (REDIS_URL): its commands wait at the gate")),
        Binding(keys("ctrl+n"), "release_next", "Next", priority=True, key_display=key_display("ctrl+n"),
                tooltip=N_("let the next held command of your programs through (after Ctrl+G)")),
    ]
    """The footer fits 80 columns: F1, the clients, F7, the server order."""

    INTRO = N_("Free play: two real clients, A and B, on a private server. Type a command in a pane "
               "(SET greeting hello), then watch the other client and the key inspector. "
               "F7 opens a lesson.")
    KEYS_TITLE = N_("Free play")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "release_next":  # only while the gate is open
            return self.host.own_programs.open
        return super().check_action(action, parameters)

    def action_release_next(self) -> None:
        """Ctrl+N: a program's held command goes to the server."""
        self.host.own_programs.release_next()

    @work(group="own-gate", exit_on_error=False)
    async def action_open_gate(self) -> None:
        from playground.tui.dialogs.info_screens import InfoScreen
        from playground.tui.widgets.own_programs import usage_text

        try:
            url = await self.host.own_programs.start()
        except ValueError:
            self.notify(tr("The gate needs the playground's own private server (not --url)"), severity="error")
            return
        except OSError as exc:
            self.notify(tr("The gate cannot open: {error}", error=exc.strerror or exc), severity="error")
            return
        self.app.push_screen(InfoScreen(tr("Your own program (Esc closes)"), lambda: usage_text(url)))

    def action_record(self) -> None:
        """F9: record a session as a scenario file (F9 again saves)."""
        app = self.host
        if app.recorder is not None:
            recorder, app.recorder = app.recorder, None
            if not len(recorder):
                self.notify(tr("Recording stopped: nothing was typed."))
                return
            from playground.scenario.library import recording_target

            directory = recording_target(app.scenario_dirs)  # under serve: the session's own
            try:
                path = recorder.save(directory, "Recorded session", tuple(self.clients))
            except OSError as exc:  # kept: the recording goes on, F9 tries again
                app.recorder = recorder
                self.notify(write_failure(directory, exc) + tr(" (still recording: F9 tries again)"),
                            severity="error", timeout=10)
                return
            if delivered(self.app, path):
                return
            self.notify(tr("Recording saved: {path}\nReplay it with: redis-playground check {path}", path=path),
                        timeout=10)
            return

        try:  # a recording starts from an empty server: refused on a --url server before asking, not after Yes
            app.playground.check_allowed([b"flushall"])
        except Refused as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return

        def go(yes: bool | None) -> None:
            if yes:
                self._start_recording()

        from playground.tui.dialogs.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(tr("Recording starts from an empty server (every key and script is "
                                              "deleted) so that the file replays the same. Start?")), go)

    @work(group="server", exit_on_error=False)
    async def _start_recording(self) -> None:
        app = self.host
        try:
            await app.playground.reset()
        except Exception as exc:
            self.notify(tr("cannot record: {error}", error=exc), severity="error")
            return
        if app.playground.writes is not None:
            app.playground.writes.forget()
        from playground.scenario.recorder import Recorder

        app.recorder = Recorder()
        for name in self.clients:
            self.pane(name).note(tr("recording: type in A and B; F9 stops"))
        app.refresh_everything()
