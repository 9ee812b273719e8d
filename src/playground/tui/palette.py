"""The command palette (Ctrl+P): Textual's own commands (translated, without its
Screenshot: ours saves where exports go and says where) and every playground action."""

from __future__ import annotations

from textual.app import SystemCommand

from playground import i18n
from playground.i18n import language_name, tr
from playground.served import label

from playground.tui.language import textual_commands


def open_palette(app) -> None:
    """Ctrl+P: Textual's palette (as App.action_command_palette opens it), its placeholder
    in the interface's language."""
    from textual.command import CommandPalette

    if app.use_command_palette and not CommandPalette.is_open(app):
        app.push_screen(CommandPalette(id="--command-palette", placeholder=tr("Search for commands…")))


def system_commands(self, textual):
    """Every palette entry of the app `self`; `textual`: Textual's own commands."""
    yield from textual_commands(command for command in textual if command.title != "Screenshot")
    for i, name in enumerate(self.clients):
        key = f" (F{i + 2})" if i < 2 else ""
        yield SystemCommand(tr("Focus client {name}", name=name), tr("Type into client {name}'s pane", name=name) + key,
                            lambda name=name: self.mode_screen.action_focus_client(name))
    yield SystemCommand(tr("Focus keys"), tr("Browse the key inspector"), self.mode_screen.action_focus_inspector)
    yield SystemCommand(tr("Restart server"), tr("A fresh, empty private server"), self.action_restart_server)
    yield SystemCommand(tr("Flush database"), tr("Delete every key and cached script (asks first)"),
                        self.action_flush)
    yield SystemCommand(tr("Show cached scripts"), tr("Which scripts SCRIPT EXISTS still knows"),
                        self.action_show_scripts)
    yield SystemCommand(tr("Open scenario"), tr("Step through a scripted race, or schedule a challenge"),
                        self.action_open_scenario)
    screen = self.mode_screen
    if hasattr(screen, "action_record"):  # free play's
        yield SystemCommand(tr("Record / stop recording"), tr("Type freely, then save it as a scenario file"),
                            screen.action_record)
        yield SystemCommand(tr("Your own program (Ctrl+G)"), label(tr("The gate's URL to start a program of yours "
                            "with (REDIS_URL); its commands wait until Ctrl+N")), screen.action_open_gate)
    if self.own_programs.open:
        yield SystemCommand(tr("Programs run free on/off"), label(tr("Your programs' commands go at once, or wait "
                            "for Ctrl+N again")), self.action_programs_free)
    yield SystemCommand(tr("Export transcript (Markdown)"), tr("For lesson notes"), self.action_export_transcript)
    yield SystemCommand(tr("Explore: could it have gone differently?"), tr("Run every order of the commands just "
                        "typed in the panes and of your programs, on a server of its own"), self.action_explore_typed)
    yield SystemCommand(tr("Save screen as SVG"), tr("A picture of the screen"), self.action_save_svg)
    yield SystemCommand(tr("Help"), tr("Every key of the current mode (F1)"), screen.action_help_screen)
    yield SystemCommand(tr("Presenter layout"), tr("Big narration panel"), screen.action_presenter)
    yield SystemCommand(tr("Keys on/off"), tr("Show or hide the key inspector"), screen.action_toggle_inspector)
    yield SystemCommand(label(tr("Server order (Ctrl+T)")), tr("Lanes: what the server ran, in order; numbers in the "
                        "panes' gutters"), self.action_toggle_order)
    yield SystemCommand(tr("Why notes on/off (Ctrl+Y)"), tr("The reason under EXEC → (nil), EXECABORT, BUSY, "
                        "NOSCRIPT ..."), self.action_toggle_why)
    languages = " / ".join(language_name(lang) for lang in i18n.LANGUAGES)
    yield SystemCommand(tr("Language: {languages}", languages=languages),
                        tr("Switch the interface and the scenario texts (F12)"), self.action_switch_language)
    if self.scenario_run is not None:
        yield SystemCommand(tr("Timeline"), tr("What the server executed, in order"),
                            lambda: screen.action_teach("timeline"))
        yield SystemCommand(tr("Explore every schedule of this part (s)"),
                            tr("Every order of the clients' steps, on a server of its own, grouped by outcome"),
                            lambda: screen.action_teach("explore"))
        yield SystemCommand(tr("Close scenario"), tr("Back to free typing (asks first)"),
                            lambda: screen.action_teach("close"))
    from playground.tui.scenario_runs.topology_commands import topology_commands
    yield from topology_commands(self)  # kill, pause, promote, connect a client: on a topology
