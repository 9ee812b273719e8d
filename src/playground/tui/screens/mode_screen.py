"""What every mode's screen shares: the server bar, clients side by side, the programs
line, the lanes, the key inspector and the footer; the keys every mode has.

A mode is a Screen of its own (free_play_screen.py, lesson_screen.py,
challenge_screen.py) with its own BINDINGS, listed whole in its own file and in the
order the footer shows them (the most needed first: at 80 columns the footer ends
early). F1 shows the active screen's bindings (help_text.py), so a key added to a
screen is in its help.

Each mode's screen is mounted once and kept (tui/mode_screens.py): the app shows it again
when the mode comes back (`enter`: the panes take over what the screen it replaces
showed), and a scenario's screen is bound again to the next lesson (scenario_screen.py).
Composing a mode's ~70 widgets costs a few hundred milliseconds of CPU; in a class of
thirty each lesson the teacher opens would be that in every learner's app.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from playground.i18n import N_, tr
from playground.served import key_display, keys, label, served
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.key_footer import KeyFooter
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.lanes_view import LanesView
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.widgets.own_programs import ProgramsPanel
from playground.tui.widgets.server_bar import ServerBar
from playground.tui.focus import focus_now

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from playground.engine.playground import Playground
    from playground.history import History
    from playground.scenario.recorder import Recorder
    from playground.tui.class_mode.class_mode import ClassMode
    from playground.tui.scenario_runs.scenario_run import ScenarioRun
    from playground.tui.widgets.own_programs import OwnPrograms
    from playground.tui.widgets.pane_services import PaneServices

HELP = Binding("f1", "help_screen", "Help", tooltip=N_("this help"))
# The keys that move the focus are priority bindings: the app runs them as the key arrives,
# before it hands the next keys to the focused widget (a screen's other bindings run only
# once the key has gone through the focused widget and up), and they move the focus at
# once (tui/focus.py): keys typed right after F2 go to A, never to the pane focused before.
FOCUS_A = Binding("f2", "focus_client(0)", "First client", priority=True, tooltip=N_("type into client A"))
FOCUS_B = Binding("f3", "focus_client(1)", "Second client", priority=True, tooltip=N_("type into client B"))
KEYS = Binding("f4", "focus_inspector", "Keys", show=False, priority=True,
               tooltip=N_("the key inspector (/ filters)"))
SCRIPTS = Binding("f6", "app.show_scripts", "Scripts", show=False,
                  tooltip=N_("the Lua scripts the server caches, whole"))
LESSONS = Binding("f7", "app.open_scenario", "Lessons", tooltip=N_("open a scenario (a lesson) or a challenge"))
ORDER = Binding(keys("ctrl+t"), "app.toggle_order", "Server order", key_display=key_display("ctrl+t"),
                priority=served(),  # served, Alt+T: printable, so a pane would type the t first
                tooltip=N_("the server order: lanes, and each reply's number in the panes"))
WHY = Binding("ctrl+y", "app.toggle_why", "Why on/off", show=False,
              tooltip=N_("the why notes under surprising replies on/off"))

LANES_UP = Binding("ctrl+up", "scroll_lanes(-3)", "Lanes up", show=False,
                   tooltip=N_("scroll the server order's lanes up (Ctrl+T shows them)"))
LANES_DOWN = Binding("ctrl+down", "scroll_lanes(3)", "Lanes down", show=False,
                     tooltip=N_("scroll the server order's lanes down"))

SHARED = [FOCUS_A, FOCUS_B, KEYS, SCRIPTS, LESSONS, ORDER, WHY, LANES_UP, LANES_DOWN]
"""Keys every mode has (each screen lists them in its own BINDINGS, F1 first)."""


class ScreenHost(Protocol):
    """What the modes' screens (and their dialogs) need of their app, beyond Textual's
    App: the playground, each client's history and services, the toggles every mode
    shows, class mode, the learner's programs and recorder (a PlaygroundApp)."""

    playground: Playground
    histories: dict[str, History]
    pane_services: PaneServices
    show_why: bool
    show_order: bool
    class_mode: ClassMode
    own_programs: OwnPrograms
    recorder: Recorder | None
    scenario_dirs: list[str]
    script_drafts: dict[str, tuple[str, str]]

    @property
    def mode_screen(self) -> ModeScreen: ...

    def follow_server(self, screen: ModeScreen | None = None) -> None: ...

    def refresh_everything(self) -> None: ...

    def close_scenario(self, waiting: Callable[[], Text] | None = None) -> Awaitable[None]: ...


def host_of(node: DOMNode) -> ScreenHost:
    """The app `node` runs in, as the modes' screens need it (ScreenHost: the app is a
    PlaygroundApp; tui/app.py checks that it is one)."""
    return cast("ScreenHost", node.app)


class ModeScreen(Screen[None]):
    """One mode of the app; subclasses set BINDINGS (whole: inherit_bindings=False),
    INTRO and KEYS_TITLE (what F1 says first)."""

    AUTO_FOCUS = None  # on_mount says where the typing goes (a pane; a scenario's narration)
    INTRO = ""
    KEYS_TITLE = ""
    busy = False
    """A lesson's or a challenge's step is running (free play: never)."""
    scenario_run: ScenarioRun | None = None
    """The open scenario (lesson_screen.py, challenge_screen.py); None in free play."""

    def __init__(self, clients: list[str]) -> None:
        super().__init__()
        self.clients = list(clients)
        self._entering = False  # the app is making this the mode's screen (`entering`)
        self._carried: ModeScreen | None = None  # the screen this one replaces: what the panes showed, the layout

    @property
    def host(self) -> ScreenHost:
        """The app, as this screen needs it (ScreenHost)."""
        return host_of(self)

    def compose(self) -> ComposeResult:
        app = self.host
        yield ServerBar(id="server-bar")
        yield Static(id="banner")
        yield NarrationPanel(id="narration")
        with Horizontal(id="panes"):
            for name in self.clients:
                yield ClientPane(name, app.histories.get(name), app.pane_services)
        yield ProgramsPanel(id="programs")
        with Horizontal(id="lower"):  # the lanes replace the keys; beside them when wide (app.tcss)
            yield LanesView(self.clients, app.playground, lambda: app.show_why, id="lanes")
            yield KeyInspector(app.playground)
        yield KeyFooter(self.clients)

    def entering(self, carried: "ModeScreen | None") -> None:
        """The app makes this the mode's screen in place of `carried` (None: the first):
        `enter` follows, at once if this screen is mounted, else once it is."""
        self._entering, self._carried = True, carried

    def on_mount(self) -> None:
        if self._entering:
            self.enter()

    def enter(self) -> None:
        """This is the mode's screen now: the panes show what the screen it replaces showed,
        with its layout; the lanes, the programs line, the server bar and the keys as the
        app has them now (they changed while another screen showed them)."""
        old, self._carried, self._entering = self._carried, None, False
        if old is not None:
            for name in self.clients:
                pane = self.pane(name)
                pane.take_over(old.pane(name))
                pane.first_run(None)  # the hints are for a first screen only
            for layout in ("-presenter", "-no-inspector"):
                self.set_class(old.has_class(layout), layout)
        self.query_one(LanesView).show(self.host.show_order)
        self.query_one(ProgramsPanel).set_class(self.host.own_programs.open, "-open")
        self.host.follow_server(self)
        self.query_one(KeyInspector).refresh_keys()  # (the server's keys changed meanwhile)
        self.call_after_refresh(lambda: self.focus_start() if self.host.mode_screen is self and not self.focus_chosen
                                else None)

    focus_chosen = False
    """A key chose where the typing goes (F2, F3, F4, Esc in a lesson): the mode's own start
    of focus, after its first frame, leaves it there."""

    def leave(self) -> None:
        """Another mode's screen replaces this one, which is kept for later: what follows
        time here (the lanes) stops following it."""
        self.query_one(LanesView).show(False)

    @property
    def shown(self) -> bool:
        """The mode's screen now (also under a dialog); a mode's screen kept for later is not."""
        return self in self.app.screen_stack

    def focus_start(self) -> None:
        """Where the typing goes when the mode opens: the first client's pane."""
        self.action_focus_client(0)

    def pane(self, client: str) -> ClientPane:
        return self.query_one(f"#pane-{client}", ClientPane)

    def refresh_keys(self) -> None:
        """The inspector reads the server's keys again; nothing while it is not there (the
        screen not composed yet, or the app ending: an engine event can come after)."""
        for inspector in self.query(KeyInspector):
            inspector.refresh_keys()

    @property
    def narration(self) -> NarrationPanel:
        return self.query_one(NarrationPanel)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "focus_client" and parameters and isinstance(parameters[0], int):
            return parameters[0] < len(self.clients)  # F3 with one client: no such key
        if self.host.class_mode.leads(action, parameters):  # serve --class, follow me (tui/class_mode/class_mode.py)
            return None  # dimmed in the footer, not run
        return True

    def action_help_screen(self) -> None:
        """F1: the keys of this screen, from its bindings (help_text.py)."""
        from playground.tui.help_text import help_for
        from playground.tui.dialogs.info_screens import InfoScreen

        inside = int(self.app.size.width * 0.9) - 8  # InfoScreen: 90% wide, its border, padding, scrollbar
        def off(binding) -> bool:  # serve --class, follow me: the keys refused now (tui/class_mode/class_mode.py)
            from textual.actions import parse

            return self.host.class_mode.leads(*parse(binding.action)[1:])

        self.app.push_screen(InfoScreen(tr("Help (Esc closes)"), lambda: help_for(self, inside, off)))

    def action_focus_client(self, which: str | int) -> None:
        """Focus a client's input, by name or by place (F2: the first, F3: the second)."""
        if isinstance(which, int):
            if which >= len(self.clients):
                return
            which = self.clients[which]
        self.focus_chosen = True
        focus_now(self.query_one(f"#pane-{which} Input"))

    def action_focus_inspector(self) -> None:
        """F4: the keys, brought on screen first when the layout hides them (never a
        focus on something hidden: the lanes give way; a hidden inspector is shown)."""
        inspector = self.query_one(KeyInspector)
        if self.host.show_order and not inspector.display:
            self.host.show_order = False
        self.remove_class("-no-inspector")
        if not inspector.display:  # the presenter layout at a small size has no room for it
            self.notify(tr("No room for the keys in the presenter layout at this size: f leaves it"), timeout=3)
            return
        self.focus_chosen = True
        focus_now(self.query_one("#inspector #keys"))

    def action_scroll_lanes(self, rows: int) -> None:
        """Ctrl+Up / Ctrl+Down: the lanes scroll from wherever the typing is."""
        lanes = self.query_one(LanesView)
        if not lanes.has_class("-shown"):
            self.notify(label(tr("The server order is not shown: Ctrl+T shows it")), timeout=3)
            return
        lanes.scroll_relative(y=rows, animate=False)

    def action_presenter(self) -> None:
        """Presenter layout: a big narration panel (the next command in bold, named
        scripts in full), a compact inspector; everything stays on the keyboard."""
        self.toggle_class("-presenter")
        for name in self.clients:  # smaller panes: still showing their last lines
            self.call_after_refresh(self.pane(name).log_widget.scroll_end, animate=False)
        if self.scenario_run is not None:
            self.scenario_run.render()
        self.notify(tr("Presenter layout on (f toggles)") if self.has_class("-presenter")
                    else tr("Presenter layout off (f toggles)"), timeout=2)

    def action_toggle_inspector(self) -> None:
        self.toggle_class("-no-inspector")
