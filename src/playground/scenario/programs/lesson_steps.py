"""A lesson program's steps in the scenario runner (scenario/programs/lesson.py starts the programs):
a release step lets the program's next command through the gate and checks its reply
as for a typed command; a command that blocks at the server waits, as a `ProgramJob`
in the runner's `waiting`, for the client's wait step to take its reply."""

from __future__ import annotations

import asyncio
import functools

from playground.gate.endpoint import Held
from playground.i18n import tr
from playground.resp.cli_format import render
from playground.resp.connection import parse_reply
from playground.scenario.reply_checks import check_reply
from playground.scenario.requirements import flavour_of
from playground.scenario.substitution import plain_value
from playground.scenario.time_limits import WAIT_TIMEOUT

REPLY_TIMEOUT = WAIT_TIMEOUT  # a released command that neither answers nor blocks: as long as a wait step waits


async def answered(pg, held: Held, timeout: float = REPLY_TIMEOUT) -> bool:  # noqa: ASYNC109 (as settled)
    """Wait until `held`'s reply is back (True), or the server says its client is blocked,
    or `timeout` passes (False)."""
    return await settled(pg, held, timeout) == "answered"


async def settled(pg, held: Held, timeout: float = REPLY_TIMEOUT) -> str:  # noqa: ASYNC109 ("no reply" at the deadline: a value, not an exception)
    """Wait until `held` is "answered", or its connection "closed", or the server says its
    client is "blocked", or `timeout` passes ("no reply"). Polls with a growing interval,
    as Playground.settle does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.001
    while True:
        if not held.done.done():   # (most often answered already: the gate reads a quick reply at once)
            await asyncio.wait([held.done], timeout=delay)
        if held.done.done():
            return "answered" if held.done.exception() is None else "closed"
        if await _blocked(pg, held.client):
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


async def _blocked(pg, client) -> bool:
    """The server says the gate's connection for `client` is blocked (CLIENT LIST ID: that
    connection exactly, whatever else on the server has a name like it)."""
    reply, = await pg.reader.run([[b"CLIENT", b"LIST", b"ID", str(client.server_id).encode()]])
    fields = dict(f.split(b"=", 1) for f in bytes(reply).split() if b"=" in f)
    return b"b" in fields.get(b"flags", b"")


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
    gave_up = runner.programs.gave_up.pop(step.client, [])
    if gave_up:
        out.note = tr("{client} gave up on {commands} before it was let through: its connection closed (a timeout "
                      "of the program's own); they never ran", client=step.client,
                      commands=tr(", ").join(h.display for h in gave_up))
    odd = runner.programs.note_sent(step.client, got)
    if odd:
        out.checks.append(CheckResult("repeatable", False, odd))
    if step.sleep:   # the seconds pass between the program's sending and its command's release
        await asyncio.sleep(step.sleep)
    runner.programs.held_for(step.client, got)
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
    if step.blocking and not runner.programs.lenient:  # (lenient: a move that may block or not)
        out.checks.append(CheckResult("blocks", False, tr("expected the command to block, it answered at once")))
    await take_reply(runner, scenario, step, out, got)


async def wait_step(runner, scenario, step, out, job: ProgramJob) -> None:
    """A program's wait step: the reply to its command that blocked (as a typed
    command's wait step, engine-free)."""
    from playground.scenario.checks import CheckResult

    try:
        async with asyncio.timeout(WAIT_TIMEOUT):
            await asyncio.shield(job.task)
    except asyncio.TimeoutError:
        out.checks.append(CheckResult("reply arrives", False,
                                      tr("no reply after {seconds}s", seconds=f"{WAIT_TIMEOUT:g}")))
        return
    except ConnectionError:
        if runner.programs.lenient:   # (the explorer: its own timeout ended the wait, and it closed it)
            out.note = tr("the program closed its connection before the reply")
            out.command, out.argv = job.held.display, job.argv
            runner.programs.note_reply(step.client, job.held)   # (what it saw: no reply)
        else:
            out.checks.append(CheckResult("reply arrives", False, tr("the program's connection closed")))
        return
    out.note = tr("the reply to {command}", command=job.held.display)
    out.argv = job.argv
    await take_reply(runner, scenario, step, out, job.held)


async def take_reply(runner, scenario, step, out, held: Held) -> None:
    """A program's reply into the step's result: rendered as redis-cli would, saved,
    checked, and the state checked."""
    out.seq = held.seq
    runner.programs.note_reply(step.client, held)
    if held.silent:  # CLIENT REPLY OFF/SKIP: the server sends nothing, and so nothing is checked
        out.note = tr("no reply: the program asked the server for none (CLIENT REPLY OFF or SKIP)")
        await runner.check_step_state(step, out)
        return
    if held.record is not None:  # recorded as a typed line is (engine/program_lines.py): its why-notes
        line = await held.record  # and its unit (a command, a MULTI … EXEC at EXEC), for the server order
        reply, out.whys, out.units = line.reply, list(line.whys), list(line.units)
    else:
        assert held.reply is not None  # (answered: its step took it)
        reply = await parse_reply(held.reply)
    out.value = reply
    out.reply = render(reply, held.argv).decode("utf-8", "replace")
    if step.save:
        runner.saved.setdefault(step.client, {})[step.save] = plain_value(reply)
    out.checks.extend(check_reply(scenario, step, reply, out.reply, flavour_of(runner.pg)))
    await runner.check_step_state(step, out)


@functools.lru_cache(maxsize=1024)
def next_move(client: str, number: int):
    """A step that lets program `client`'s next command through, with no checks: a move
    of a part with no steps, or of a program that sends more commands than its steps.
    It may block (its reply is then taken by the client's next move). One of each (a
    Step is frozen: the explorer asks for the same moves again and again)."""
    from playground.scenario.model import Step
    return Step(number, client, None, "(its next command)", release=True, blocking=True)


async def default_order(runner, scenario, part):
    """A part with no steps (every client is a program): each program in the scenario's
    order of clients lets its commands through one at a time, to its end (A's, then
    B's ...); one whose command blocks waits while the next goes on, and is taken up
    again after it. Yields each move's StepResult."""
    programs = runner.programs
    lenient, programs.lenient = programs.lenient, True  # each move may block or not
    try:
        async for out in _in_turn(runner, scenario, part, programs):
            yield out
    finally:
        programs.lenient = lenient


async def _in_turn(runner, scenario, part, programs):
    from dataclasses import replace

    async def paced() -> None:   # run/check --pace: as long before each move as before a step (time held)
        if runner.pace:
            await asyncio.sleep(runner.pace)

    number = 0
    progress = True
    while progress:
        progress = False
        for client in scenario.clients:
            if client not in programs.running:
                continue
            while True:
                pending = runner.waiting.get(client)
                if pending is not None:
                    job = pending[0]
                    if not await job.settle():
                        break  # still blocked: the next program goes on
                    number += 1
                    take = replace(next_move(client, number), display="(reply arrives)", release=False,
                                   blocking=False, wait=True)
                    await paced()
                    out = await runner.run_step(scenario, part.name, take)
                    yield out
                    progress = True
                    continue
                if not isinstance(await programs.next_command(client), Held):
                    break  # it ended (finish() says how)
                number += 1
                await paced()
                out = await runner.run_step(scenario, part.name, next_move(client, number))
                yield out
                progress = True
                if runner.stopped or not out.ok:
                    return


async def planned_moves(runner, scenario, part) -> tuple:
    """A part with no steps, as steps to step it in the app: its programs run once in
    `run`'s order (default_order) to learn their moves; a command that blocked is a
    blocking step, and taking its reply a wait step."""
    from dataclasses import replace

    if await runner.begin_part(scenario, part):
        return ()
    steps = []
    async for out in default_order(runner, scenario, part):
        pending = runner.waiting.get(out.step.client)
        steps.append(replace(out.step, blocking=pending is not None and pending[1] is out))
    await runner.programs.finish()
    await runner.discard_pending()
    return tuple(steps)
