"""A line run until it is done or its client is blocked on the server: `submit` and
`Job.settle` in one (the scenario runner's step, and so the stepper's and the
explorer's), at the cost of the command's round trip when it answers at once.

`submit` starts a task for the line and `Job.settle` watches it for a block: three or
four more turns of the event loop per line than the round trip needs. A line the
catalogue says cannot block, stream or change the connection (`pipeline.pipelinable`:
the same lines `repl` sends ahead) runs here in the caller's own task instead, and
only a reply that is late (no byte of it within QUICK_LATE) is handed to a task of its
own and watched as `Job.settle` watches it: a command held by CLIENT PAUSE, or behind
another client's long script, is still found blocked and reported (a `Blocked` event,
once), only QUICK_LATE later. Every other line goes through `submit` and `settle`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from playground.engine import events as ev
from playground.engine.job import Job
from playground.engine.line_run import LineRun
from playground.engine.pipeline import pipelinable
from playground.engine.session import LATE

if TYPE_CHECKING:
    from playground.engine.executor import Executor

QUICK_LATE = 0.005
"""Seconds a line that cannot block waits for its reply in the caller's task before it
is watched for a block (the observer is asked from then on, as for any other line)."""


def runs_here(executor: "Executor", client: str, argv: Sequence[bytes]) -> bool:
    """May this line run in the caller's task (with its reply watched only when late)?"""
    pg = executor.pg
    session = pg.sessions[client]
    return (pipelinable(argv) and not session.streaming and not session.ldb.active and not pg.follows_redirects
            and not any(s.ldb.holds_server for s in pg.sessions.values()))


async def run_settled(executor: "Executor", client: str, argv: Sequence[bytes],
                      sink: Callable[[ev.Event], None] | None = None) -> Job:
    """Run one line for `client` until it is done (`job.task` is then done) or its
    client is blocked (`job.blocked`: the line goes on in `job.task`)."""
    argv = tuple(argv)
    if executor.busy(client) is not None or not runs_here(executor, client, argv):
        job = executor.submit(client, argv, sink=sink)
        await job.settle()
        return job
    job = Job(executor, client, argv, 1)
    here = asyncio.current_task()
    assert here is not None  # (a coroutine's task)
    job.task = here
    executor.take(job, sink)
    line = LineRun(executor, job)
    session = executor.pg.sessions[client]
    try:
        outcome = await line.start(late=QUICK_LATE)
    except BaseException:
        executor.drop(job)
        raise
    if outcome is LATE:
        job.task = finishing = asyncio.ensure_future(line.finish())
        session.running = finishing  # (Ctrl+C cancels the line, not the caller)
        if executor.attribute:
            finishing.add_done_callback(executor.attribute_when_done)
        await job.settle()
        return job
    if outcome.lost == "cancelled" and here.cancelling():
        # the caller's own cancellation (its time limit: Ctrl+C finds no line pending
        # here until it is late, see Session.execute): the caller's to handle
        executor.drop(job)
        raise asyncio.CancelledError()
    done = asyncio.get_running_loop().create_future()
    done.set_result(outcome)
    job.task = done
    if executor.attribute:
        executor.attribute_later(outcome)
    return job
