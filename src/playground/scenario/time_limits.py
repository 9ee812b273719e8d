"""Time limits for a scenario's setup and steps: what never answers stops the scenario.

A setup (`EVAL "while true do end" 0`) or a step (anything after `CLIENT PAUSE 600000
ALL`) that has not answered within the limit is abandoned: the scenario stops with one
line naming the file and the step, and the server is made usable again (a fresh private
server; on a --url server, SCRIPT KILL and CLIENT UNPAUSE, then every connection anew).
The limit is DEFAULT_TIME_LIMIT seconds unless `run`/`check --time-limit` says otherwise;
a step's own `sleep` does not count against it, and a blocked step's reply is waited for
by its `wait` step (WAIT_TIMEOUT).
"""

from __future__ import annotations

import asyncio

from playground.i18n import tr
from playground.resp.connection import TypedConnection

DEFAULT_TIME_LIMIT = 15.0
WAIT_TIMEOUT = 15.0  # seconds a wait step waits for a blocked command's reply


class TimedOut(Exception):
    """A setup or step did not answer within its limit (the message names it)."""


async def within(seconds: float, awaitable):
    """`awaitable`'s result, or TimedOut after `seconds` (in the caller's task: no task of
    its own per step, as asyncio.wait_for would make)."""
    try:
        async with asyncio.timeout(seconds):
            return await awaitable
    except TimeoutError:
        raise TimedOut() from None


def setup_message(scenario, part, seconds: float) -> str:
    """The one line that says a part's setup did not answer in time.

    Args:
        scenario: the scenario (its path is named).
        part: the part whose setup timed out.
        seconds: the time limit.
    """
    where = tr("part {name}: ", name=repr(part.name)) if part.name else ""
    shown = "; ".join(part.setup_display)
    return (f"{scenario.path}: {where}" + tr("setup ({commands}) did not answer within {seconds:g}s; scenario stopped",
                                             commands=shown[:80], seconds=seconds))


def step_message(scenario, part: str, step, seconds: float) -> str:
    """The one line that says a step did not answer in time.

    Args:
        scenario: the scenario (its path is named).
        part: the part's name ("" for the only part).
        step: the step that timed out.
        seconds: the time limit.
    """
    where = tr("part {name}: ", name=repr(part)) if part else ""
    return (f"{scenario.path}: {where}" + tr("step {n}", n=step.number) + f" ({step.client}> {step.display[:80]}): "
            + tr("no answer within {seconds:g}s; scenario stopped", seconds=seconds))


async def recover(runner) -> str:
    """After a time-out: abandon what still runs and make the server usable again;
    what was done, as a short clause."""
    pg, executor = runner.pg, runner.executor
    tasks = executor.in_flight() + runner.abandon_waiting()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if pg.private:
        await pg.restart()
        return tr("the playground started a fresh server")
    return await _unstick_url(pg)


async def end_running_script(runner) -> None:
    """Before a step's blocked command is given up while it runs a script (a rewind in the
    middle of busy-script, whose scripts loop until a step ends them): on a private single
    server, SCRIPT KILL, and a fresh server when the script already wrote (UNKILLABLE)."""
    pg = runner.pg
    if not pg.private or pg.topology is not None or not any(
            not job.task.done() and name in pg.sessions and pg.sessions[name].state.busy_script
            for name, (job, _) in runner.waiting.items()):
        return  # (nothing else is sent: under CLIENT PAUSE the SCRIPT KILL itself would wait)
    try:
        async with asyncio.timeout(10):
            reply, = await pg.admin.run([[b"SCRIPT", b"KILL"]])
    except Exception:  # noqa: BLE001 (the server gone or stuck: a fresh one)
        reply = None
    if reply is None or getattr(reply, "code", None) == "UNKILLABLE":
        await pg.restart()


async def _unstick_url(pg, within: float = 12.0) -> str:
    """A server the playground does not own: ask it to end the script and the pause on a
    new, unnamed connection (CLIENT SETNAME is refused while a script runs; SCRIPT KILL
    is answered only once the server's busy threshold has passed), then reconnect every
    connection of the playground's, again until it works or `within` seconds have passed
    (a killed script ends at its next check)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    side = TypedConnection(pg.address)
    try:
        async with asyncio.timeout(2):
            await side.connect()
        async with asyncio.timeout(within):
            await side.pipeline([[b"SCRIPT", b"KILL"], [b"CLIENT", b"UNPAUSE"]])
    except Exception:  # noqa: BLE001 (no script, not paused, or unreachable: the reconnect says)
        pass
    finally:
        await side.close()
    while True:
        try:
            async with asyncio.timeout(5):
                await pg.reconnect_all()
            return tr("SCRIPT KILL and CLIENT UNPAUSE sent; every client reconnected")
        except Exception as exc:  # noqa: BLE001 (said in one line, never a traceback)
            if loop.time() >= deadline:
                return tr("the server still does not answer ({error})", error=str(exc) or type(exc).__name__)
        await asyncio.sleep(0.1)  # (a retry interval: the script is still winding down)
