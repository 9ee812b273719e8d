"""The app's class mode (serve --class): hooks the teaching actions call, and Alt+C, the
teacher's class overview. Outside class mode every hook does nothing.
(A mixin of PlaygroundApp; the class itself is tui/classroom.py.)"""

from __future__ import annotations

import os


class ClassroomActions:
    classroom = None  # a tui.classroom.Classroom under serve --class

    @property
    def class_teacher(self) -> bool:
        """This tab is the teacher's (from its start: the footer shows Alt+C at once)."""
        from playground.classroom.protocol import ENV_ROLE

        return os.environ.get(ENV_ROLE) == "teacher"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "class_overview":  # serve --class: the teacher's tab alone shows Alt+C
            return self.class_teacher
        return super().check_action(action, parameters)

    def start_classroom(self) -> None:
        from .classroom import Classroom

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
        from .class_screens import ClassOverviewScreen

        if self.classroom is not None and self.classroom.teacher:
            if isinstance(self.screen, ClassOverviewScreen):
                self.pop_screen()
            else:
                self.push_screen(ClassOverviewScreen(self.classroom))
