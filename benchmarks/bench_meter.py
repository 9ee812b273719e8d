"""What a benchmark's round costs besides its wall time (a step of `python -m
benchmarks.bench`, left out of the installed package like the other bench modules):
this process's CPU, which another session's load on the machine inflates far less than
the wall time, and the turns of the event loop (one `select` each), which it does not
change at all: `count_turns()` once in a run, then `async with meter(turns) as m:` around
each part to be measured."""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager


def count_turns() -> list[int]:
    """A counter of the running loop's turns from now on (`[n]`)."""
    loop = asyncio.get_running_loop()
    counter = [0]
    turn = loop._run_once  # (asyncio's own step of the loop: counted around, not changed)

    def counted() -> None:
        counter[0] += 1
        turn()

    loop._run_once = counted
    return counter


class Measure:
    __slots__ = ("wall", "cpu", "turns")


@asynccontextmanager
async def meter(counter: list[int]):
    """Wall seconds, CPU seconds and loop turns of the block (`.wall`, `.cpu`, `.turns`)."""
    out = Measure()
    t0, c0, k0 = time.perf_counter(), time.process_time(), counter[0]
    yield out
    out.wall, out.cpu, out.turns = time.perf_counter() - t0, time.process_time() - c0, counter[0] - k0
