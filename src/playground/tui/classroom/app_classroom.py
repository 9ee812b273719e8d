"""The app's class mode (serve --class): hooks the teaching actions call, and Alt+C, the
teacher's class overview. Outside class mode every hook does nothing.
(A mixin of PlaygroundApp; the class itself is tui/classroom/classroom.py.)"""

from __future__ import annotations

import os
import time

from playground.i18n import tr

REFUSED_SHOWN = 3.0  # seconds the refusal stays on screen (one at a time: keys pressed meanwhile show no more)


class ClassroomActions:
    classroom = None  # a tui.classroom.Classroom under serve --class
    _refused_at: float | None = None  # when follow me's refusal was last shown (None: not since the mode changed)

    @property
    def class_teacher(self) -> bool:
        """This tab is the teacher's (from its start: the footer shows Alt+C at once)."""
        from playground.classroom.protocol import ENV_ROLE

        return os.environ.get(ENV_ROLE) == "teacher"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "class_overview":  # serve --class: the teacher's tab alone shows Alt+C
            return self.class_teacher
        if self.class_leads(action, parameters):
            return None  # dimmed in the footer, not run (on_key says why)
        return super().check_action(action, parameters)

    # -- follow me: a learner's tab stays on the teacher's lesson and step -----------

    def class_leads(self, action: str, parameters: tuple = ()) -> bool:
        """serve --class, a learner in follow me: `action` (the app's or a mode screen's)
        would move or leave the teacher's lesson. The one check: the screens' check_action
        (footer), F1, the actions themselves (the palette calls them) and on_key ask it."""
        if self.classroom is None:
            return False
        if action == "restart_server" and self.playground.server_stopped():  # (SHUTDOWN, a crash): it comes back
            return False
        return self.classroom.leads(action, parameters)

    def class_refused(self, action: str, parameters: tuple = ()) -> bool:
        """True, said in this tab, when follow me refuses `action` (class_leads)."""
        if not self.class_leads(action, parameters):
            return False
        if self.teacher is not None:
            self.teacher.autoplay = False
        now = time.monotonic()
        if self._refused_at is None or now - self._refused_at >= REFUSED_SHOWN:
            self._refused_at = now
            self.notify(tr("Your teacher leads the class now: this tab stays on their lesson and step "
                           "(it is yours again when they choose own pace)."),
                        title=tr("Follow me"), severity="warning", timeout=REFUSED_SHOWN)
        return True

    def class_changed(self) -> None:
        """A learner's class changed its mode or lesson: the footer's keys again, and the
        next refused key says so at once."""
        self._refused_at = None
        self.refresh_bindings()

    def on_key(self, event) -> None:
        """A key whose action follow me refuses (check_action: dimmed, not run) says why."""
        from textual.actions import parse

        if self.classroom is None or not self.classroom.holds:  # (a key's bindings, only while held)
            return
        active = self.screen.active_bindings.get(event.key)
        if active is not None and not active.enabled:
            _, action, parameters = parse(active.binding.action)
            if active.node.check_action(action, parameters) is None:  # dimmed, not hidden (a letter in a pane)
                self.class_refused(action, parameters)

    def start_classroom(self) -> None:
        from playground.tui.classroom.classroom import Classroom

        if self.classroom is None:
            self.classroom = Classroom.from_environment(self)
            if self.classroom is not None:
                self.run_worker(self.classroom.run(), group="classroom", exit_on_error=False)

    async def stop_classroom(self) -> None:
        if self.classroom is not None:
            await self.classroom.close()

    def class_opened(self, scenario, challenge: bool) -> None:
        if self.classroom is not None:
            self.classroom.opened(scenario, challenge)

    def class_closed(self, switched) -> None:
        if self.classroom is not None:
            self.classroom.closed(switched)

    async def class_before(self, what: str, teacher) -> bool:
        return True if self.classroom is None else await self.classroom.before(what, teacher)

    def class_after(self, teacher) -> None:
        if self.classroom is not None:
            self.classroom.after(teacher)

    def action_class_overview(self) -> None:
        """Alt+C (the teacher's tab): who is on which step, who won; m: follow me / own pace."""
        from playground.tui.classroom.class_screens import ClassOverviewScreen

        if self.classroom is not None and self.classroom.teacher:
            if isinstance(self.screen, ClassOverviewScreen):
                self.pop_screen()
            else:
                self.push_screen(ClassOverviewScreen(self.classroom))
