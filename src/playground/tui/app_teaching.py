"""The app's teaching mode: opening a scenario or a challenge, stepping it from anywhere,
the presenter layout, the server-order and why toggles, the language switch.
(A mixin of PlaygroundApp: it uses the app's widgets and workers.)"""

from __future__ import annotations

from textual import work

from playground.i18n import tr
from .lanes_view import LanesView
from .narration import NarrationPanel


AUTOPLAY_PAUSE = 2.5  # seconds between steps in autoplay


class TeachingActions:
    """PlaygroundApp's actions for lessons and challenges."""

    @property
    def narration(self) -> NarrationPanel:
        return self.screen_stack[0].query_one(NarrationPanel)  # also under a modal (the clock ticks)

    def action_open_scenario(self) -> None:
        from playground.scenario.library import scenario_files
        from playground.scenario.model import ScenarioError
        from playground.scenario.loader import load_scenario
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

        self.push_screen(ScenarioPicker(scenarios), chosen)  # it shows them in course order

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
        self.class_opened(scenario, challenge)  # serve --class (tui/app_classroom.py)

    def _tick_clock(self) -> None:
        from textual.css.query import NoMatches

        if self.teacher is not None:
            try:
                self.teacher.tick()
            except NoMatches:  # the app is closing: its widgets are going
                pass

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Ctrl+N and Escape-to-narration exist only while a scenario is open."""
        if action == "class_overview":  # serve --class: the teacher's alone (tui/app_classroom.py)
            return self.class_teacher
        if action == "focus_client" and parameters and isinstance(parameters[0], int):
            return parameters[0] < len(self.clients)  # F3 with one client: no such key
        if action == "next_anywhere" and self.teacher is None:  # free play: a program's held command
            return self.own_programs.open
        if action in ("teach", "focus_narration", "next_anywhere") and self.teacher is None:
            return False
        if action == "next_anywhere":  # in the narration Space says it; elsewhere the footer shows ^n
            return self.teacher.challenge is None and self.focused is not self.narration
        if action == "teach" and parameters:
            return NarrationPanel.offers(self.teacher.challenge is not None, str(parameters[0]))
        return True

    def action_next_anywhere(self) -> None:
        """Ctrl+N: the next step from anywhere, also while typing in a pane."""
        if self.teacher is None:
            self.own_programs.release_next()
            return
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
            if not await self.class_before(what, teacher):  # serve --class: the teacher's histogram, follow me
                return
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
        self.class_after(teacher)
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
