"""The stepping gate's costs (a step of `python -m benchmarks.bench`, `--only gate`).

1. A command released at once (free-running) through the gate vs the same command on a
   direct unix-socket connection: a redis-py program in a process of its own times PING
   round trips on both, alternating, in one run; the gate runs in this process's event
   loop as it does in the app. Budget (issue 26): ≤ 0.2 ms more, median.
2. Exploring lost-update-python: 6 schedules, each starting its two redis-py programs
   afresh (program start-up included). Budget: ≤ 3 s.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

_PROGRAM = r"""
import json, sys, time, redis
gate, direct, count = redis.Redis.from_url(sys.argv[1]), redis.Redis.from_url(sys.argv[2]), int(sys.argv[3])
gate.ping(); direct.ping()
times = {"gate": [], "direct": []}
for _ in range(count):
    for name, r in (("gate", gate), ("direct", direct)):
        t0 = time.perf_counter(); r.ping(); times[name].append(time.perf_counter() - t0)
print(json.dumps(times))
"""


async def _gate(count: int) -> dict:
    from playground.engine.playground import Playground
    from playground.explore.explorer import Explorer
    from playground.gate.endpoint import Gate
    from playground.scenario.library import load_all

    async with Playground.create(server_choice="bundled") as pg:
        gate = Gate.for_playground(pg)
        gate.run_free()
        url = await gate.listen("bench")
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", _PROGRAM, url,
                                                    "unix://" + pg.address.path, str(count),
                                                    stdout=asyncio.subprocess.PIPE)
        out, _ = await proc.communicate()
        await gate.close()
        times = json.loads(out)
        scenario = next(s for s in load_all() if s.id == "lost-update-python")
        t0 = time.perf_counter()
        result = await Explorer(pg, scenario).explore()
        explore_s = time.perf_counter() - t0
    gate_ms, direct_ms = (statistics.median(times[k]) * 1000 for k in ("gate", "direct"))
    return {"gate_ms": gate_ms, "direct_ms": direct_ms, "overhead_ms": gate_ms - direct_ms,
            "explore_s": explore_s, "schedules": result.runs}


def bench_gate(runs: int, count: int = 2000) -> dict:
    results = [asyncio.run(_gate(count)) for _ in range(runs)]
    return {key: statistics.median(r[key] for r in results) for key in results[0]} | {
        "explore_max_s": max(r["explore_s"] for r in results)}


def table_rows(g: dict, row) -> list[str]:
    ok = "met" if g["overhead_ms"] <= 0.2 else "NOT met"
    explore_ok = "met" if g["explore_s"] <= 3.0 else "NOT met"
    return [row("gate: a command released at once (redis-py PING, median)", f"+{g['overhead_ms']:.3f} ms", "", "",
                f"{g['gate_ms']:.3f} ms vs {g['direct_ms']:.3f} ms direct", "≤ +0.2 ms", ok),
            row(f"gate: explore lost-update-python ({g['schedules']:.0f} schedules, programs started each)",
                f"{g['explore_s']:.2f} s", "", f"{g['explore_max_s']:.2f} s", "", "≤ 3 s", explore_ok)]
