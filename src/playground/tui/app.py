"""The TUI app: server bar, clients A and B side by side, the key inspector, the footer.

`make_app` is the one factory the CLI and the tests share (like posting's make_posting).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Iterable

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Static

from playground.engine.playground import Playground
from playground.history import exports_dir, state_dir
from playground.i18n import set_language, tr
from playground.server import PrivateServer
from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.engine.help import HelpIndex
from playground.engine.key_reader import Inspector
from playground.resp.replies import Bulk
from .client_pane import ClientPane
from .key_footer import KeyFooter
from .key_inspector import KeyInspector
from .lanes_view import LanesView
from .messages import CommandDone, ServerStopped
from .narration import NarrationPanel
from .language import textual_commands
from .server_bar import ServerBar

AUTOPLAY_PAUSE = 2.5  # seconds between steps in autoplay


class PlaygroundApp(App):
    """Two real clients on a private server, and every key they touch."""

    TITLE = "redis-playground"
    CSS = """
    #panes { height: 2fr; }
    #banner { display: none; height: auto; background: $error; color: $text; padding: 0 1; }
    #banner.-shown { display: block; }
    .-narrow #panes { layout: vertical; }
    .-short #panes { height: 1fr; }
    .-short KeyInspector { height: 6; }
    .-short NarrationPanel { max-height: 8; }
    .-short KeyInspector > #filter { display: none; }
    .-short KeyInspector.-filtering > #filter { display: block; }
    .-no-inspector KeyInspector { display: none; }
    .-order KeyInspector { display: none; }
    .-presenter NarrationPanel { max-height: 60%; min-height: 12; border: heavy $success; padding: 0 2; }
    .-presenter KeyInspector { height: 6; }
    .-presenter KeyInspector > #filter { display: none; }
    .-presenter.-short KeyInspector { display: none; }
    .-presenter #panes { height: 1fr; }
    """

    BINDINGS = [
        Binding("f1", "help_screen", "Help"),
        Binding("f2", "focus_client(0)", "First client"),
        Binding("f3", "focus_client(1)", "Second client"),
        Binding("f4", "focus_inspector", "Keys", show=False),
        Binding("f5", "restart_server", "Restart server", show=False),
        Binding("f6", "show_scripts", "Scripts", show=False),
        Binding("f7", "open_scenario", "Lessons"),
        Binding("f8", "flush", "Flush db", show=False),
        Binding("f9", "record", "Record", show=False),
        Binding("ctrl+n", "next_anywhere", "Next", priority=True),
        Binding("escape", "focus_narration", "Narration", show=False),
        Binding("ctrl+t", "toggle_order", "Server order"),
        Binding("ctrl+y", "toggle_why", "Why on/off", show=False),
        Binding("f12", "switch_language", "中文"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    """The footer shows what a class needs (F1 lists every key): it fits 80 columns."""

    show_why: reactive[bool] = reactive(True, init=False)
    """Panes show a "why" under a surprising reply (EXEC → nil, EXECABORT, BUSY, NOSCRIPT, ...)."""

    show_order: reactive[bool] = reactive(False, init=False)
    """The server order is on screen: the lanes view, and each reply's number in the panes' gutters."""

    def __init__(self, playground: Playground, clients: Iterable[str] = ("A", "B"),
                 scenario_dirs: list[str] | None = None, open_scenario=None,
                 challenge: bool = False, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang  # the scenarios' language (--lang; default from the locale)
        set_language(lang)  # and the interface's (F12 switches both)
        self.playground = playground
        self.clients = list(clients)
        self.scenario_dirs = scenario_dirs or []
        self._open_at_start = (open_scenario, challenge) if open_scenario else None
        self.teacher = None   # a tui.teacher.Teacher while a scenario is open
        self.recorder = None  # a recorder.Recorder while recording
        self.transcript: list[tuple[str, str, str]] = []  # (client, command, what it printed)
        self.inspector: Inspector | None = None
        self._help: HelpIndex | None = None         # the server's COMMAND DOCS, once read
        self.executor = Executor(playground, self._on_engine_event, attribute=True, explain=lang)
        """The one command path (engine.executor): panes and the stepper send through it."""
        self.commands_done = 0  # CommandDone messages handled: the state lines show them
        self.script_drafts: dict[str, tuple[str, str]] = {}
        """client -> (Lua source, keys and args) last written in the editor (Ctrl+O reopens it)."""
        self._name_client_keys()

    def _name_client_keys(self) -> None:
        """F2/F3 focus the first and second client, whatever they are called (--clients):
        the footer names them."""
        from dataclasses import replace

        for key, index in (("f2", 0), ("f3", 1)):
            bindings = self._bindings.key_to_bindings.get(key, [])
            if index < len(self.clients):
                self._bindings.key_to_bindings[key] = [
                    replace(b, description=self.clients[index]) for b in bindings]
            else:
                self._bindings.key_to_bindings.pop(key, None)

    def compose(self) -> ComposeResult:
        yield ServerBar(id="server-bar")
        yield Static(id="banner")
        yield NarrationPanel(id="narration")
        with Horizontal(id="panes"):
            for name in self.clients:
                yield ClientPane(name)
        yield LanesView(self.clients, id="lanes")
        yield KeyInspector()
        yield KeyFooter()

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, self.exit)
            except (NotImplementedError, RuntimeError):
                pass
        self.query_one(f"#pane-{self.clients[0]} Input").focus()
        self._info_timer = self.set_interval(1.0, self._update_server_info)  # not per command
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
        except Exception as exc:  # ServerError, OSError, ...: shown, never a traceback
            bar.label = tr("no server")
            bar.restartable = self.playground.private
            bar.stopped = True
            if self.playground.private:
                self.show_banner(tr("The server could not start: {error}", error=exc))
            else:
                self.show_banner(tr("Cannot reach the server given with --url: {error}", error=exc))
            return
        bar.label = self.playground.label
        bar.where = self.playground.address.describe()
        bar.stopped = False
        self.hide_banner()
        self.query_one(KeyInspector).attach(self.inspector)
        self._refresh_states()
        self._update_server_info()
        self.set_timer(self.HELP_AFTER, self._load_help)
        if os.environ.get("REDIS_PLAYGROUND_BENCH_READY"):
            self._exit_when_ready()
        if self._open_at_start:
            scenario, challenge = self._open_at_start
            self._open_at_start = None
            self.open_scenario(scenario, challenge)
        elif self.commands_done == 0 and self.teacher is None:
            self._first_run_hints(True)

    def _first_run_hints(self, show: bool) -> None:
        """Empty panes say where to start; the first command or lesson removes the hints."""
        from .help_text import first_run_hint

        for i, name in enumerate(self.clients):
            self.pane(name).first_run(first_run_hint(name, i, self.clients) if show else None)

    @property
    def help(self) -> HelpIndex:
        """Command help, hints and completion: the bundled table until the server's is read."""
        if self._help is None:
            self._help = HelpIndex.bundled()
        return self._help

    HELP_AFTER = 0.5
    """Seconds after the server is up before COMMAND DOCS is read: parsing it takes tens
    of milliseconds, which the first screen (with its keys) should not wait for."""

    @work(group="help", exit_on_error=False)
    async def _load_help(self) -> None:
        """The server's own command help; the bundled table serves until it is read."""
        self._help = await self.playground.help_index()

    @work(group="bench", exit_on_error=False)
    async def _exit_when_ready(self) -> None:
        """For `python -m playground.bench`: say when keys are on screen, then quit."""
        inspector = self.query_one(KeyInspector)
        populate = int(os.environ.get("REDIS_PLAYGROUND_BENCH_KEYS", "0"))
        if populate:  # memory with many keys: fill the server, then wait for the keys on screen
            await self.executor.submit(self.clients[0], [
                b"EVAL", b"for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'key:' .. i, i) end return 1",
                b"0", str(populate).encode()])
            inspector.snapshot = None
            inspector.refresh_keys()
        while inspector.snapshot is None or (populate and inspector.snapshot.total < populate):
            await asyncio.sleep(0.001)

        def done() -> None:
            rss = next((line.split()[1] for line in open("/proc/self/status") if line.startswith("VmRSS:")), "0")
            with open(os.environ["REDIS_PLAYGROUND_BENCH_READY"], "w") as out:
                out.write(f"READY {time.monotonic()}\nRSS {rss}\n")
            self.exit()

        self.call_after_refresh(done)

    def pane(self, client: str) -> ClientPane:
        return self.query_one(f"#pane-{client}", ClientPane)

    def _on_engine_event(self, event: ev.Event) -> None:
        """Events of commands typed in the panes (the stepper's go to the teacher)."""
        if isinstance(event, ev.Wrote):
            if self.teacher is not None:
                self.teacher.note_free_command(set(event.keys))
            self.query_one(KeyInspector).refresh_keys()
            return
        if isinstance(event, ev.UnitEnded):
            return
        self.pane(event.client).handle(event)
        if isinstance(event, ev.Message):
            self.query_one(KeyInspector).refresh_keys()

    def on_command_done(self, message: CommandDone) -> None:
        """One command finished (its writes already attributed): state lines and keys."""
        self._refresh_states()
        self.query_one(KeyInspector).refresh_keys()
        if not self.commands_done:
            self._first_run_hints(False)
        self.commands_done += 1

    def refresh_everything(self) -> None:
        """State lines, WATCH badges, keys and the server bar: after anything ran."""
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

    # -- teaching mode ------------------------------------------------------------

    @property
    def narration(self) -> NarrationPanel:
        return self.screen_stack[0].query_one(NarrationPanel)  # also under a modal (the clock ticks)

    def action_open_scenario(self) -> None:
        from playground.scenario.library import course_order, scenario_files
        from playground.scenario.model import ScenarioError, load_scenario
        from .teaching_screens import ScenarioPicker

        scenarios, broken = [], []
        for path in scenario_files(self.scenario_dirs, recordings=True):
            try:
                scenarios.append(load_scenario(path, self.lang))
            except ScenarioError as exc:
                broken.append(str(exc))
        for message in broken:
            self.notify(message, severity="error")

        def chosen(result) -> None:
            if result:
                self.open_scenario(*result)

        self.push_screen(ScenarioPicker(course_order(scenarios)), chosen)

    def open_scenario(self, scenario, challenge: bool = False) -> None:
        from .teacher import Teacher

        missing = [c for c in scenario.clients if c not in self.clients]
        if missing:
            self.notify(tr("{id} needs clients {clients}", id=scenario.id, clients=", ".join(scenario.clients)), severity="error")
            return
        if self.teacher is not None:
            self.teacher.autoplay = False
        self._first_run_hints(False)
        self.teacher = Teacher(self, scenario, challenge)
        self.narration.add_class("-open")
        self.narration.focus()
        self.refresh_bindings()
        if getattr(self, "_clock", None) is None:
            self._clock = self.set_interval(0.5, self._tick_clock)
        self.action_teach("begin")

    def _tick_clock(self) -> None:
        from textual.css.query import NoMatches

        if self.teacher is not None:
            try:
                self.teacher.tick()
            except NoMatches:  # the app is closing: its widgets are going
                pass

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Ctrl+N and Escape-to-narration exist only while a scenario is open."""
        if action in ("teach", "focus_narration", "next_anywhere") and self.teacher is None:
            return False
        if action == "next_anywhere":  # in the narration Space says it; elsewhere the footer shows ^n
            return self.teacher.challenge is None and self.focused is not self.narration
        if action == "teach" and parameters:
            return NarrationPanel.offers(self.teacher.challenge is not None, str(parameters[0]))
        return True

    def action_next_anywhere(self) -> None:
        """Ctrl+N: the next step from anywhere, also while typing in a pane."""
        self.action_teach("next")

    def action_focus_narration(self) -> None:
        """Escape: back to the narration, where Space steps (from a pane, Space types)."""
        if self.teacher is not None and self.screen is self.screen_stack[0]:
            self.narration.focus()

    def action_help_screen(self) -> None:
        """F1: the keys of what is open now (free play, a scenario, a challenge)."""
        from .info_screens import InfoScreen
        from .help_text import help_for

        mode = "free" if self.teacher is None else ("challenge" if self.teacher.challenge else "scenario")
        self.push_screen(InfoScreen(tr("Help (Esc closes)"), help_for(mode)))

    def action_teach(self, what: str) -> None:
        """Space/n, p, r, e, g, w, t, a/b/u ... in the narration panel (and Ctrl+N anywhere)."""
        teacher = self.teacher
        if teacher is None:
            return
        if what == "close":
            self._ask_close()
            return
        if what in ("faster", "slower"):
            getattr(teacher, what)()
            return
        if what == "autoplay":
            teacher.autoplay = not teacher.autoplay
            teacher.render()
            if teacher.autoplay:
                self.action_teach("next")
            return
        self._teach(what)

    @work(exclusive=False, group="teach", exit_on_error=False)
    async def _teach(self, what: str) -> None:
        teacher = self.teacher
        if teacher is None or self._teaching:
            return
        self._teaching = True
        try:
            if what.startswith("move:"):
                await teacher.move(what.split(":", 1)[1])
            else:
                await {"begin": teacher.begin, "next": teacher.next, "previous": teacher.previous,
                       "restart": teacher.restart, "end": teacher.run_to_end, "jump": teacher.jump,
                       "rewind_here": teacher.rewind_here, "timeline": teacher.show_timeline,
                       "undo": teacher.undo, "explore": teacher.explore}[what]()
        except Exception as exc:  # never a traceback in front of the class
            self.notify(f"{what}: {exc}", severity="error")
        finally:
            self._teaching = False
        if teacher.autoplay and self.teacher is teacher:
            self.set_timer(AUTOPLAY_PAUSE, lambda: self.action_teach("next") if teacher.autoplay else None)

    _teaching = False

    def action_explore_typed(self) -> None:
        """Every order of the last commands typed in the panes (tui/explore_screen.py)."""
        from .explore_screen import explore_typed_in_app

        self.run_worker(explore_typed_in_app(self), group="explore", exclusive=True, exit_on_error=False)

    def _ask_close(self) -> None:
        """x: close the scenario, after asking (a stray key must not end the lesson)."""
        from .confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes and self.teacher is not None:
                self.teacher.autoplay = False
                self.teacher = None
                self.narration.remove_class("-open")
                self.refresh_bindings()
                self.action_focus_client(self.clients[0])

        self.push_screen(ConfirmScreen(tr("Close {id}? The server keeps its keys; F7 opens a scenario again.",
                                          id=self.teacher.scenario.id)), answered)

    def action_presenter(self) -> None:
        """Presenter layout: a big narration panel (the next command in bold, named
        scripts in full), a compact inspector; everything stays on the keyboard."""
        main = self.screen_stack[0]  # also when chosen in the palette
        main.toggle_class("-presenter")
        for name in self.clients:  # smaller panes: still showing their last lines
            log = self.pane(name).log_widget
            self.call_after_refresh(log.scroll_end, animate=False)
        if self.teacher is not None:
            self.teacher.render()
        self.notify(tr("Presenter layout on (f toggles)") if main.has_class("-presenter")
                    else tr("Presenter layout off (f toggles)"), timeout=2)

    def action_toggle_order(self) -> None:
        """Ctrl+T: the lanes view (server order) and the numbers in the panes' gutters."""
        self.show_order = not self.show_order

    def action_toggle_why(self) -> None:
        """Ctrl+Y: the "why" notes under surprising replies."""
        self.show_why = not self.show_why

    def watch_show_order(self, shown: bool) -> None:
        self.set_class(shown, "-order")
        lanes = self.query_one(LanesView)
        lanes.set_class(shown, "-shown")
        if shown:
            self.call_after_refresh(lanes.draw)
        for name in self.clients:
            self.pane(name).redraw()

    def watch_show_why(self, shown: bool) -> None:
        for name in self.clients:
            self.pane(name).redraw()
        if self.show_order:
            self.query_one(LanesView).draw()
        self.notify(tr("Why notes on") if shown else tr("Why notes off (Ctrl+Y shows them again)"), timeout=2)

    def action_switch_language(self) -> None:
        """F12: the interface and the open scenario in the other language (English ⇄ 中文)."""
        from .language import switch_language

        switch_language(self)

    def action_toggle_inspector(self) -> None:
        self.screen.toggle_class("-no-inspector")

    # -- recording and export -------------------------------------------------------

    def action_record(self) -> None:
        if self.recorder is not None:
            recorder, self.recorder = self.recorder, None
            if not len(recorder):
                self.notify(tr("Recording stopped: nothing was typed."))
                return
            directory = Path(self.scenario_dirs[0]) if self.scenario_dirs else state_dir() / "scenarios"
            path = recorder.save(directory, "Recorded session", tuple(self.clients))
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
        self.notify(tr("Transcript written to {path}", path=directory / name))

    def action_save_svg(self) -> None:
        directory = exports_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = self.save_screenshot(path=str(directory))
        self.notify(tr("Screen saved as {path}", path=path))

    def get_system_commands(self, screen):
        """The command palette (Ctrl+P): Textual's own commands and every playground action."""
        yield from textual_commands(command for command in super().get_system_commands(screen)
                                    if command.title != "Screenshot")  # ours saves where exports go
        for i, name in enumerate(self.clients):
            key = f" (F{i + 2})" if i < 2 else ""
            yield SystemCommand(tr("Focus client {name}", name=name), tr("Type into client {name}'s pane", name=name) + key,
                                lambda name=name: self.action_focus_client(name))
        yield SystemCommand(tr("Focus keys"), tr("Browse the key inspector"), self.action_focus_inspector)
        yield SystemCommand(tr("Restart server"), tr("A fresh, empty private server"), self.action_restart_server)
        yield SystemCommand(tr("Flush database"), tr("Delete every key and cached script (asks first)"),
                            self.action_flush)
        yield SystemCommand(tr("Show cached scripts"), tr("Which scripts SCRIPT EXISTS still knows"),
                            self.action_show_scripts)
        yield SystemCommand(tr("Open scenario"), tr("Step through a scripted race, or schedule a challenge"),
                            self.action_open_scenario)
        yield SystemCommand(tr("Record / stop recording"), tr("Type freely, then save it as a scenario file"),
                            self.action_record)
        yield SystemCommand(tr("Export transcript (Markdown)"), tr("For lesson notes"), self.action_export_transcript)
        yield SystemCommand(tr("Could it have gone differently?"), tr("Run every order of the commands just typed "
                            "in the panes, on a server of its own"), self.action_explore_typed)
        yield SystemCommand(tr("Save screen as SVG"), tr("A picture of the screen"), self.action_save_svg)
        yield SystemCommand(tr("Help"), tr("Every key of the current mode (F1)"), self.action_help_screen)
        yield SystemCommand(tr("Presenter layout"), tr("Big narration panel"), self.action_presenter)
        yield SystemCommand(tr("Keys on/off"), tr("Show or hide the key inspector"), self.action_toggle_inspector)
        yield SystemCommand(tr("Server order (Ctrl+T)"), tr("Lanes: what the server ran, in order; numbers in the "
                            "panes' gutters"), self.action_toggle_order)
        yield SystemCommand(tr("Why notes on/off (Ctrl+Y)"), tr("The reason under EXEC → (nil), EXECABORT, BUSY, "
                            "NOSCRIPT ..."), self.action_toggle_why)
        yield SystemCommand(tr("Language: 中文 / English"), tr("Switch the interface and the scenario texts (F12)"), self.action_switch_language)
        if self.teacher is not None:
            yield SystemCommand(tr("Timeline"), tr("What the server executed, in order"),
                                lambda: self.action_teach("timeline"))
            yield SystemCommand(tr("Close scenario"), tr("Back to free typing (asks first)"),
                                lambda: self.action_teach("close"))
        from .topology_commands import topology_commands
        yield from topology_commands(self)  # kill, pause, promote, connect a client: on a topology

    @work(group="scripts", exit_on_error=False)
    async def action_show_scripts(self) -> None:
        try:
            scripts = await self.playground.cached_scripts()
        except Exception as exc:
            self.notify(tr("cannot ask the server: {error}", error=exc), severity="error")
            return
        from .info_screens import InfoScreen, scripts_text

        self.push_screen(InfoScreen(tr("Lua scripts seen in this session"), scripts_text(scripts)))

    @work(exclusive=True, group="server-info", exit_on_error=False)
    async def _update_server_info(self) -> None:
        if self.inspector is None:
            return
        bar = self.query_one(ServerBar)
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
            if isinstance(part, Bulk):
                for line in bytes(part).decode(errors="replace").splitlines():
                    key, _, value = line.partition(":")
                    info[key] = value
        bar.memory = info.get("used_memory_human", "")
        bar.clients = int(info.get("connected_clients", "0") or 0)
        if self.playground.topology is not None:  # every node: role, replication offset, lag
            from playground.engine.topology_ops import topology_summary
            bar.where = await topology_summary(self.playground.topology)

    def on_server_stopped(self, message: ServerStopped) -> None:
        self.query_one(ServerBar).stopped = True
        self.show_banner(tr("{reason}. Press F5 to start a fresh server.", reason=message.reason))

    def show_banner(self, text: str) -> None:
        banner = self.query_one("#banner", Static)
        banner.update(text)
        banner.add_class("-shown")

    def hide_banner(self) -> None:
        self.query_one("#banner", Static).remove_class("-shown")

    def action_focus_client(self, which: str | int) -> None:
        """Focus a client's input, by name or by place (F2: the first, F3: the second)."""
        if isinstance(which, int):
            if which >= len(self.clients):
                return
            which = self.clients[which]
        self.query_one(f"#pane-{which} Input").focus()

    def action_focus_inspector(self) -> None:
        self.query_one("#inspector #keys").focus()

    @work(exclusive=True, group="server", exit_on_error=False)
    async def action_restart_server(self) -> None:
        if not self.playground.private:
            self.notify(tr("This is not the playground's own server (--url): it cannot be restarted."),
                        severity="warning")
            return
        try:
            message = await self.playground.restart()
            self.inspector = self.playground.reader
            self.query_one(KeyInspector).attach(self.inspector)
        except Exception as exc:
            self.show_banner(tr("Restart failed: {error}", error=exc))
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

        from .confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(tr("Delete every key and cached script on this server?")), confirmed)

    @work(group="server", exit_on_error=False)
    async def _flush(self) -> None:
        try:
            await self.playground.flushall()
        except Exception as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(tr("Flushed: no keys, no cached scripts."))
        self.query_one(KeyInspector).refresh_keys()

    async def on_unmount(self) -> None:
        await self.playground.close()


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


def make_app(server_choice: str | None = None, url: str | None = None,
             allow_flush: bool = False, clients: Iterable[str] = ("A", "B"),
             scenario_dirs: list[str] | None = None, open_scenario=None,
             challenge: bool = False, server: PrivateServer | None = None, lang: str = "en") -> PlaygroundApp:
    """The app on a fresh private server (or an explicit --url); shared by CLI and tests.
    `server` is a private server the CLI already spawned."""
    if open_scenario is not None:
        clients = tuple(dict.fromkeys([*clients, *open_scenario.clients]))
    if server is not None:
        playground = Playground(server=server, allow_flush=allow_flush, clients=clients)
    else:
        playground = Playground.create(server_choice=server_choice, url=url,
                                       allow_flush=allow_flush, clients=clients)
    return PlaygroundApp(playground, clients=clients, scenario_dirs=scenario_dirs,
                         open_scenario=open_scenario, challenge=challenge, lang=lang)


def run_app(args, server: PrivateServer | None = None) -> int:
    scenario = None
    if getattr(args, "command", None) == "open":
        from playground.scenario.library import resolve
        from playground.scenario.model import load_scenario

        scenario = load_scenario(resolve(args.scenario, args.scenarios), getattr(args, "lang", "en"))
    app = make_app(args.server, args.url, args.allow_flush, args.clients,
                   scenario_dirs=getattr(args, "scenarios", None), open_scenario=scenario,
                   challenge=getattr(args, "challenge", False), server=server,
                   lang=getattr(args, "lang", "en"))
    bench = bool(os.environ.get("REDIS_PLAYGROUND_BENCH_READY"))  # python -m playground.bench
    try:
        app.run(headless=bench, size=(120, 40) if bench else None)
    finally:
        if app.playground.server is not None:
            app.playground.server.stop()  # whatever happened, the server goes with us
    return app.return_code or 0
