"""A runner step's line (engine/settled_line.py): one that cannot block runs in the
caller's task, and a late reply is still watched for a block and reported as before.
Every test runs on both servers."""

import asyncio

import pytest

from playground.engine import events as ev
from playground.engine.executor import Executor
from playground.resp.replies import Bulk, Status


def collect(pg, **kwargs):
    seen = []
    return Executor(pg, seen.append, **kwargs), seen


def kinds(events, client):
    return [type(e).__name__ for e in events if e.client == client]


async def test_a_line_that_cannot_block_runs_in_the_callers_task(pg):
    """No task of its own: `job.task` is a done future; the events and the server order
    are those of a line run in its own task."""
    ex, seen = collect(pg)
    before = len(asyncio.all_tasks())
    job = await ex.settled("A", [b"SET", b"k", b"1"])
    assert not isinstance(job.task, asyncio.Task) and job.task.done() and not job.blocked
    assert len(asyncio.all_tasks()) == before
    assert job.result().replies == [Status(b"OK")] and job.result().seqs == [1]
    other = ex.submit("B", [b"GET", b"k"])
    assert await other.settle()
    assert other.result().replies == [Bulk(b"1")] and other.result().seqs == [2]
    assert kinds(seen, "A") == kinds(seen, "B") == ["Sent", "Reply", "UnitEnded"]
    assert ex.busy("A") is None


async def test_a_blocking_command_still_goes_through_a_task_and_is_found_blocked(pg):
    ex, seen = collect(pg)
    job = await asyncio.wait_for(ex.settled("A", [b"BLPOP", b"q", b"0"]), 30)
    assert job.blocked and isinstance(job.task, asyncio.Task) and not job.task.done()
    assert [e for e in seen if isinstance(e, ev.Blocked)][0].argv == (b"BLPOP", b"q", b"0")
    assert ex.busy("A") is not None
    pushed = await ex.settled("B", [b"RPUSH", b"q", b"x"])
    assert pushed.result().replies[0] == 1
    result = await asyncio.wait_for(job.task, 10)
    assert result.replies[0] == [Bulk(b"q"), Bulk(b"x")]


async def test_a_line_held_by_client_pause_is_found_blocked_once_its_reply_is_late(pg):
    """SET cannot block by the catalogue, but CLIENT PAUSE WRITE holds it: its late reply is
    handed to a task and watched, the client reported blocked once (as `submit` and
    `settle` do), and the reply, once the pause ends, ends the line in that task."""
    ex, seen = collect(pg)
    await ex.settled("A", [b"CLIENT", b"PAUSE", b"60000", b"WRITE"])
    try:
        job = await asyncio.wait_for(ex.settled("B", [b"SET", b"k", b"1"]), 30)  # (a hang fails)
        assert job.blocked and isinstance(job.task, asyncio.Task) and not job.task.done()
        assert len([e for e in seen if isinstance(e, ev.Blocked) and e.client == "B"]) == 1
        assert ex.busy("B") is not None
        refused = await ex.settled("B", [b"GET", b"k"])
        assert refused.result().refused  # the client waits: the line is not sent
    finally:
        await ex.settled("A", [b"CLIENT", b"UNPAUSE"])
    result = await asyncio.wait_for(job.task, 10)
    assert result.replies == [Status(b"OK")] and not result.lost
    assert kinds(seen, "B")[:2] == ["Sent", "Blocked"] and "Reply" in kinds(seen, "B")
    assert (await ex.settled("B", [b"GET", b"k"])).result().replies == [Bulk(b"1")]


async def test_a_time_limit_that_ends_while_the_line_waits_here_is_the_callers(pg):
    """A time limit around the step (scenario/time_limits.py) that ends while the line
    waits in the caller's task is raised to the caller, not taken for a lost line; the
    connection under it is not used again (its reply would be taken for the next one)."""
    ex, _ = collect(pg)
    await ex.settled("A", [b"CLIENT", b"PAUSE", b"60000", b"WRITE"])
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.001):
                await ex.settled("B", [b"SET", b"k", b"1"])
        assert ex.busy("B") is None and not pg.sessions["B"].connection.connected
    finally:
        await ex.settled("A", [b"CLIENT", b"UNPAUSE"])
    await pg.reconnect("B")  # (what the runner's recovery does, with a fresh server)
    job = await ex.settled("B", [b"PING"])
    assert job.result().replies == [Status(b"PONG")]


@pytest.mark.fresh_server   # (it leaves its server paused for 10 minutes: no reset gets through that)
async def test_a_reply_that_comes_while_the_observer_waits_behind_client_pause_all_ends_the_wait(pg):
    """`check` blamed a `CLIENT PAUSE 600000 ALL` step on a busy machine: its reply came
    after the first poll, whose CLIENT LIST then waited behind that very pause, so the step
    ran into its time limit though its reply was in. The wait ends with the reply: here the
    reply comes once the observer's CLIENT LIST is on its way (held by the pause)."""
    ex, _ = collect(pg)
    await ex.settled("A", [b"CLIENT", b"PAUSE", b"600000", b"ALL"])  # (held for the rest of the test)
    loop = asyncio.get_running_loop()
    reply = loop.create_future()
    real_refresh = pg.refresh_states

    async def refresh() -> None:  # the reply comes while the observer's refresh is on its way, held by the
        loop.call_soon(lambda: reply.done() or reply.set_result(None))  # pause (whether it is still
        await real_refresh()                                             # connecting or already sent)

    pg.refresh_states = refresh
    assert await asyncio.wait_for(pg.settle("A", reply), 30)  # without the race: 600 s behind the pause
