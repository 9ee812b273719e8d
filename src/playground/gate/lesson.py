"""A lesson's programs in the scenario runner: started for each part after its fresh
start, each step of a program client releases that program's next command at the gate
(and the step's checks apply to its reply, as for a typed command), and after the
part's last step the gate runs free until every program has exited — a program that
hangs, or dies, ends the run with one line naming it.
"""

from __future__ import annotations

import asyncio

from playground.gate.endpoint import Gate, Held
from playground.gate.programs import TIME_LIMIT, Program, ProgramError
from playground.i18n import tr

REPLY_TIMEOUT = 15.0  # as the runner's WAIT_TIMEOUT: a released command that neither answers nor blocks


class LessonPrograms:
    """The gate and the running programs of the current part."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.gate: Gate | None = None
        self.running: dict[str, Program] = {}
        self._watchers: list[asyncio.Task] = []
        self.history: dict[str, list] = {}   # client -> [(argv, reply)] of its steps in this run
        self.seen: dict[tuple, tuple] = {}   # (client, history) -> the command sent next, in any run
        self.not_repeatable: str | None = None
        self._lesson = None
        self.lenient = False  # the explorer: a step of a program that ended well is skipped, not failed

    async def start(self, scenario) -> str | None:
        """Start the scenario's programs on a new gate; the error line if one cannot start."""
        await self.stop()
        if self._lesson != scenario.path:  # each run of the same lesson is compared with the others
            self.seen, self._lesson = {}, scenario.path
        self.history = {name: [] for name in scenario.programs}
        self.not_repeatable = None
        if not scenario.programs:
            return None
        try:
            self.gate = Gate.for_playground(self.pg)
        except ValueError:
            return tr("a lesson with programs runs on the playground's own private server")
        self.pg.closing.append(self.stop)  # the app quits: its programs go too
        limit = scenario.program_time_limit or TIME_LIMIT
        cwd = scenario.path.resolve().parent
        try:
            for name, argv in scenario.programs.items():
                url = await self.gate.listen(name)
                program = self.running[name] = Program(name, argv, cwd, url, limit)
                await program.start()
                self._watchers.append(asyncio.ensure_future(self._exit_told(program)))
        except ProgramError as exc:
            await self.stop()
            return str(exc)
        return None

    async def unmet(self, scenario) -> str | None:
        """Why the programs cannot run here (a `programs_need` command failed), or None."""
        for argv in scenario.programs_need:
            probe = Program("need", argv, scenario.path.resolve().parent, "", TIME_LIMIT)
            shown = " ".join(argv)
            try:
                await probe.start()
            except ProgramError:
                return tr("needs {command}: {program} is not installed", command=shown, program=argv[0])
            await probe.wait()
            if probe.failure():
                words = probe.last_words()
                return tr("needs {command}", command=shown) + (f": {words}" if words else "")
        return None

    async def _exit_told(self, program: Program) -> None:
        await program.process.wait()
        if self.gate is not None:
            self.gate.changed()  # a release step waiting for its next command learns it ended

    async def finish(self) -> str | None:
        """Let every program run to its end; the line saying which ended badly, if any."""
        if not self.running:
            return None
        self.gate.run_free()
        failures = []
        for program in self.running.values():
            await program.wait()
            if program.failure():
                failures.append(program.failure())
        await self.stop()
        return "; ".join(failures) or None

    async def stop(self) -> None:
        """Stop every program still running and close the gate."""
        for program in self.running.values():
            await program.stop()
        for watcher in self._watchers:
            watcher.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
        self._watchers.clear()
        self.running.clear()
        if self.gate is not None:
            await self.gate.close()
            self.gate = None
        if self.stop in self.pg.closing:
            self.pg.closing.remove(self.stop)

    async def next_command(self, name: str) -> Held | str:
        """Program `name`'s next command at the gate, or why there is none."""
        program = self.running.get(name)
        if program is None:
            return tr("program {name} is not running", name=name)

        def ready():
            held = self.gate.held(name)
            return held[0] if held else (program.exited and "exited")
        got = await self.gate.wait_for(ready, program.time_left())
        if isinstance(got, Held):
            return got
        if got is None:
            await program.stop(tr("ran past its time limit ({seconds} s)", seconds=f"{program.time_limit:g}"))
            return program.failure()
        await asyncio.gather(*program._readers, return_exceptions=True)
        return (program.failure()
                or tr("program {program} ended before its next command", program=program.describe))


    def note_sent(self, name: str, held: Held) -> str | None:
        """Remember what program `name` sent after the replies it got so far; the line
        saying so when an earlier run got the same replies and it sent something else
        (randomness, the clock: its outcomes could not be trusted)."""
        history = self.history.setdefault(name, [])
        key = (name, tuple(history))
        before = self.seen.setdefault(key, tuple(held.argv))
        if before != tuple(held.argv) and self.not_repeatable is None:
            from playground.resp.cli_lines import format_argv
            self.not_repeatable = tr(
                "program {program} is not repeatable at command {n}: after the same replies it sent {now}, "
                "where it sent {before} before", program=self.running[name].describe, n=len(history) + 1,
                now=held.display, before=format_argv(list(before)))
        return self.not_repeatable

    def note_reply(self, name: str, held: Held) -> None:
        self.history.setdefault(name, []).append((tuple(held.argv), held.reply))


async def answered(pg, held: Held, timeout: float = REPLY_TIMEOUT) -> bool:
    """Wait until `held`'s reply is back (True), or the server says its client is blocked,
    or `timeout` passes (False)."""
    return await settled(pg, held, timeout) == "answered"


async def settled(pg, held: Held, timeout: float = REPLY_TIMEOUT) -> str:
    """Wait until `held` is "answered", or its connection "closed", or the server says its
    client is "blocked", or `timeout` passes ("no reply"). Polls with a growing interval,
    as Playground.settle does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.001
    while True:
        done, _ = await asyncio.wait([held.done], timeout=delay)
        if done:
            return "answered" if held.done.exception() is None else "closed"
        if await _blocked(pg, held.client.name):
            return "blocked"
        if loop.time() >= deadline:
            return "no reply"
        delay = min(delay * 2, 0.05)


class ProgramJob:
    """A program's command that blocked at the server, kept in the runner's `waiting` as
    a typed command's Job is (engine/job.py): `argv`, and `task`, which ends with the
    reply's bytes, exactly as the server sent them."""

    def __init__(self, pg, held: Held) -> None:
        self.pg = pg
        self.held = held
        self.argv = tuple(held.argv)
        self.task = asyncio.ensure_future(asyncio.shield(held.done))
        self.task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (retrieved: no waiter may come)

    async def settle(self) -> bool:
        """As Job.settle: True when the reply is back (or the connection closed), False
        while the server says the program's connection waits."""
        if await settled(self.pg, self.held) != "blocked":
            await asyncio.gather(self.task, return_exceptions=True)
        return self.task.done()

    def abandon(self) -> None:
        """Stop waiting for the reply (the program itself is stopped with its part)."""
        self.task.cancel()


async def _blocked(pg, name: str) -> bool:
    reply, = await pg.reader.run([[b"CLIENT", b"LIST"]])
    for line in bytes(reply).split(b"\n"):
        fields = dict(f.split(b"=", 1) for f in line.split() if b"=" in f)
        if fields.get(b"name") == name.encode():
            return b"b" in fields.get(b"flags", b"")
    return False


async def typed_reply(raw: bytes):
    """The reply as the playground's typed values (for rendering and checks)."""
    from playground.resp.connection import TypedConnection
    from playground.resp.address import Address
    reader = asyncio.StreamReader()
    reader.feed_data(raw)
    reader.feed_eof()
    return await TypedConnection(Address(path="-"))._read(reader)


async def release_step(runner, scenario, step, out) -> None:
    """A program's step: release its next command; check its reply and the state. A
    command that blocks at the server is left waiting, for a wait step to take its reply,
    when the step says it blocks (`blocking = true`; the explorer allows it of every step)."""
    from playground.scenario.checks import CheckResult

    got = await runner.programs.next_command(step.client)
    program = runner.programs.running.get(step.client)
    if not isinstance(got, Held) and runner.programs.lenient and program is not None and not program.failure():
        out.skipped = tr("program {program} has ended", program=program.describe)  # fewer commands in this order
        return
    if not isinstance(got, Held):
        out.note = got
        out.checks.append(CheckResult("sends a command", False, got))
        return
    out.command, out.argv = got.display, tuple(got.argv)
    odd = runner.programs.note_sent(step.client, got)
    if odd:
        out.checks.append(CheckResult("repeatable", False, odd))
    runner.programs.gate.release(got)
    how = await settled(runner.pg, got)
    if how == "blocked" and step.blocking:
        out.note = tr("blocked: the reply comes later")
        runner.keep_waiting(step.client, ProgramJob(runner.pg, got), out)
        return
    if how != "answered":
        why = {"closed": tr("the program's connection closed"),
               "blocked": tr("the command blocked; mark the step blocking = true and add a wait step")}.get(
            how, tr("no reply after {seconds}s", seconds=f"{REPLY_TIMEOUT:g}"))
        out.checks.append(CheckResult("reply", False, why))
        return
    if step.blocking:
        out.checks.append(CheckResult("blocks", False, tr("expected the command to block, it answered at once")))
    await take_reply(runner, scenario, step, out, got)


async def wait_step(runner, scenario, step, out, job: ProgramJob) -> None:
    """A program's wait step: the reply to its command that blocked (as a typed
    command's wait step, engine-free)."""
    from playground.scenario.checks import CheckResult
    from playground.scenario.runner import WAIT_TIMEOUT

    try:
        await asyncio.wait_for(asyncio.shield(job.task), WAIT_TIMEOUT)
    except asyncio.TimeoutError:
        out.checks.append(CheckResult("reply arrives", False, tr("no reply after {seconds}s", seconds=f"{WAIT_TIMEOUT:g}")))
        return
    except ConnectionError:
        out.checks.append(CheckResult("reply arrives", False, tr("the program's connection closed")))
        return
    out.note = tr("the reply to {command}", command=job.held.display)
    out.argv = job.argv
    await take_reply(runner, scenario, step, out, job.held)


async def take_reply(runner, scenario, step, out, held: Held) -> None:
    """A program's reply into the step's result: rendered as redis-cli would, saved,
    checked, and the state checked."""
    from playground.resp.cli_format import render
    from playground.scenario.runner import _flavour, check_reply
    from playground.scenario.substitution import plain_value

    out.seq = held.seq
    runner.programs.note_reply(step.client, held)
    reply = await typed_reply(held.reply)
    out.value = reply
    out.reply = render(reply, held.argv).decode("utf-8", "replace")
    if step.save:
        runner.saved.setdefault(step.client, {})[step.save] = plain_value(reply)
    out.checks.extend(check_reply(scenario, step, reply, out.reply, _flavour(runner.pg)))
    await runner._check_state(step, out)
