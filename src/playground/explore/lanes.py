"""Many schedules at once: the explorer's planned schedules run in lanes, the explorer's
own playground one of them, each other lane a worker process (explore/lane_worker.py)
with a private server of its own, started fresh from the same binary. A lane takes the
next chunk of the plan when it is nearly through its last, so a lane slowed by a busy
machine runs fewer; every run comes back to the explorer, which groups them as they
come (explore/grouping.py: what it keeps does not depend on their order), so the report
is the one a single lane gives, for the same plan (the same seed).

Worth it where the explorer's own process is the bottleneck: a schedule costs the
explorer about four times the CPU it costs the server (BENCHMARKS.md), so one asyncio
loop driving more servers would gain nothing; processes use the other cores. By default
only a plan of PARALLEL_FROM schedules or more is split, over as many lanes as the
machine has cores (at most MOST); `--jobs` chooses. A lesson's Python programs (their gate and warm
interpreter) and a server the playground did not start (--url), a replica set or a
cluster stay in one lane: copying those is dearer than it gains.

Every worker ends with the exploration (done, failed or cancelled): its socket closes,
it stops its server and exits, and one that does not within STOP_GRACE is killed with
its process group; both are tied to the explorer's process as the private server is
(PR_SET_PDEATHSIG and a watchdog, server/children.py). A worker's failure (its server
stopped, say) stops the exploration with its one line, as the explorer's own does.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections import deque

import playground
from playground.errors import ExploreError
from playground.explore.lane_wire import encode, receive
from playground.i18n import current_language, tr
from playground.server.children import die_with_parent, start_watchdog, stop_group
from playground.server.private import PrivateServer

PARALLEL_FROM = 500   # planned schedules from which the default splits them (a worker costs ~0.3 s to start)
CHUNK = 20            # schedules a lane is given at a time
AHEAD = 2             # chunks a worker holds (one running, one waiting: it never waits for the next)
STOP_GRACE = 3.0      # seconds a worker may take to stop its server and exit
MOST = 8              # lanes by default on a machine with more cores (a lane: ~35 MB, worker and server)


def cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # (not Linux)
        return os.cpu_count() or 1


def lanes_for(explorer, planned: int, jobs: int | None) -> int:
    """How many lanes run `planned` schedules: `jobs` (None: the default), fewer when the
    plan is small or the playground cannot be copied."""
    if jobs is None:
        jobs = min(cores(), MOST) if planned >= PARALLEL_FROM else 1
    if jobs <= 1 or not can_split(explorer):
        return 1
    return max(1, min(jobs, planned // CHUNK))


def can_split(explorer) -> bool:
    """Whether an exploration may run in lanes: on a private server (each lane starts its own) and without programs.

    Args:
        explorer: the explorer.
    """
    return isinstance(explorer.pg.server, PrivateServer) and not explorer.scenario.programs


async def run_lanes(explorer, planned: list, lanes: int, fold) -> list[int]:
    """Run every schedule of `planned` in `lanes` lanes, `fold(schedule, run)` for each
    as it ends; the schedules each lane ran (the explorer's own first; `explorer.lanes`
    meanwhile). Each worker is given its first chunks before the explorer's own lane
    starts, so it has work when it is ready; one that cannot start gives them back."""
    queue = deque(planned[i:i + CHUNK] for i in range(0, len(planned), CHUNK))
    settled = asyncio.Event()
    workers = [Worker(explorer, [queue.popleft() for _ in range(AHEAD) if queue], settled)
               for _ in range(lanes - 1)]
    counts = explorer.lanes = [0] * lanes

    async def own() -> None:
        while queue or not all(w.settled for w in workers):
            if not queue:
                settled.clear()
                await settled.wait()
                continue
            for schedule in queue.popleft():
                fold(schedule, await explorer.run_checked(schedule))
                counts[0] += 1

    tasks = [asyncio.ensure_future(own())]
    tasks += [asyncio.ensure_future(w.drive(queue, fold, counts, i + 1)) for i, w in enumerate(workers)]
    try:
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()     # the first failure, raised
    finally:
        for task in tasks:
            task.cancel()
        for worker in workers:
            await worker.close()
    return counts


class Worker:
    """One lane in a process of its own."""

    def __init__(self, explorer, first: list, settled: asyncio.Event) -> None:
        self.explorer = explorer
        self.first = first            # its first chunks (given back if it cannot start)
        self.settled = False          # ready, or given its chunks back
        self._told = settled
        self.process: subprocess.Popen | None = None
        self.watchdog: subprocess.Popen | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def drive(self, queue: deque, fold, counts: list[int], lane: int) -> None:
        """Start the worker, then keep it AHEAD chunks busy until the queue is empty. A
        worker that cannot start leaves its share to the other lanes."""
        try:
            reader = await self._start()
            reply = await receive(reader)
        except (OSError, EOFError):
            reply = ("error",)
        self.settled = True
        self._told.set()
        if reply[0] != "ready":
            queue.extendleft(reversed(self.first))
            return
        writer = self.writer
        if writer is None:  # (_start opened it, or raised)
            return
        held: deque[int] = deque()
        ran = 0
        for chunk in self.first:
            held.append(len(chunk))
            writer.write(encode(chunk))
        while True:
            while len(held) < AHEAD and queue:
                chunk = queue.popleft()
                held.append(len(chunk))
                writer.write(encode(chunk))
            if not held:
                break
            message = await self._next(reader)
            fold(message[1], message[2])
            counts[lane] += 1
            ran += 1
            if ran == held[0]:
                held.popleft()
                ran = 0
        writer.write(encode(None))
        await self._next(reader, "done")

    async def _next(self, reader, expect: str = "run"):
        try:
            message = await receive(reader)
        except EOFError:
            message = None
        if message is None or message[0] not in ("error", expect):   # (gone, or out of step: stopped)
            message = ("error", tr("{id}: a worker of the exploration stopped (exit status {status}); the "
                                   "exploration stops here", id=self.explorer.scenario.id,
                                   status=self._status()))
        if message[0] == "error":
            raise ExploreError(message[1])
        return message

    def _status(self):
        if self.process is None:
            return "?"
        try:
            return self.process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            return "?"

    async def _start(self):
        pg = self.explorer.pg
        ours, theirs = socket.socketpair()
        root = os.path.dirname(os.path.dirname(playground.__file__))   # this playground, not another install
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        try:
            # (Popen returns once the child is forked; this lane polls it and stops its group)
            self.process = subprocess.Popen(  # noqa: ASYNC220
                [sys.executable, "-m", "playground.explore.lane_worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env=env, preexec_fn=die_with_parent(os.getpid()),
                start_new_session=True)
        finally:
            theirs.close()
        self.watchdog = start_watchdog(self.process.pid)
        reader, self.writer = await asyncio.open_connection(sock=ours)
        self.writer.write(encode({"scenario": self.explorer.scenario, "part": self.explorer.part_number,
                                  "by": self.explorer.by, "clients": list(pg.sessions), "resp": pg.resp,
                                  "binary": pg.server.binary, "lang": current_language(),
                                  "script_time_limit_ms": pg.server.script_time_limit_ms}))
        return reader

    async def close(self) -> None:
        """The worker gone, and its server with it (killed after STOP_GRACE)."""
        if self.writer is not None:
            self.writer.close()
        if self.process is not None:
            try:
                await asyncio.to_thread(self.process.wait, STOP_GRACE)
            except subprocess.TimeoutExpired:
                stop_group(self.process, 0)
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
