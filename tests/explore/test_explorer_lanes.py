"""The explorer's schedules in lanes (explore/lanes.py): worker processes, each with a
private server of its own, on the real servers. The report is the one a single lane
gives; every worker and its server end with the explorer; a server that stops in any
lane stops the exploration with one line."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from playground.explore import lanes
from playground.explore.explorer import ExploreError, Explorer
from playground.explore.free_play import typed_scenario
from playground.explore.report import render_json, render_text
from playground.server.private import TEMP_PREFIX

# three clients of three steps on two keys: 1,680 schedules, many outcomes
STEPS = [("A", "INCR k"), ("A", "APPEND log a"), ("A", "INCR k"),
         ("B", "SET k 10"), ("B", "APPEND log b"), ("B", "GET k"),
         ("C", "INCRBY k 5"), ("C", "APPEND log c"), ("C", "GET k")]
CLIENTS = ("A", "B", "C")
# each lane's server has its configuration put back after every schedule, as the explorer's own
CONFIG = [("A", "CONFIG SET hz 20"), ("A", "INCR k"), ("A", "CONFIG SET hz 30"), ("A", "INCR k"),
          ("B", "CONFIG GET hz"), ("B", "SET k 5"), ("B", "CONFIG GET hz"), ("B", "GET k")]


def case(steps=STEPS):
    return typed_scenario(steps, clients=CLIENTS)


def cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def parent_of(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


def workers_of(pid: int) -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and parent_of(p) == pid
            and "playground.explore.lane_worker" in cmdline(p)]


def servers_of(worker: int) -> list[int]:
    """The private server a worker started (its temp dir carries the worker's pid)."""
    mark = f"{TEMP_PREFIX}{worker}-"
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and mark in cmdline(p) and "server" in cmdline(p)]


def gone(pids, deadline: float = 10.0) -> bool:
    end = time.monotonic() + deadline
    while any(running(p) for p in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


async def pg_with(server_binary, clients=CLIENTS):
    from playground.engine.playground import Playground
    from playground.server.private import PrivateServer

    return await Playground(server=PrivateServer(server_binary), clients=clients).start()


@pytest.mark.asyncio
@pytest.mark.parametrize("options", [dict(limit=240, seed=7), dict(limit=240, seed=7, by="replies"),
                                     dict(reduce=False, steps=STEPS[:7]),
                                     dict(reduce=False, by="replies", steps=CONFIG)],
                         ids=["sample", "by-replies", "exhaustive", "config"])
async def test_lanes_give_the_report_one_lane_gives(server_binary, options):
    options = dict(options)
    steps = options.pop("steps", STEPS)       # (exhaustive: 140 schedules)
    pg = await pg_with(server_binary)
    try:
        one = Explorer(pg, case(steps), jobs=1, **options)
        alone = await one.explore()
        two = Explorer(pg, case(steps), jobs=2, **options)
        split = await two.explore()
    finally:
        await pg.close()
    assert len(one.lanes) == 1 and len(two.lanes) == 2
    assert two.lanes[1] >= lanes.AHEAD * lanes.CHUNK     # the worker ran its share
    assert sum(two.lanes) == sum(one.lanes)
    assert len(alone.classes) > 3
    assert render_text(split) == render_text(alone)
    assert render_json(split) == render_json(alone)
    if options.get("seed"):
        assert alone.sampled and "Seen fewer than" in render_text(alone)


def test_the_default_splits_only_a_plan_worth_it_on_a_server_it_can_copy():
    from playground.server.private import PrivateServer

    private = PrivateServer.__new__(PrivateServer)
    ours = SimpleNamespace(pg=SimpleNamespace(server=private), scenario=SimpleNamespace(programs={}))
    cores = lanes.cores()
    assert lanes.lanes_for(ours, lanes.PARALLEL_FROM - 1, None) == 1
    assert lanes.lanes_for(ours, lanes.PARALLEL_FROM, None) == min(cores, lanes.MOST)
    assert lanes.lanes_for(ours, 252, 2) == 2 and lanes.lanes_for(ours, 252, 1) == 1
    assert lanes.lanes_for(ours, 30, 4) == 1                              # not a chunk for each
    url = SimpleNamespace(pg=SimpleNamespace(server=None), scenario=ours.scenario)
    topology = SimpleNamespace(pg=SimpleNamespace(server=object()), scenario=ours.scenario)
    programs = SimpleNamespace(pg=ours.pg, scenario=SimpleNamespace(programs={"A": object()}))
    assert [lanes.lanes_for(x, 10_000, 2) for x in (url, topology, programs)] == [1, 1, 1]


@pytest.mark.asyncio
async def test_a_small_exploration_stays_in_one_lane(pg):
    explorer = Explorer(pg, typed_scenario([("A", "INCR n")] * 3 + [("B", "GET n")] * 3), reduce=False)
    result = await explorer.explore()
    assert explorer.lanes == [20] and result.runs == 20


class Stopping(Explorer):
    """Once the worker has run schedules, `stop(worker)` (from the explorer's own lane);
    the worker processes seen meanwhile are kept."""

    def __init__(self, *args, stop, **kwargs):
        super().__init__(*args, **kwargs)
        self.stop, self.seen, self.servers, self.done = stop, [], [], False

    async def run_checked(self, schedule, keep=None):
        if not self.done and len(self.lanes) > 1:
            # the explorer's own lane waits for the worker's first run (its server is up
            # then): however fast the schedules, this lane is not done before
            deadline = asyncio.get_running_loop().time() + 60
            while self.lanes[1] == 0 and asyncio.get_running_loop().time() < deadline:  # noqa: ASYNC110 (a state nothing signals)
                await asyncio.sleep(0.01)
            self.seen = workers_of(os.getpid())
            self.servers = [s for w in self.seen for s in servers_of(w)]
            self.done = True
            for worker in self.seen:
                self.stop(worker)
        return await super().run_checked(schedule, keep)


def kill_server_of(worker: int) -> None:
    for server in servers_of(worker):
        os.kill(server, signal.SIGKILL)


@pytest.mark.asyncio
@pytest.mark.parametrize("stop, says", [(kill_server_of, "the server stopped during schedule"),
                                        (lambda w: os.kill(w, signal.SIGKILL), "a worker of the exploration stopped")],
                         ids=["its-server", "the-worker"])
async def test_a_worker_that_stops_stops_the_exploration_and_nothing_outlives_it(server_binary, stop, says):
    pg = await pg_with(server_binary)
    try:
        explorer = Stopping(pg, case(), stop=stop, reduce=False, limit=2000, jobs=2)
        with pytest.raises(ExploreError, match=says) as caught:
            await explorer.explore()
    finally:
        await pg.close()
    assert "\n" not in str(caught.value)
    assert explorer.seen and explorer.servers
    assert gone(explorer.seen + explorer.servers)


@pytest.mark.asyncio
async def test_every_worker_and_its_server_end_with_the_exploration(server_binary):
    pg = await pg_with(server_binary)
    try:
        explorer = Stopping(pg, case(), stop=lambda w: None, limit=300, jobs=2)
        await explorer.explore()
    finally:
        await pg.close()
    assert explorer.seen and explorer.servers
    assert not [w for w in explorer.seen if running(w)]      # gone when explore() returns
    assert gone(explorer.servers)


SCENARIO = """
title = "three counters"
lesson = "x"
clients = ["A", "B", "C"]
""" + "".join(f'[[steps]]\nclient = "{c}"\ncommand = "{cmd}"\n' for c, cmd in STEPS)


def test_the_command_line_stops_on_a_dead_server_with_one_line_and_leaves_no_worker(server_binary, tmp_path):
    """The explorer's own server killed while a worker runs: exit 1, one line, and the
    worker and its server gone with it."""
    path = tmp_path / "three.toml"
    path.write_text(SCENARIO)
    proc = subprocess.Popen([sys.executable, "-m", "playground", "explore", str(path), "--exhaustive",
                             "--jobs", "2", "--server", server_binary.path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        workers, own = [], []
        while not (workers and own and all(servers_of(w) for w in workers)):
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()
            workers = workers_of(proc.pid)
            own = [p for p in servers_of(proc.pid) if parent_of(str(p)) == proc.pid]
            time.sleep(0.02)
        worker_servers = [s for w in workers for s in servers_of(w)]
        os.kill(own[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, (out, err)
    assert err.count("\n") == 1 and "the server stopped during schedule" in err, err
    assert gone(workers + worker_servers)


def test_a_killed_explore_takes_its_workers_and_their_servers_with_it(server_binary, tmp_path):
    """SIGKILL: no cleanup of ours runs; the kernel (PR_SET_PDEATHSIG) and the watchdogs end
    every worker and every server."""
    path = tmp_path / "three.toml"
    path.write_text(SCENARIO)
    proc = subprocess.Popen([sys.executable, "-m", "playground", "explore", str(path), "--exhaustive",
                             "--jobs", "2", "--server", server_binary.path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 60
        workers: list[int] = []
        while not (workers and all(servers_of(w) for w in workers)):
            assert proc.poll() is None and time.monotonic() < end
            workers = workers_of(proc.pid)
            time.sleep(0.02)
        every = workers + [s for w in workers for s in servers_of(w)] + servers_of(proc.pid)
        proc.kill()
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert gone(every)


@pytest.mark.asyncio
async def test_a_worker_that_said_its_error_stays_until_the_explorer_goes(tmp_path):
    """CI, once: a lane's server stopped, the worker said so and ended at once; the explorer's
    next chunk then met a closed socket, that write's error failed its reader, and the error
    it had not read yet was lost ("a worker of the exploration stopped (exit status 0)"). A
    worker now reads (and drops) what the explorer sends after its last word until the
    explorer goes: more than a socket's buffers is taken whole (the old worker, gone,
    reset the connection)."""
    from playground.explore.lane_wire import encode, receive

    ours, theirs = socket.socketpair()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "playground.explore.lane_worker", str(theirs.fileno()), pass_fds=(theirs.fileno(),),
        stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    theirs.close()
    try:
        reader, writer = await asyncio.open_connection(sock=ours)
        writer.write(encode({"scenario": case(), "part": 1, "by": "state", "clients": list(CLIENTS), "resp": 2,
                             "binary": str(tmp_path / "no-such-server"), "lang": "en",
                             "script_time_limit_ms": 5000}))
        said = await asyncio.wait_for(receive(reader), 60)
        assert said[0] == "error"
        writer.write(encode([("A",) * 3] * 200_000))   # (a chunk of some MB: no socket buffer holds it)
        await asyncio.wait_for(writer.drain(), 60)
        writer.close()
        assert await asyncio.wait_for(process.wait(), 60) == 0   # gone once the explorer went
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
