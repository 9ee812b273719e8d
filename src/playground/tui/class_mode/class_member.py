"""One app's part in a class, its ClassMember (serve --class; the protocol: playground.classroom;
what the app's keys and screens ask of the class: class_mode.py).

The teacher's app publishes the lesson it opens and each step it reaches, and asks the
class before a prediction is revealed (the histogram). A learner's app opens the lesson
the teacher opened, holds the learner's tab on the teacher's lesson and step in "follow
me" (keys that would leave or move it are refused: `leads`) or lets the learner step in
"own pace", asks each prediction in the learner's tab and reports the learner's place,
answers and challenge to the class."""

from __future__ import annotations

from functools import partial

import asyncio
import os
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import log

from playground.classroom.protocol import (
    ENV_NAME,
    ENV_ROLE,
    ENV_URL,
    ENDED_EXIT,
    FOLLOW,
    OWN,
    RELEASED_EXIT,
    ClassError,
    ClassLink,
    Learner,
    LessonState,
)
from playground.i18n import tr
from playground.resp.address import Address

if TYPE_CHECKING:
    from playground.tui.class_mode.class_mode import ClassHost, ClassMode
    from playground.tui.dialogs.scenario_dialogs import PredictScreen
    from playground.tui.scenario_runs.scenario_run import ScenarioRun

RETRY = 2.0  # seconds between two tries to reach a class's Redis that went away
LED = ("next", "previous", "end", "jump", "rewind_here", "restart", "autoplay", "close")
"""A scenario screen's teach(what) that would move a learner's lesson or leave it: refused in follow me."""
LEAVE = ("open_scenario", "next_anywhere", "restart_server", "flush")
"""The same for these actions: F7 and its picker, Ctrl+N; F5 and F8, which would leave the
learner's server unlike the class's, so that the teacher's next steps answer differently
there (F5 on a server that stopped is allowed: ClassMode.leads)."""


def waiting_text(closed: bool = False) -> Text:
    """What a learner's lesson screen says while the class has no lesson (`closed`: the
    teacher has just closed one)."""
    said = tr("Your teacher closed the lesson.") + " " if closed else ""
    return Text(said + tr("Waiting for your teacher to open a lesson; meanwhile A and B are yours: type "
                          "commands in them (F2, F3)."), style="italic")


class ClassMember:
    """This app in the class: the teacher's, or a learner's."""

    def __init__(self, app: ClassHost, mode: ClassMode, link: ClassLink, teacher: bool) -> None:
        """Args:
            app: the app in the class.
            mode: the app's class mode (follow me's refusals, the footer's keys).
            link: the class's Redis.
            teacher: this is the teacher's app.
        """
        self.app = app
        self.mode = mode
        self.link = link
        self.teacher = teacher
        self.state = LessonState()
        self.me = Learner(id=secrets.token_hex(8), name="")
        self.watchers: list[Callable[[dict[str, Any]], None]] = []
        """The class screens on show: each called with each message of the class."""
        self.published: set[int] = set()  # steps whose answer this learner has sent
        self.kept: dict[int, int] = {}    # this run's answers: kept when the lesson is opened again for it
        self.away_since = 0.0             # when this learner's tab went (time.time(); 0: it shows)
        self.asking: PredictScreen | None = None  # the PredictScreen a learner is answering ahead of the teacher
        self.ask_later: ScenarioRun | None = None  # its question waits until the learner's line is sent
        self._lines_watched: set[int] = set()  # the panes' inputs whose value `_line_sent` follows
        self.following = False
        # a learner: the ScenarioRun of the lesson opened for the class run `run_epoch`
        self.run_lesson: ScenarioRun | None = None
        self.rejoin: int | None = None  # the run whose lesson this learner opened (and may have left since)
        self.run_epoch = 0            # (answers and progress are sent for that run only)
        self.shared: tuple[str, bool, Any] | None = None
        """The teacher: the scenario the class has (its source, challenge, questions)."""

    @classmethod
    def from_environment(cls, app: ClassHost, mode: ClassMode) -> ClassMember | None:
        url = os.environ.pop(ENV_URL, None)  # read once: no program this app starts inherits the password
        if not url:
            return None
        try:
            address = Address.from_url(url)
        except ValueError:
            return None
        link = ClassLink(address, os.environ.get(ENV_NAME, "class"))
        return cls(app, mode, link, os.environ.get(ENV_ROLE) == "teacher")

    # -- the connection -------------------------------------------------------------

    async def run(self) -> None:
        """The app's class worker: join, catch up, then act on every message; after a lost
        connection to the class's Redis, catch up again."""
        if self.teacher:
            self.app.notify(tr("Class mode: you lead. F7 picks the lesson for the class; "
                               "Alt+C shows the class."), timeout=10)
        else:
            from playground.tui.class_mode.class_screens import LearnerNameScreen

            name = await self.app.push_screen_wait(LearnerNameScreen())
            self.me.name = name or tr("learner {id}", id=self.me.id[:4])
        lost = False

        async def catch_up() -> None:  # subscribed first: a message sent while catching up is heard after
            nonlocal lost
            await self._catch_up()
            if lost:
                self.app.notify(tr("Class mode: connected to the class again."), timeout=4)
                lost = False

        while True:
            try:
                async for message in self.link.listen(self.teacher, subscribed=catch_up):
                    try:
                        await self.on_message(message)
                    except Exception as exc:  # noqa: BLE001 (a message this tab failed on ends no more than
                        log.error(f"class mode: {message!r}: {exc!r}")  # itself: the next still come)
            except ClassError as exc:
                if not lost:
                    self._out_of_reach(exc)
                lost = True
            await asyncio.sleep(RETRY)  # then try again

    async def _catch_up(self) -> None:
        """The class as it is now (a learner: its lesson opened, its step followed)."""
        lesson = self.state.lesson, self.state.epoch
        self.state = await self.link.state()
        if self.teacher:
            return
        self.mode.changed()  # follow me's keys (leads) may have changed
        await self.report()
        if (self.state.lesson, self.state.epoch) != lesson:
            await self.open_lesson()
        else:
            await self.follow()

    async def close(self) -> None:
        if not self.teacher and self.me.name:
            try:
                async with asyncio.timeout(2.0):
                    await self.link.leave(self.me.id)
            except (TimeoutError, ClassError):
                pass
        await self.link.close()

    def _out_of_reach(self, exc: ClassError) -> None:
        self.app.notify(tr("Class mode: the class's Redis is out of reach: {error}", error=exc), severity="error")

    def watch(self, callback) -> None:
        self.watchers.append(callback)

    def unwatch(self, callback) -> None:
        if callback in self.watchers:
            self.watchers.remove(callback)

    async def on_message(self, message: dict) -> None:
        kind = message["type"]
        if kind in ("lesson", "step", "mode"):
            self.state = await self.link.state()
            if kind != "step" and not self.teacher:
                self.mode.changed()  # follow me's keys (leads) may have changed
        for callback in list(self.watchers):
            callback(message)
        if self.teacher:
            return
        if kind == "release" and message.get("id") == self.me.id:  # the teacher freed this learner's place
            self.app.exit(return_code=RELEASED_EXIT)
        elif kind == "end":  # the teacher ended the class: this tab says so (serve: ENDED_EXIT)
            self.app.exit(return_code=ENDED_EXIT)
        elif kind == "lesson":
            await self.open_lesson()
        elif kind == "mode":
            from playground.tui.class_mode.class_screens import mode_name

            self.app.notify(tr("Your teacher chose: {mode}", mode=mode_name(self.state.mode)), timeout=4)
            await self.follow()
        elif kind == "step":
            await self.follow()

    # -- the teacher ----------------------------------------------------------------

    @property
    def follows(self) -> bool:
        """A learner in follow me: this tab goes where the teacher leads (`holds`, `waits`)."""
        return not self.teacher and self.state.mode == FOLLOW

    @property
    def holds(self) -> bool:
        """A learner in follow me, the teacher's lesson open: this tab is held on it."""
        return self.follows and bool(self.state.lesson)

    @property
    def waits(self) -> bool:
        """A learner in follow me while the class has no lesson (none yet, or the teacher
        closed it): this tab waits for the teacher's next one."""
        return self.follows and not self.state.lesson

    def leads(self, action: str, parameters: tuple = ()) -> bool:
        """While the tab is held (`holds`): `action` (a screen's or the app's, with its
        parameters) would move this tab's lesson or leave it, so it is refused (dimmed in
        the footer, said so when tried; class_mode.py). While it waits for the teacher's
        next lesson (`waits`): F7, a lesson of the learner's own, which the teacher's next
        lesson would take away (the panes, F5 and F8 are the learner's meanwhile)."""
        if self.waits:
            return action == "open_scenario"
        if not self.holds:
            return False
        if action == "teach":
            return bool(parameters) and parameters[0] in LED
        return action in LEAVE

    async def overview(self):
        return await self.link.state(), await self.link.learners()

    async def answers(self, step: int):
        """The answers of this run, and how many learners are on its lesson."""
        counts = await self.link.answers(self.state.epoch, step)
        state = self.state
        learners = await self.link.learners()
        return counts, len([one for one in learners if (one.epoch, one.lesson) == (state.epoch, state.lesson)])

    async def end_class(self) -> None:
        """The teacher ends the class (after the lesson's publishing): every learner's app ends."""
        await self._published()
        await self.link.end_class()

    async def toggle_mode(self) -> None:
        await self.link.set_mode(OWN if self.state.mode == FOLLOW else FOLLOW)

    def opened(self, scenario, challenge: bool) -> None:
        """The app opened a lesson: the teacher's opens it for the class, its text and all
        (a new run); one that cannot go to the class stays in the teacher's tab, said so."""
        if not self.teacher:
            return
        from playground.classroom.lesson_source import shareable_source
        from playground.scenario.model import ScenarioError

        try:
            source = shareable_source(scenario, self.app.scenario_dirs)
        except ScenarioError as exc:
            self.app.notify(tr("Class mode: this lesson stays in your tab, the class keeps {lesson}: {error}",
                               lesson=self.state.lesson or "–", error=exc), severity="error", timeout=10)
            return
        from playground.classroom.answers_csv import questions

        self.app.run_worker(partial(self._opened, scenario.id, challenge, source, questions(scenario)),
                            group="class-publish", exit_on_error=False)

    def closed(self, switched) -> None:
        """The app closed its lesson. The teacher's: the class's lessons close too (a run with
        none), so that no learner is left on a lesson nobody leads. A learner's: the overview
        shows them on none, once free play is on (`switched`)."""
        if not self.teacher:
            self.app.run_worker(partial(self._report_after, switched), group="class-publish", exit_on_error=False,
                                description="class: where this learner is, once the lesson closed")  # (not
            # repr(): Textual's AwaitComplete, the close's awaitable, has a __rich_repr__ that raises)
        elif self.state.lesson:
            self.shared = None
            self.app.run_worker(partial(self._opened, "", False, ""), group="class-publish", exit_on_error=False)

    async def _report_after(self, switched) -> None:
        await switched
        await self.report()

    async def _opened(self, lesson: str, challenge: bool, source: str, asks=None) -> None:
        self.state.epoch = await self.link.open_lesson(lesson, challenge, source, asks)
        self.state.lesson, self.state.challenge, self.state.step = lesson, challenge, 0
        self.shared = (source, challenge, asks)

    async def _published(self) -> None:
        """Until the lesson the teacher opened is the class's (its run's epoch known)."""
        await self._workers_done("class-publish")

    async def _workers_done(self, group: str) -> None:
        """Until the app's workers of `group` have finished."""
        for worker in list(self.app.workers):
            if worker.group == group and not worker.is_finished:
                try:
                    await worker.wait()
                except Exception:  # its error was shown by the worker
                    pass

    async def before(self, what: str, scenario_run) -> bool:
        """Before a teaching action: False to leave it undone."""
        if not self.teacher:
            if self.mode.refused("teach", (what,)):  # the mode changed since the key was taken
                return False
            if what == "restart":  # own pace, from the top: this run's answers given again
                self.published.clear()
                self.kept.clear()
            return True
        await self._published()
        if what == "restart" and self.shared is not None and scenario_run.scenario.id == self.state.lesson:
            try:  # a new run for the class: the answers given before neither show nor count
                await self._opened(self.state.lesson, self.shared[1], self.shared[0], self.shared[2])
            except ClassError as exc:
                self._out_of_reach(exc)
        stepper = scenario_run.stepper
        nxt = stepper.next_step() if stepper is not None and what == "next" else None
        if stepper is None or not nxt:
            return True
        index: int = stepper.cursor
        if nxt[1].predict and index not in scenario_run.answers:
            from playground.tui.class_mode.class_screens import ClassAnswersScreen

            step = nxt[1]
            shown = f"{step.client}> {stepper.runner.preview(step)}"
            if not await self.app.push_screen_wait(ClassAnswersScreen(self, index, step.predict, shown)):
                return False
            scenario_run.answers[index] = 0  # the teacher is not asked: the class answered
        if self.state.lesson and scenario_run.scenario.id == self.state.lesson:  # to the class at the key,
            self.state.step = stepper.group_end(index)  # not once the projector has typed and run it (after()
            try:  # sets it right if the step went otherwise): the learners' apps run it meanwhile
                await self.link.set_step(self.state.epoch, self.state.step)
            except ClassError as exc:
                self._out_of_reach(exc)
        return True

    def after(self, scenario_run: ScenarioRun | None) -> None:
        """After a teaching action: the teacher's step, or the learner's place, to the class."""
        if scenario_run is None or self.app.scenario_run is not scenario_run:
            return
        if self.teacher:
            stepper = scenario_run.stepper
            if (stepper is not None and stepper.cursor != self.state.step and self.state.lesson
                    and scenario_run.scenario.id == self.state.lesson):  # not a lesson the class does not have
                self.state.step = stepper.cursor
                self.app.run_worker(partial(self.link.set_step, self.state.epoch, self.state.step),
                                    group="class-publish", exit_on_error=False)
            return
        self.app.run_worker(partial(self._report_answers, scenario_run), group="class-publish", exit_on_error=False)

    # -- a learner ------------------------------------------------------------------

    def tab_shown(self, shown: bool) -> None:
        """The learner's tab closed (the app lives on for serve's grace) or came back: the
        overview marks the learner away, since when."""
        if self.teacher or shown == (not self.away_since):
            return
        self.away_since = 0.0 if shown else time.time()
        if self.me.name:  # (joined: else the name screen's answer reports it)
            self.app.run_worker(self.report, group="class-publish", exit_on_error=False)

    async def report(self) -> None:
        scenario_run = self.app.scenario_run
        me = self.me
        me.away = self.away_since
        me.lesson = self.state.lesson
        if scenario_run is not None and scenario_run is self.run_lesson:
            me.epoch = self.run_epoch
            stepper, challenge = scenario_run.stepper, scenario_run.challenge
            me.step = stepper.cursor if stepper else len(challenge.moves) if challenge else 0
            me.total = len(stepper.flat) if stepper else 0
            me.right, me.answered = scenario_run.score()
            me.won = scenario_run.won if scenario_run.challenge is not None else None
        else:  # not (yet) on this run's lesson: not on it in the overview either
            me.lesson = scenario_run.scenario.id if scenario_run is not None else ""
            me.epoch = self.state.epoch
            me.step = me.total = me.right = me.answered = 0
            me.won = None
        await self.link.progress(me)

    async def _report_answers(self, scenario_run: ScenarioRun) -> None:
        """This run's answers not sent yet (those of a lesson opened for an older run: never)."""
        if scenario_run is self.run_lesson:
            self.kept.update(scenario_run.answers)
        for index, choice in list(scenario_run.answers.items()):
            if choice and index not in self.published and scenario_run is self.run_lesson:
                self.published.add(index)
                await self.link.answer(self.me.id, self.run_epoch, index, choice)
        await self.report()

    async def open_lesson(self) -> None:
        """The teacher's lesson, from the text the class carries, for this run."""
        from playground.classroom.lesson_source import learner_scenario
        from playground.history import state_dir
        from playground.scenario.model import ScenarioError

        state = await self.link.lesson()
        self.state = state
        if state.epoch != self.run_epoch:  # a new run: its answers are new (the same run opened again: kept)
            self.published.clear()
            self.kept.clear()
        self.run_lesson, self.run_epoch = None, state.epoch  # answers wait for the run's lesson
        self.rejoin = None
        self._dismiss_question()
        if not state.lesson:  # the teacher closed the lesson
            if self.app.scenario_run is not None:
                self.app.close_scenario(waiting=lambda: waiting_text(closed=True))  # the lesson's screen waits
                self.app.notify(tr("Your teacher closed the lesson."), timeout=4)
            await self.report()
            return
        try:
            scenario = learner_scenario(state.lesson, state.source, self.app.lang, self.app.scenario_dirs,
                                        state_dir() / "class")
        except (ScenarioError, OSError) as exc:
            self.app.notify(tr("Class mode: cannot open the teacher's lesson: {error}", error=exc), severity="error")
            await self.report()
            return
        switched = self.app.open_scenario(scenario, state.challenge)
        if switched is None:  # it could not open (said so)
            await self.report()
            return
        await switched  # the lesson's screen is mounted and its start began
        await self._teaching_done()
        scenario_run = self.app.scenario_run
        if scenario_run is not None:  # the class's run: every answer given in it stays (own pace and back, a rewind)
            scenario_run.answers_kept = True
            scenario_run.answers.update(self.kept)
        self.run_lesson, self.rejoin = scenario_run, state.epoch
        await self.report()
        await self.follow()

    async def _teaching_done(self) -> None:
        """Until the app's own teaching worker (the lesson's start, a step) is done."""
        await self._workers_done("teach")

    def _dismiss_question(self) -> None:
        asking, self.asking = self.asking, None
        if asking is not None and asking.is_attached:
            asking.dismiss(0)

    async def follow(self) -> None:
        """Follow me: this learner's lesson to the teacher's step, then the next question
        asked ahead (the learner answers before the teacher reveals)."""
        from playground.tui.scenario_runs.lesson_run import LessonRun

        scenario_run = self.app.scenario_run
        if (self.state.mode == FOLLOW and not self.following and scenario_run is not self.run_lesson
                and self.rejoin == self.state.epoch):  # the learner left the class's lesson (F7, x)
            self.app.notify(tr("Follow me: back to your teacher's lesson."), timeout=4)
            await self.open_lesson()
            return
        if (self.following or self.state.mode != FOLLOW or not isinstance(scenario_run, LessonRun)
                or scenario_run is not self.run_lesson):  # (a lesson's: a challenge has no steps to follow)
            return
        self.following = True
        try:
            await self._teaching_done()
            stepper = scenario_run.stepper
            screen = self.app.mode_screen
            while stepper.cursor != self.state.step and self.app.scenario_run is scenario_run:
                target = self.state.step
                screen.busy = True
                before = stepper.cursor
                # The class watches the teacher type the step (the projector): a follower's tab runs it
                # untyped, so that it shows the step as soon as it hears of it (1 s for a class of 30).
                speed, scenario_run.speed_index = scenario_run.speed_index, 0
                try:
                    if stepper.cursor < target and not stepper.finished:
                        nxt = stepper.next_step()
                        if nxt is not None and nxt[1].predict:
                            self._dismiss_question()
                            scenario_run.answers.setdefault(stepper.cursor, 0)  # not answered in time: not scored
                        await scenario_run.next()
                    else:
                        await scenario_run.goto(min(target, len(stepper.flat)))
                except Exception as exc:  # never a traceback in front of the class; the next message retries
                    self.app.notify(f"{exc}", severity="error")
                    break
                finally:
                    screen.busy = False
                    scenario_run.speed_index = speed
                if stepper.cursor == before:  # no step taken (the lesson stopped): wait for the next message
                    break
                if stepper.finished or stepper.error:
                    break
            await self._report_answers(scenario_run)
            self._ask_ahead(scenario_run)
        finally:
            self.following = False

    def _line_sent(self, value: str) -> None:
        """A pane's line changed: once it is empty (sent, or wiped), a question held for it is asked."""
        scenario_run, self.ask_later = self.ask_later, None
        if scenario_run is not None and not value and scenario_run is self.run_lesson \
                and self.app.scenario_run is scenario_run:
            self._ask_ahead(scenario_run)
        elif scenario_run is not None and value:
            self.ask_later = scenario_run

    def _ask_ahead(self, scenario_run) -> None:
        from playground.tui.dialogs.scenario_dialogs import PredictScreen
        from playground.tui.scenario_runs.teaching_text import script_block

        stepper = scenario_run.stepper
        nxt = stepper.next_step()
        index = stepper.cursor
        if nxt is None or not nxt[1].predict or index in scenario_run.answers or self.asking is not None:
            return
        from textual.widgets import Input

        typing = self.app.focused
        if isinstance(typing, Input) and typing.value:  # a line half typed: its digits would answer, its
            self.ask_later = scenario_run               # Enter choose (the question takes every key)
            if id(typing) not in self._lines_watched:
                self._lines_watched.add(id(typing))
                self.app.watch(typing, "value", self._line_sent, init=False)
            return
        self.ask_later = None
        step = nxt[1]
        screen = self.asking = PredictScreen(step.predict, f"{step.client}> {stepper.runner.preview(step)}",
                                             script_block(scenario_run.scenario, step.display))

        def answered(choice: int | None) -> None:
            if self.asking is screen:
                self.asking = None
            scenario_run.answers.setdefault(index, choice or 0)
            self.app.run_worker(partial(self._report_answers, scenario_run), group="class-publish", exit_on_error=False)

        self.app.push_screen(screen, answered)
