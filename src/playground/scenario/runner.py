"""Replay a scenario on a playground and check every outcome it asserts.

The runner adds little over the Redis round trips: it waits only where a scenario
asks for time to pass (`sleep`), and notices a blocked client from the server's flags.
It never hangs: a step that blocks unexpectedly fails and is cancelled, a wait for a
pending reply gives up after WAIT_TIMEOUT seconds, and a setup or step that does not
answer within the time limit (15 s unless set: scenario/time_limits.py) stops the
scenario with one line naming the file and the step, on a server made usable again.
"""

from __future__ import annotations

import asyncio
from types import MappingProxyType
from typing import TYPE_CHECKING, Callable, Mapping, cast

from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.engine.job import Job
from playground.engine.playground import Playground
from playground.engine.session import STREAMING
from playground.i18n import tr
from playground.resp.cli_format import render
from playground.resp.cli_secrets import redact_line
from playground.resp.replies import Array, Err
from playground.scenario.checks import CheckResult, check_state, describe_key, reader_of  # noqa: F401 (re-exported)
from playground.scenario.expectations import judge_programs
from playground.scenario.lesson_clock import LessonClock, WallClock
from playground.scenario.model import SHA_IN_TEXT, Part, Requirement, Scenario, Step  # noqa: F401
from playground.scenario.redirects import catching
from playground.scenario.reply_checks import check_reply, expand_shas  # noqa: F401 (re-exported)
from playground.scenario.requirements import flavour_of, requirement_unmet  # noqa: F401 (re-exported)
from playground.scenario.results import PartEnd, ScenarioResult, StepResult  # noqa: F401 (re-exported)
from playground.scenario.server_steps import run_server_step, topology_unmet
from playground.scenario.substitution import TEMPLATE  # noqa: F401
from playground.scenario.substitution import fill_template, plain_value, show_value  # noqa: F401 (re-exported)
from playground.scenario.substitution import shown_command
from playground.scenario.time_limits import (DEFAULT_TIME_LIMIT, WAIT_TIMEOUT, TimedOut, end_running_script, recover,
                                             setup_message, step_message, within)

if TYPE_CHECKING:
    from playground.scenario.programs.lesson_steps import ProgramJob


def _task(job: Job | ProgramJob) -> asyncio.Future:
    """A blocked command's task, which a Job has from the moment its line is sent (engine/job.py)."""
    if job.task is None:
        raise RuntimeError("a command blocked before it was sent")
    return job.task


class Runner:
    """Runs one scenario; `on_step` sees each StepResult as soon as it is known.

    Commands go through the engine's executor (the same path as a typed line); pass
    `executor` to share one (the TUI does, with write attribution on)."""

    def __init__(self, pg: Playground, on_step: Callable[[StepResult], None] | None = None,
                 record_touched: bool = False, executor: Executor | None = None,
                 sink=None, time_limit: float | None = None, lesson_time: bool = False,
                 pace: float = 0.0, on_end: Callable[[PartEnd], None] | None = None) -> None:
        self.pg = pg
        self.clock = LessonClock(pg) if lesson_time else WallClock()  # waits between steps hold TTLs
        self.pace = pace  # run/check --pace: seconds waited before each step, as a teacher would
        self.time_limit_given = time_limit  # run/check --time-limit: wins over the scenario's own
        self.stopped: str | None = None  # why the scenario stopped (a time-out), if it did
        self.sink = sink  # the executor's events for the steps (None: the executor's own sink)
        self.on_step = on_step or (lambda result: None)
        self.on_end = on_end or (lambda end: None)  # a part's end, when it has an `expect`
        self.record_touched = record_touched
        self.executor = executor or Executor(pg)
        self._pending: dict[str, tuple[Job | ProgramJob, StepResult]] = {}
        self.waiting: Mapping[str, tuple[Job | ProgramJob, StepResult]] = MappingProxyType(self._pending)
        """Clients whose command blocked, and whose reply no wait step took yet: client ->
        (its Job, the StepResult of the step that sent it). A read-only live view."""
        self.saved: dict[str, dict[str, object]] = {}  # client -> name -> value (save = "...")
        self.HANDLERS = {"command": self._command_step, "wait": self._wait_step,
                         "reconnect": self._reconnect_step,  # one per step kind (model.STEP_KINDS)
                         "server": self._server_step, "release": self._release_step}
        from playground.scenario.programs.lesson import LessonPrograms
        # a lesson's programs, each part's own (scenario/programs/lesson.py)
        self.programs = LessonPrograms(pg, self.executor)

    async def run(self, scenario: Scenario) -> ScenarioResult:
        try:
            return await self._run(scenario)
        finally:
            await self.programs.stop()  # no program outlives its run
            await self.close_clock()

    async def _run(self, scenario: Scenario) -> ScenarioResult:
        result = ScenarioResult(scenario, self.pg.label)
        why = await requirement_unmet(self.pg, scenario.requires)
        if why:
            result.skipped = why
            return result
        why = topology_unmet(self.pg, scenario) or await self.programs.unmet(scenario)
        if why:
            result.skipped = why
            return result
        for name in scenario.clients:
            if name not in self.pg.sessions and name not in scenario.programs:
                result.error = tr("needs client {name}, the playground has {clients}", name=name,
                                  clients=", ".join(self.pg.sessions))
                return result
        for part in scenario.parts:
            error = await self.begin_part(scenario, part)
            if error:
                result.error = error
                return result
            for step in part.steps:
                if self.pace and not step.bound:  # (a bound step runs right after the one before)
                    await asyncio.sleep(self.pace)
                step_result = await self.run_step(scenario, part.name, step)
                result.steps.append(step_result)
                self.on_step(step_result)
                if self.stopped:
                    result.error = self.stopped
                    return result
            if not part.steps and scenario.programs:  # no steps: each program to its end in turn
                from playground.scenario.programs.lesson_steps import default_order
                async for step_result in default_order(self, scenario, part):
                    result.steps.append(step_result)
                    self.on_step(step_result)
                if self.stopped:
                    result.error = self.stopped
                    return result
            expect = part.expect
            error = await self.programs.finish(expect.judged if expect else frozenset())  # every program to its end
            if error:
                result.error = error
                return result
            if expect is not None or any(o.returned is not None for o in self.programs.outcomes.values()):
                end = await self.judge_end(part)   # (a function's return value: shown at the end)
                result.ends.append(end)
                self.on_end(end)
        await self.discard_pending()
        return result

    async def judge_end(self, part: Part) -> PartEnd:
        """What the part's `expect` says must hold at its end: the final keys, each
        program's exit status and return value (after `programs.finish`)."""
        expect = part.expect
        end = PartEnd(part.name, outcomes=dict(self.programs.outcomes))
        if expect is None:
            return end
        if expect.state:
            end.checks.extend(await check_state(self.pg, expect.state))
        end.checks.extend(judge_programs(expect, end.outcomes, self.programs.described))
        return end

    def preview(self, step: Step) -> str:
        """The command as this step would send it now (${n+1} filled in from saved replies;
        a program's step: the command its program holds at the gate, once it sent it)."""
        if step.release and self.programs.gate is not None:
            held = self.programs.gate.held(step.client)
            if held:
                return redact_line(held[0].display, held[0].argv)
        if not step.template or not step.argv:
            return step.display
        return shown_command(step.display, step.argv, self.saved.get(step.client, {}))

    def time_limit(self, scenario: Scenario) -> float:
        """Seconds a setup or step may take: --time-limit, else the scenario's
        `time_limit`, else DEFAULT_TIME_LIMIT."""
        return self.time_limit_given or scenario.time_limit or DEFAULT_TIME_LIMIT

    async def begin_part(self, scenario: Scenario, part: Part) -> str | None:
        """Fresh server state, then the part's setup; the error message if setup failed
        or did not answer in time (the server is then fresh again)."""
        self.stopped = None
        seconds = self.time_limit(scenario)
        await self.clock.step_starts(self.programs)
        try:
            return await within(seconds, self._begin_part(scenario, part))
        except TimedOut:
            self.stopped = setup_message(scenario, part, seconds) + "; " + await recover(self)
            return self.stopped
        finally:
            await self.clock.step_ended()  # until step 1: the setup's TTLs wait for the class too

    def lesson_now(self) -> float:
        """The lesson's time in seconds (monotonic, less the waits held: lesson_clock.py)."""
        return self.clock.now()

    async def close_clock(self) -> None:
        """Stop holding TTLs (the lesson is over or closed)."""
        await self.clock.close()

    async def _begin_part(self, scenario: Scenario, part: Part) -> str | None:
        await self.discard_pending()
        self.saved = {}
        self._keys_so_far: dict[bytes, None] = {}  # the part's keys, in the order first touched
        setup = part.setup
        if part.setup and await requirement_unmet(self.pg, part.requires):
            setup = ()  # every step of the part is skipped, with the reason
        replies = await self.pg.reset(setup=[list(c) for c in setup], by=scenario.clients[0], label=part.name,
                                      script_time_limit_ms=scenario.script_time_limit_ms)
        # no replies when the part's requirement is unmet (its setup skipped)
        for reply, shown in zip(replies, part.setup_display, strict=False):
            if isinstance(reply, Err):
                return tr("part {part}: setup {command!r} failed: {reply}", part=part.name or 1, command=shown,
                          reply=render(reply).decode().strip())
        return await self.programs.start(scenario, part)  # (programs start on the part's fresh state)

    async def run_step(self, scenario: Scenario, part: str, step: Step, refresh: bool = False) -> StepResult:
        """Run one step (`refresh`: then read every client's flags, within the same limit);
        one that does not answer in time fails, sets `stopped` and leaves a fresh server
        (a server step, which acts on the nodes, has its own limits)."""
        await self.clock.step_starts(self.programs)  # the lesson's time runs again (lesson_clock.py)
        try:
            return await self._timed_step(scenario, part, step, refresh)
        finally:
            await self.clock.step_ended()

    async def _timed_step(self, scenario: Scenario, part: str, step: Step, refresh: bool) -> StepResult:
        if step.kind == "server":
            return await self._run_step(scenario, part, step, refresh=refresh)
        seconds = self.time_limit(scenario)
        limit = seconds + (step.sleep or 0) + (WAIT_TIMEOUT if step.kind == "wait" else 0)
        out = StepResult(part, step)
        try:
            return await within(limit, self._run_step(scenario, part, step, out, refresh))
        except TimedOut:
            self.stopped = step_message(scenario, part, step, seconds) + "; " + await recover(self)
            out.note = tr("no answer within {seconds:g}s; scenario stopped", seconds=seconds)
            out.checks.append(CheckResult("answers in time", False, self.stopped))
            return out

    async def skip_reason(self, step: Step) -> str | None:
        """Why `step` would be skipped now (a requirement the server lacks, or a `when` the
        client's saved replies do not meet), or None when it runs."""
        why = await requirement_unmet(self.pg, step.requires)
        if why:
            return why
        if step.when is not None:
            saved = self.saved.get(step.client, {})
            if not step.when.holds(saved):
                return tr("{client} saw {seen}, so it does not do this", client=step.client, seen=step.when.seen(saved))
        return None

    async def _run_step(self, scenario: Scenario, part: str, step: Step, out: StepResult | None = None,
                        refresh: bool = False) -> StepResult:
        out = out or StepResult(part, step)
        out.skipped = await self.skip_reason(step)
        if not out.skipped:
            await self.HANDLERS[step.kind](scenario, step, out)
        if refresh:
            await self.pg.refresh_states()  # (after CLIENT PAUSE ALL this waits too)
        return out

    async def _command_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        argv = step.argv or ()   # (a command step has its line: scenario/model.py)
        if step.template:
            argv = tuple(fill_template(a, self.saved.get(step.client, {})) for a in argv)
            # $script by name
            out.command = shown_command(step.display, step.argv or (), self.saved.get(step.client, {}))
        out.argv = argv
        if step.sleep:
            await asyncio.sleep(step.sleep)
        sink = self.sink
        if self.pg.follows_redirects:  # redis-cli -c's redirect lines, apart from the reply
            sink = catching(self.pg, out.redirects, self.sink or self.executor.sink)
        job = await self.executor.settled(step.client, argv, sink=sink)
        if job.blocked:
            if step.blocking:
                out.note = tr("blocked: the reply comes later")
                self._pending[step.client] = (job, out)
                return
            await self.executor.cancel(step.client)
            await asyncio.gather(_task(job), return_exceptions=True)
            out.checks.append(CheckResult("does not block", False,
                                          tr("the command blocked; mark the step blocking = true and add a wait step")))
            return
        if step.blocking and not step.server_stops:
            out.checks.append(CheckResult("blocks", False, tr("expected the command to block, it answered at once")))
        await self._finish(scenario, step, out, job.result(), argv)

    async def _reconnect_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        """The client opens a new connection (after QUIT, or a CLIENT KILL by another)."""
        if step.sleep:
            await asyncio.sleep(step.sleep)
        self._pending.pop(step.client, None)
        message = await self.executor.reconnect(step.client)
        out.note = message
        ok = message is not None and self.pg.sessions[step.client].connected
        out.checks.append(CheckResult("reconnects", ok,
                                      "" if ok else tr("client {client} could not reconnect", client=step.client)))
        await self.check_step_state(step, out)

    async def _server_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        await run_server_step(self, scenario, step, out)

    async def _release_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        from playground.scenario.programs.lesson_steps import release_step
        await release_step(self, scenario, step, out)

    def keep_waiting(self, client: str, job: Job | ProgramJob, out: StepResult) -> None:
        """A step's command blocked: its reply is for a wait step (a program's: scenario/programs/lesson_steps.py)."""
        self._pending[client] = (job, out)

    async def _wait_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        pending = self._pending.pop(step.client, None)
        if pending is None:
            out.checks.append(CheckResult("reply arrives", False,
                                          tr("{client} has no blocked command to wait for (it answered at once)",
                                             client=step.client)))
            return
        job, origin = pending
        if step.client in scenario.programs:
            from playground.scenario.programs.lesson_steps import wait_step
            # a program's command: scenario/programs/lesson_steps.py kept its ProgramJob waiting
            return await wait_step(self, scenario, step, out, cast("ProgramJob", job))
        job = cast(Job, job)  # a typed client's command: _command_step kept its Job waiting
        try:
            async with asyncio.timeout(WAIT_TIMEOUT):
                await asyncio.shield(_task(job))
        except asyncio.TimeoutError:
            out.checks.append(CheckResult("reply arrives", False,
                                          tr("no reply after {seconds}s", seconds=f"{WAIT_TIMEOUT:g}")))
            await self.executor.cancel(step.client)
            return
        out.note = tr("the reply to {command}", command=origin.step.display)
        out.argv = origin.argv
        await self._finish(scenario, step, out, job.result(), origin.argv)

    async def _finish(self, scenario: Scenario, step: Step, out: StepResult, line: ev.LineResult,
                      argv: tuple[bytes, ...] | None) -> None:
        out.units = list(line.units)
        out.whys = list(line.whys)
        out.seq = line.seqs[-1] if line.seqs else None
        if line.server_gone:
            out.note = tr("the server stopped")
            out.checks.append(CheckResult("server stops", step.server_stops,
                                          "" if step.server_stops else tr("unexpected: {what}", what=line.server_gone)))
            others = [_task(job) for job, _ in self._pending.values() if isinstance(job, Job) and not _task(job).done()]
            if others:   # (their connections closed with the server: each says so before a fresh one starts,
                await asyncio.wait(others, timeout=WAIT_TIMEOUT)   # not found running when they look)
            self._pending.clear()
            await self.pg.restart()
            out.note += tr("; the playground started a fresh server")
            await self.check_step_state(step, out)
            return
        if line.refused or line.lost:
            why = line.refused or tr("client {client}: connection lost ({error})", client=step.client, error=line.lost)
            out.note = why
            out.checks.append(CheckResult("reply", False, why))
            return
        if step.server_stops:
            out.checks.append(CheckResult("server stops", False, tr("the server kept running")))
        reply = STREAMING if line.streaming else line.reply
        out.value = reply
        out.reply = "" if line.streaming else line.output.decode("utf-8", "replace")
        if step.save:
            self.saved.setdefault(step.client, {})[step.save] = plain_value(reply)
        out.checks.extend(check_reply(scenario, step, reply, out.reply, flavour_of(self.pg)))
        await self.check_step_state(step, out)
        if self.record_touched:
            out.touched = await self.touched_keys(argv or (), step)

    async def check_step_state(self, step: Step, out: StepResult) -> None:
        if step.state:
            out.checks.extend(await check_state(self.pg, step.state))

    async def touched_keys(self, argv: tuple[bytes, ...], step: Step) -> dict[str, dict]:
        """Every key of the part so far, as it is after this step: those the commands
        named (the server says which: COMMAND GETKEYS; a queued command's keys count from
        when it was queued, so MULTI and EXEC lines show the keys too) and those the
        steps check. A key that is gone is shown as absent (type "none")."""
        keys = getattr(self, "_keys_so_far", {})
        self._keys_so_far = keys
        for check in step.state:
            keys.setdefault(check.key, None)
        reply = (await reader_of(self.pg).run([[b"COMMAND", b"GETKEYS", *argv]]))[0]
        if isinstance(reply, Array):
            for k in reply:
                if isinstance(k, bytes):   # (every key named: a bulk string)
                    keys.setdefault(bytes(k), None)
        return {key.decode("utf-8", "replace"): await describe_key(self.pg, key) for key in keys}

    def abandon_waiting(self) -> list:
        """Forget the blocked steps whose replies wait steps would take; their tasks still
        running (for a caller that cancels them: scenario/time_limits.py)."""
        tasks = [_task(job) for job, _ in self._pending.values() if not _task(job).done()]
        self._pending.clear()
        return tasks

    async def discard_pending(self) -> None:
        """Cancel every blocked command still waiting (a script that still runs is ended:
        time_limits.end_running_script), and forget them."""
        await end_running_script(self)
        for name, (job, _) in list(self._pending.items()):
            if not _task(job).done() and not isinstance(job, Job):
                job.abandon()  # a program's command (scenario/programs/lesson_steps.py): the program goes with its part
            elif not _task(job).done():
                try:
                    await self.executor.cancel(name)
                except Exception:
                    pass
            await asyncio.gather(_task(job), return_exceptions=True)
        self._pending.clear()
