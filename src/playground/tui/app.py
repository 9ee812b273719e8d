"""The TUI app: server bar, clients A and B side by side, the key inspector, the footer.

`make_app` is the one factory the CLI and the tests share (like posting's make_posting).
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, work
from textual.css.query import NoMatches
from textual.app import App
from textual.binding import BindingType
from textual.reactive import reactive
from textual.widgets import Static

from playground.engine.playground import Playground
from playground.i18n import set_language, tr
from playground.served import served
from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.engine.help import HelpIndex
from playground.engine.key_reader import Inspector, Snapshot
from playground.history import History
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.screens.free_play_screen import FreePlayScreen
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.messages import CommandDone, ServerRestarted, ServerStopped
from playground.tui.screens.mode_screen import ModeScreen
from playground.tui.mode_screens import ModeScreens
from playground.tui.widgets.pane_services import PaneServices
from playground.tui.widgets.server_bar import ServerBar
from playground.tui.exports import Exports
from playground.tui.scenario_control import ScenarioControl
from playground.tui.server_control import ServerControl
from playground.tui.widgets.lanes_view import LanesView
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.widgets.own_programs import OwnPrograms
from playground.tui.class_mode.class_mode import ClassMode
from playground.tui.app_keys import APP_BINDINGS
from playground.tui.plain_text import visible

if TYPE_CHECKING:
    from playground.engine.playground import PrivateServer, Topology
    from playground.scenario.model import Scenario
    from playground.scenario.recorder import Recorder
    from playground.tui.screens.mode_screen import ScreenHost
    from playground.tui.scenario_runs.scenario_run import ScenarioRun, ScenarioRunHost


WIDE = 140  # columns from which the lanes (Ctrl+T) sit beside the keys instead of replacing them
SIGNAL_EXIT_GRACE = 3.0  # seconds the app has to exit after SIGTERM / SIGHUP


def exit_after(seconds: float, code: int) -> None:
    """End the process with `code` after `seconds` unless it has ended by then (a daemon
    thread: a normal exit does not wait for it)."""
    def end() -> None:
        time.sleep(seconds)
        os._exit(code)

    threading.Thread(target=end, name="exit-after-signal", daemon=True).start()


class PlaygroundApp(App[None]):
    """Two real clients on a private server, and every key they touch."""

    TITLE = "redis-playground"
    CSS_PATH = "app.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [*APP_BINDINGS]
    """Keys of every mode that are the app's own (the server, the language, quitting).
    Each mode's keys are its screen's (free_play_screen.py, lesson_screen.py,
    challenge_screen.py). Under `serve`, keys the browser keeps have a second key that
    reaches the page (served.py)."""

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
        self.recorder: Recorder | None = None  # while F9 records
        self.transcript: list[tuple[str, str, str]] = []  # (client, command, what it printed)
        self.inspector: Inspector | None = None
        self._help: HelpIndex | None = None         # the server's COMMAND DOCS, once read
        self.executor = Executor(playground, self._on_engine_event, attribute=True, explain=lang)
        """The one command path (engine.executor): panes and the stepper send through it."""
        self.commands_done = 0  # CommandDone messages handled: the state lines show them
        self.own_programs = OwnPrograms(self)  # Ctrl+G: programs started by hand (own_programs.py)
        self.pane_services = PaneServices(playground, self.executor, lambda: self.help, lambda: self.recorder,
                                          lambda: self.show_why, lambda: self.show_order)
        """What every mode's client panes are given (pane_services.py)."""
        self.histories = {name: History.for_client(name) for name in self.clients}
        """Each client's command history: the same one in every mode's pane."""
        self._page_focused = False  # under serve: the page has said "focus" (on_app_blur)
        self.class_mode = ClassMode(self)
        """serve --class: this tab's part in the class (tui/class_mode/); nothing outside it."""
        self.mode_screens = ModeScreens(self)
        """The modes' screens, each mounted once (mode_screens.py)."""
        self.scenarios = ScenarioControl(self)
        """F7, and the lesson or challenge open (scenario_control.py)."""
        self.server_control = ServerControl(self)
        """The bar's figures, a server that stopped, F5 and F8 (server_control.py)."""
        self.exports = Exports(self)
        """The transcript, the screen as SVG, and every export's writing (exports.py)."""
        self.script_drafts: dict[str, tuple[str, str]] = {}
        """client -> (Lua source, keys and args) last written in the editor (Ctrl+O reopens it)."""

    @property
    def mode_screen(self) -> ModeScreen:
        """The screen of the mode the app is in (free play, a lesson, a challenge), also
        while a dialog is open over it (the one screen under it is Textual's default)."""
        screen = self.mode_screen_if_any()
        if screen is None:  # (ModeScreens keeps a mode's screen there)
            raise LookupError(f"no mode's screen in {self.screen_stack!r}")
        return screen

    def mode_screen_if_any(self) -> ModeScreen | None:
        """The mode's screen, or None while there is none (the app starting, or ending:
        a message of the engine may still come then)."""
        stack = self.screen_stack
        return stack[1] if len(stack) > 1 and isinstance(stack[1], ModeScreen) else None

    @property
    def scenario_run(self) -> ScenarioRun | None:
        """The open scenario (a tui ScenarioRun), None in free play."""
        return self.mode_screen.scenario_run

    def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, self._exit_on_signal, sig)
            except (NotImplementedError, RuntimeError):
                pass
        self.mode_screens.first(self._first_screen())
        self.playground.restart_listeners.append(self._server_restarted)
        self._info_timer = self.set_interval(1.0, self.server_control.update_info)  # not per command
        self.start_playground()

    def _server_restarted(self) -> None:
        """The engine restarted the server (whoever asked): the app follows, in its own turn."""
        self.post_message(ServerRestarted())

    def _first_screen(self) -> ModeScreen:
        """Free play; a class's learner: the lesson's screen, waiting for the teacher's lesson
        (mounted while the app starts, ahead of its tab: each lesson the teacher opens is
        then that screen bound again, not a screen mounted in every learner's app at once)."""
        if self.class_mode.learner_tab and self._open_at_start is None:
            from playground.tui.class_mode.class_member import waiting_text
            from playground.tui.screens.lesson_screen import LessonScreen

            screen = self.mode_screens.get(LessonScreen)
            screen.unbind(waiting_text)
            return screen
        return self.mode_screens.get(FreePlayScreen)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """serve --class: Alt+C in the teacher's tab only; follow me dims what would leave
        the teacher's lesson (tui/class_mode/class_mode.py)."""
        decided = self.class_mode.check_action(action, parameters)
        if decided is not True:
            return decided
        return super().check_action(action, parameters)

    def on_key(self, event: events.Key) -> None:
        """A key whose action follow me refuses (dimmed, not run) says why."""
        if self.class_mode.member is not None:  # (a key's bindings, only in a class)
            self.class_mode.key(self.screen.active_bindings.get(event.key))

    def tab_shown(self, shown: bool) -> None:
        """Under serve: this app's tab closed (False) or came back (True) (served_driver.py);
        in a class, the teacher's overview marks a learner whose tab is closed as away."""
        self.class_mode.tab_shown(shown)

    async def action_quit(self) -> None:
        """Alt+Q / Ctrl+Q: quit. In a class's teacher's tab: end the class for every learner,
        after asking (tui/class_mode/class_mode.py)."""
        if not self.class_mode.quit():
            await super().action_quit()

    def action_class_overview(self) -> None:
        """Alt+C (the teacher's tab): who is on which step, who won; m: follow me / own pace."""
        self.class_mode.overview()

    def on_app_blur(self, event: events.AppBlur) -> None:
        """Under `serve` Textual's web driver says "blur" as the app starts, before the page
        has said anything; after that the page says "focus" and "blur" as the browser's
        focus moves. Each restyles the whole screen (about a seventh of a tab's start, and
        as much again at the page's first "focus"), so the driver's blur is left out: the
        app counts as focused until the page's own first "blur"."""
        if served() and not self._page_focused:
            event.prevent_default()

    def on_app_focus(self, event: events.AppFocus) -> None:
        self._page_focused = True

    def on_resize(self, event) -> None:
        # Side by side down to 70 columns (the race is easier to follow); stacked below.
        self.set_class(event.size.width < 70, "-narrow")
        self.set_class(event.size.height < 30, "-short")
        self.set_class(event.size.width >= WIDE, "-wide")

    @work(exclusive=True, group="server", exit_on_error=False)
    async def start_playground(self) -> None:
        bar = self.mode_screen.query_one(ServerBar)
        try:
            await self.playground.start()
            self.inspector = self.playground.reader
        except Exception as exc:  # ServerError, OSError, ...: shown, never a traceback
            bar.label = tr("no server")
            bar.restartable = self.playground.private
            bar.stopped = True
            if self.playground.private:
                self.server_control.show_banner(tr("The server could not start: {error}", error=exc))
            else:
                self.server_control.show_banner(tr("Cannot reach the server given with --url: {error}", error=exc))
            return
        self.follow_server()
        self.server_control.update_info()
        self.set_timer(self.HELP_AFTER_SERVED if served() else self.HELP_AFTER, self._load_help)
        if os.environ.get("REDIS_PLAYGROUND_BENCH_READY"):
            self._exit_when_ready()
        if self._open_at_start:
            scenario, challenge = self._open_at_start
            self._open_at_start = None
            self.open_scenario(scenario, challenge)
        elif self.commands_done == 0 and self.scenario_run is None:
            self.first_run_hints(True)
        self.class_mode.start()  # serve --class: this tab's part in the class (tui/class_mode/)

    def follow_server(self, screen: ModeScreen | None = None) -> None:
        """The bar and the inspector on the server that runs now (`screen`: a mode's
        screen that was just mounted)."""
        screen = screen or self.mode_screen
        if self.inspector is None:  # not started yet (start_playground follows it)
            return
        bar = screen.query_one(ServerBar)
        bar.label = self.playground.label
        bar.where = self.playground.address.describe()
        bar.stopped = False
        screen.query_one("#banner", Static).remove_class("-shown")
        self.inspector = inspector = self.playground.reader
        if inspector is not None:
            screen.query_one(KeyInspector).attach(inspector)
        self.refresh_states(screen)

    def on_server_restarted(self, message: ServerRestarted) -> None:
        self.follow_server()
        self.own_programs.server_restarted()

    def _exit_on_signal(self, sig: int) -> None:
        """SIGTERM, or SIGHUP (the terminal is gone): the server goes at once, then the app
        exits; bounded, because with its terminal gone Textual's own shutdown can wait
        forever (its output thread dies writing to the closed terminal while the main
        thread waits for it to finish)."""
        if self.playground.server is not None:
            self.playground.server.stop()
        exit_after(SIGNAL_EXIT_GRACE, 128 + sig)
        self.exit()

    def first_run_hints(self, show: bool) -> None:
        """Empty panes say where to start; the first command or lesson removes the hints."""
        from playground.tui.help_text import first_run_hint

        self._hints_shown = show
        for i, name in enumerate(self.clients):
            self.pane(name).first_run(first_run_hint(name, i, self.clients) if show else None)

    _hints_shown = False

    def first_run_hints_again(self) -> None:
        """The empty panes' hints, if they show, in the language shown now (F12)."""
        if self._hints_shown:
            self.first_run_hints(True)

    @property
    def help(self) -> HelpIndex:
        """Command help, hints and completion: the bundled table until the server's is read."""
        if self._help is None:
            self._help = HelpIndex.bundled()
        return self._help

    HELP_AFTER = 0.5
    """Seconds after the server is up before COMMAND DOCS is read: parsing it takes tens
    of milliseconds, which the first screen (with its keys) should not wait for."""
    HELP_AFTER_SERVED = 10.0
    """The same under `serve`: a class opens its tabs at once, and while their apps start,
    each one's COMMAND DOCS (tens of milliseconds of CPU) would delay the others' first
    screen; the bundled table serves meanwhile."""

    @work(group="help", exit_on_error=False)
    async def _load_help(self) -> None:
        """The server's own command help; the bundled table serves until it is read."""
        self._help = await self.playground.help_index()

    @work(group="bench", exit_on_error=False)
    async def _exit_when_ready(self) -> None:
        """For `python -m benchmarks.bench`: say when keys are on screen, then quit."""
        inspector = self.mode_screen.query_one(KeyInspector)
        populate = int(os.environ.get("REDIS_PLAYGROUND_BENCH_KEYS", "0"))
        if populate:  # memory with many keys: fill the server, then wait for the keys on screen
            await self.executor.submit(self.clients[0], [
                b"EVAL", b"for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'key:' .. i, i) end return 1",
                b"0", str(populate).encode()])
            inspector.snapshot = None
            inspector.refresh_keys()
        ready = asyncio.Event()

        def seen(snapshot: Snapshot | None) -> None:
            if snapshot is not None and not (populate and snapshot.total < populate):
                ready.set()

        self.watch(inspector, "snapshot", seen)  # (called at once with the snapshot it has)
        await ready.wait()

        def done() -> None:
            rss = next((line.split()[1] for line in open("/proc/self/status") if line.startswith("VmRSS:")), "0")
            with open(os.environ["REDIS_PLAYGROUND_BENCH_READY"], "w") as out:
                out.write(f"READY {time.monotonic()}\nRSS {rss}\n")
            self.exit()

        self.call_after_refresh(done)

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notice as text, never markup (`markup` is set by Widget.notify, not by us): an
        error can quote a key, a file or a learner, and `[/]` or `[@click=app.quit]` stay words."""
        super().notify(visible(message, keep="\n"), title=visible(title), severity=severity, timeout=timeout,
                       markup=False)

    def pane(self, client: str) -> ClientPane:
        return self.mode_screen.pane(client)

    def _on_engine_event(self, event: ev.Event) -> None:
        """Events of commands typed in the panes (the stepper's go to the scenario run)."""
        if self.mode_screen_if_any() is None:
            return   # (the app is ending)
        if isinstance(event, ev.Wrote):
            if self.scenario_run is not None:
                self.scenario_run.note_free_command(set(event.keys), event.unit)
            self.mode_screen.refresh_keys()
            return
        if isinstance(event, ev.UnitEnded):
            return
        self.pane(event.client).handle(event)
        if isinstance(event, ev.Pushed):
            self.mode_screen.refresh_keys()

    def on_command_done(self, message: CommandDone) -> None:
        """One command finished (its writes already attributed): the transcript, state
        lines and keys."""
        screen = self.mode_screen_if_any()
        if message.line is not None:
            self.transcript.append((message.client, message.line, message.printed))
            if screen is not None and screen.scenario_run is not None:
                screen.scenario_run.note_typed(message.client, message.line, message.argv)
        if screen is None or not screen.is_mounted:
            return
        self.refresh_states()
        self.mode_screen.refresh_keys()
        if not self.commands_done:
            try:
                self.first_run_hints(False)
            except NoMatches:  # (a reply that came as the app closes: its panes are gone already; CI)
                return
        self.commands_done += 1

    def refresh_everything(self) -> None:
        """State lines, WATCH badges, keys and the server bar: after anything ran."""
        screen = self.mode_screen_if_any()
        if screen is None or not screen.is_mounted:
            return
        self.refresh_states()
        self.mode_screen.refresh_keys()
        self.server_control.update_info()

    def refresh_states(self, screen: ModeScreen | None = None) -> None:
        """Every pane's state line and the inspector's WATCH badges, from the engine
        (on `screen`: a mode's screen being mounted): a typed client's from its session, a
        program's at the gate from its tracker (`Recorder.programs`), under its name (its
        connection's, "A#1", where a typed client of that name WATCHes the key too)."""
        if screen is None and not self.mode_screen.is_mounted:  # a mode's screen is coming: it follows
            return                                               # the server when mounted
        screen = screen or self.mode_screen
        watchers: dict[bytes, list[tuple[str, bool]]] = {}
        try:
            for name in self.clients:
                state = self.playground.session(name).state
                screen.pane(name).state = state
                for key in state.watched:
                    watchers.setdefault(key, []).append((name, state.dirty_key(key)))
            typed = {key: {name for name, _ in badges} for key, badges in watchers.items()}
            for connection, tracker in self.executor.recorder.programs.items():   # (by its client; by its
                for key in tracker.watched:            # connection, "A#1", where a typed A WATCHes it too)
                    shown = connection if tracker.client in typed.get(key, ()) else tracker.client
                    watchers.setdefault(key, []).append((shown, key in tracker.dirty))
            screen.query_one(KeyInspector).set_watchers(watchers)
        except NoMatches:  # (a reply that came as the app closes: its screen's widgets are gone already)
            return

    # -- the server (server_control.py) ---------------------------------------------

    def action_restart_server(self) -> None:
        """F5: a fresh server; asks first (like F8) unless the server already stopped."""
        self.server_control.ask_restart()

    def action_flush(self) -> None:
        """F8: delete every key and cached script, after asking."""
        self.server_control.ask_flush()

    def on_server_stopped(self, message: ServerStopped) -> None:
        self.server_control.stopped(message.reason)

    # -- lessons and challenges (scenario_control.py) ----------------------------------

    def action_open_scenario(self) -> None:
        """F7: pick a lesson or a challenge."""
        self.scenarios.pick()

    def open_scenario(self, scenario: Scenario, challenge: bool = False) -> Awaitable[None] | None:
        """The scenario on its mode's screen (ScenarioControl.open): awaitable until it
        shows; None when it could not open."""
        return self.scenarios.open(scenario, challenge)

    def close_scenario(self, waiting: Callable[[], Text] | None = None) -> Awaitable[None]:
        """Back to free play (ScenarioControl.close); `waiting`: a class's learner's lesson
        screen stays, saying this."""
        return self.scenarios.close(waiting)

    @property
    def narration(self) -> NarrationPanel:
        """The mode's narration panel (also under a modal: the clock ticks)."""
        return self.mode_screen.narration

    def action_explore_typed(self) -> None:
        """Every order of the last commands typed in the panes (tui/dialogs/explore_screen.py)."""
        from playground.tui.dialogs.explore_screen import explore_typed_in_app

        self.run_worker(explore_typed_in_app(self), group="explore", exclusive=True, exit_on_error=False)

    # -- what every mode shows: the server order, why notes, the language ---------------

    def action_toggle_order(self) -> None:
        """Ctrl+T: the lanes view (server order) and the numbers in the panes' gutters."""
        self.show_order = not self.show_order

    def action_toggle_why(self) -> None:
        """Ctrl+Y: the "why" notes under surprising replies."""
        self.show_why = not self.show_why

    def watch_show_order(self, shown: bool) -> None:
        self.set_class(shown, "-order")
        lanes = self.mode_screen.query_one(LanesView)
        lanes.show(shown)
        if shown:
            self.call_after_refresh(lanes.draw)
        for name in self.clients:
            self.pane(name).redraw()

    def watch_show_why(self, shown: bool) -> None:
        for name in self.clients:
            self.pane(name).redraw()
        if self.show_order:
            self.mode_screen.query_one(LanesView).draw()
        self.notify(tr("Why notes on") if shown else tr("Why notes off (Ctrl+Y shows them again)"), timeout=2)

    def show_language(self, lang: str) -> None:
        """Show the app in `lang` (a code of i18n.LANGUAGES; another is ignored): under serve,
        a new session for a tab that showed it last (tui/served_driver.py)."""
        from playground.i18n import LANGUAGES
        from playground.tui.language import switch_language

        if lang in LANGUAGES and lang != self.lang:
            switch_language(self, lang)

    def action_switch_language(self) -> None:
        """F12: the interface and the open scenario in the other language (English ⇄ 中文)."""
        from playground.tui.language import switch_language

        switch_language(self)

    # -- exports (exports.py) --------------------------------------------------------

    def action_export_transcript(self) -> None:
        """The transcript as Markdown (the palette's "Export transcript")."""
        self.exports.transcript()

    def action_save_svg(self) -> None:
        """The screen as SVG, the panes' secrets left out."""
        self.exports.screen_svg()

    def get_system_commands(self, screen):
        """The command palette (Ctrl+P): Textual's own commands and every playground action."""
        from playground.tui.palette import system_commands

        yield from system_commands(self, super().get_system_commands(screen))

    def action_programs_free(self) -> None:
        """Programs of the learner's own (Ctrl+G) run free, or wait for Ctrl+N again."""
        self.own_programs.toggle_free()

    def action_command_palette(self) -> None:
        from playground.tui.palette import open_palette

        open_palette(self)

    @work(group="scripts", exit_on_error=False)
    async def action_show_scripts(self) -> None:
        try:
            scripts = await self.playground.cached_scripts()
        except Exception as exc:
            self.notify(tr("cannot ask the server: {error}", error=exc), severity="error")
            return
        from playground.tui.dialogs.info_screens import InfoScreen, scripts_text

        self.push_screen(InfoScreen(tr("Lua scripts seen in this session"), lambda: scripts_text(scripts)))

    async def on_unmount(self) -> None:
        await self.class_mode.stop()
        await self.playground.close()


if TYPE_CHECKING:
    def _declared_hosts(app: PlaygroundApp) -> tuple[ScreenHost, ScenarioRunHost]:
        """For the type checker: the app is what its screens and scenario runs declare they need of
        it (its other parts are made with it: their constructors check the same)."""
        screens: ScreenHost = app
        scenario_runs: ScenarioRunHost = app
        return screens, scenario_runs


def make_app(server_choice: str | None = None, url: str | None = None,
             allow_flush: bool = False, clients: Iterable[str] = ("A", "B"),
             scenario_dirs: list[str] | None = None, open_scenario=None,
             challenge: bool = False, server: PrivateServer | Topology | None = None,
             lang: str = "en") -> PlaygroundApp:
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


def run_app(args, server: PrivateServer | Topology | None = None) -> int:
    """Run the app in this terminal until it quits; its exit status.

    Args:
        args: the command line (cli/main.py's namespace: server, url, clients, scenarios...).
        server: a private server (or topology) the CLI already spawned (None: the app starts its own).
    """
    scenario = getattr(args, "opened", None)  # (cli/main.py read it before anything started)
    if scenario is None and getattr(args, "command", None) == "open":
        from playground.scenario.library import resolve
        from playground.scenario.loader import load_scenario

        scenario = load_scenario(resolve(args.scenario, args.scenarios), getattr(args, "lang", "en"))
    app = make_app(args.server, args.url, args.allow_flush, args.clients,
                   scenario_dirs=getattr(args, "scenarios", None), open_scenario=scenario,
                   challenge=getattr(args, "challenge", False), server=server,
                   lang=getattr(args, "lang", "en"))
    bench = bool(os.environ.get("REDIS_PLAYGROUND_BENCH_READY"))  # python -m benchmarks.bench
    gc.freeze()  # what the imports made lives as long as the app: no collection scans it again
    try:
        app.run(headless=bench, size=(120, 40) if bench else None)
    finally:
        if app.playground.server is not None:
            app.playground.server.stop()  # whatever happened, the server goes with us
    return app.return_code or 0
