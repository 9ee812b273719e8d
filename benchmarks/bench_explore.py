"""The explorer's benchmarks (a step of `python -m benchmarks.bench`; needs redis-py for the
baseline, and is left out of the installed package like the other bench modules).

- `explore`: every schedule of lost-update through the explorer (no reduction and no
  witness runs: the same schedules as the baseline) vs a lean redis-py loop running the
  same commands on a fresh state (FLUSHALL, SCRIPT and FUNCTION FLUSH when a line may
  load a script, as the explorer does; the setup, the steps in the
  schedule's order with `${n+1}` filled in on the client side, then reading the key);
  the witnesses' cost (each outcome's simplest schedule run again) as context.
- `explore_sample`: three clients of five steps on one key (756,756 schedules) sampled
  to --limit 10,000: the whole exploration's time as the explorer runs it by default
  (in lanes, one per core: explore/lanes.py; goal ≤ 15 s), the cost per schedule of one
  lane vs the lean loop on the first 1,000 of the same sample, and the memory the
  exploration holds at its peak (tracemalloc) for 1,000 and 3,000 schedules: flat when
  the ratio stays near 1.
- `explore_3x5`: that cost per schedule alone (issue 37's budget: ≤ 1.3× the lean loop),
  without the 10,000-schedule exploration and the memory measurement.

Ours and the baseline alternate round by round, so a busy machine slows both alike;
both the ratio of medians and the ratio of minimums (the least disturbed round) are
reported. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import tracemalloc

from benchmarks.bench_meter import count_turns, meter

SAMPLE_STEPS = [("A", "INCR k"), ("B", "GET k"), ("C", "INCRBY k 2")]
"""Each client's one command, five times: three clients on one key."""


def _stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


async def _lean(clients: dict, part, plans, read) -> None:
    """The baseline: redis-py running each schedule's commands on a fresh state."""
    from playground.scenario.runner import fill_template, plain_value

    from playground.engine.catalogue import may_load_scripts

    programs = {c: [s for s in part.steps if s.client == c] for c in clients}
    first = next(iter(clients.values()))
    scripts = any(may_load_scripts(argv) for argv in [*part.setup, *(s.argv for s in part.steps if s.argv)])
    for plan in plans:
        await first.execute_command("FLUSHALL")
        if scripts:   # (as the explorer: only a program that may load one empties the script cache)
            await first.execute_command("SCRIPT", "FLUSH")
            await first.execute_command("FUNCTION", "FLUSH")
        for argv in part.setup:
            await first.execute_command(*argv)
        saved = {c: {} for c in clients}
        position = dict.fromkeys(clients, 0)
        for c in plan:
            step = programs[c][position[c]]
            position[c] += 1
            argv = [fill_template(a, saved[c]) for a in step.argv] if step.template else step.argv
            reply = await clients[c].execute_command(*argv)
            if step.save:
                saved[c][step.save] = plain_value(reply) if not isinstance(reply, bytes) else reply.decode()
        await first.execute_command(*read)


async def _connect(pg, names) -> dict:
    import redis.asyncio as aioredis

    clients = {c: aioredis.Redis(unix_socket_path=pg.address.path) for c in names}
    for c in clients.values():
        await c.ping()
    return clients


async def _explore(rounds: int) -> dict:
    from playground.engine.playground import Playground
    from playground.explore.explorer import Explorer
    from playground.explore.schedules import all_schedules
    from playground.scenario.library import load_all

    scenario = next(s for s in load_all() if s.id == "lost-update")
    part = scenario.parts[0]
    lengths = {c: sum(1 for s in part.steps if s.client == c) for c in scenario.clients}
    plans = list(all_schedules(lengths))
    async with Playground.create(server_choice="bundled") as pg:
        clients = await _connect(pg, scenario.clients)
        await Explorer(pg, scenario, reduce=False, witnesses=False).explore()  # warm up (COMMAND INFO)
        ours, base, reduced, witnessed, cpu, turns = [], [], [], [], [], []
        counter = count_turns()
        for _ in range(rounds):
            async with meter(counter) as m:
                result = await Explorer(pg, scenario, reduce=False, witnesses=False).explore()
            async with meter(counter) as b:
                await _lean(clients, part, plans, ("GET", "counter"))
            ours.append(m.wall)
            base.append(b.wall)
            cpu.append(m.cpu / b.cpu)
            turns.append(m.turns / b.turns)
            t0 = time.perf_counter()
            small = await Explorer(pg, scenario, witnesses=False).explore()
            reduced.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await Explorer(pg, scenario).explore()
            witnessed.append(time.perf_counter() - t0)
        for c in clients.values():
            await c.aclose()
    return {"schedules": result.runs, "reduced_runs": small.runs, "ours_s": statistics.median(ours),
            "baseline_s": statistics.median(base), "ours_reduced_s": statistics.median(reduced),
            "with_witnesses_s": statistics.median(witnessed),
            "ratio": statistics.median(ours) / statistics.median(base),
            "ratio_of_min": min(ours) / min(base), "cpu_ratio": statistics.median(cpu),
            "turns_ratio": statistics.median(turns)}


def bench_explore(runs: int) -> dict:
    results = [asyncio.run(_explore(20)) for _ in range(runs)]
    return {"schedules": results[0]["schedules"], "reduced_runs": results[0]["reduced_runs"],
            "ours_s": _stats([r["ours_s"] for r in results]),
            "ours_reduced_s": _stats([r["ours_reduced_s"] for r in results]),
            "with_witnesses_s": _stats([r["with_witnesses_s"] for r in results]),
            "baseline_s": _stats([r["baseline_s"] for r in results]),
            "ratio": statistics.median(r["ratio"] for r in results),
            "ratio_of_min": statistics.median(r["ratio_of_min"] for r in results),
            "cpu_ratio": statistics.median(r["cpu_ratio"] for r in results),
            "turns_ratio": statistics.median(r["turns_ratio"] for r in results)}


async def _sample(limit: int, compare: int, memory: tuple[int, ...], whole: bool = True) -> dict:
    from playground.engine.playground import Playground
    from playground.explore.explorer import Explorer
    from playground.explore.free_play import typed_scenario
    from playground.explore.schedules import sample_schedules

    names = ("A", "B", "C")
    scenario = typed_scenario([step for step in SAMPLE_STEPS for _ in range(5)], clients=names)
    part = scenario.parts[0]
    lengths = dict.fromkeys(names, 5)
    out: dict = {}
    async with Playground.create(server_choice="bundled", clients=names) as pg:
        clients = await _connect(pg, names)
        await Explorer(pg, scenario, limit=10, witnesses=False).explore()   # warm up
        ours, base = [], []
        plans = sample_schedules(lengths, compare, 0)
        for _ in range(3):
            t0 = time.perf_counter()
            small = await Explorer(pg, scenario, limit=compare, witnesses=False, jobs=1).explore()
            ours.append((time.perf_counter() - t0) / small.runs)
            t0 = time.perf_counter()
            await _lean(clients, part, plans, ("GET", "k"))
            base.append((time.perf_counter() - t0) / len(plans))
        out.update(per_schedule_ms=statistics.median(ours) * 1000, baseline_ms=statistics.median(base) * 1000,
                   ratio=statistics.median(ours) / statistics.median(base), ratio_of_min=min(ours) / min(base))
        if not whole:   # (--only explore_3x5: the cost per schedule alone)
            for c in clients.values():
                await c.aclose()
            return out
        t0 = time.perf_counter()
        explorer = Explorer(pg, scenario, limit=limit)      # the default: lanes (explore/lanes.py)
        result = await explorer.explore()
        out.update(total=result.total, runs=result.runs, sampled=result.sampled, outcomes=len(result.classes),
                   seconds=time.perf_counter() - t0, lanes=explorer.lanes)
        peaks = {}
        for n in memory:
            tracemalloc.start()
            await Explorer(pg, scenario, limit=n, witnesses=False).explore()
            peaks[n] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        out.update(peak_kib={n: p / 1024 for n, p in peaks.items()},
                   memory_ratio=peaks[memory[-1]] / peaks[memory[0]])
        for c in clients.values():
            await c.aclose()
    return out


def bench_explore_sample(runs: int, limit: int = 10_000) -> dict:
    results = [asyncio.run(_sample(limit, 1000, (1000, 3000))) for _ in range(max(1, runs))]
    keep = results[0]
    return {"total": keep["total"], "runs": keep["runs"], "limit": limit, "outcomes": keep["outcomes"],
            "lanes": keep["lanes"],
            "seconds": _stats([r["seconds"] for r in results]),
            "per_schedule_ms": statistics.median(r["per_schedule_ms"] for r in results),
            "baseline_ms": statistics.median(r["baseline_ms"] for r in results),
            "ratio": statistics.median(r["ratio"] for r in results),
            "ratio_of_min": statistics.median(r["ratio_of_min"] for r in results),
            "peak_kib": keep["peak_kib"], "memory_ratio": statistics.median(r["memory_ratio"] for r in results)}


def bench_explore_3x5(runs: int, compare: int = 1000) -> dict:
    """Issue 37's budget alone: the cost per schedule of 3 clients × 5 steps on one key, one
    lane, against the lean redis-py loop on the same sampled schedules (no 10,000 sample)."""
    results = [asyncio.run(_sample(compare, compare, (), whole=False)) for _ in range(max(1, runs))]
    return {key: statistics.median(r[key] for r in results) for key in results[0]} | {
        "runs": len(results), "compare": compare, "ratios": [r["ratio"] for r in results]}


def table_rows(r: dict, row, verdict) -> list[str]:
    lines = []
    x = r.get("explore")
    if x:
        lines.append(row(f"explore: every schedule of lost-update ({x['schedules']} schedules, no witnesses)",
                         f"{x['ours_s']['median']*1000:.1f} ms", f"{x['ours_s']['min']*1000:.1f} ms",
                         f"{x['ours_s']['max']*1000:.1f} ms",
                         f"{x['ratio']:.2f}× (redis-py, same schedules: {x['baseline_s']['median']*1000:.1f} ms; "
                         f"ratio of minimums {x['ratio_of_min']:.2f}×)", "≤ 1.3×", verdict(x["ratio"] <= 1.3)))
        lines.append(row("for context: that exploration's CPU and event-loop turns", "", "", "",
                         f"CPU {x['cpu_ratio']:.2f}×, turns {x['turns_ratio']:.2f}× redis-py's", "", ""))
        lines.append(row(f"for context: explore lost-update reduced ({x['reduced_runs']} runs cover all)",
                         f"{x['ours_reduced_s']['median']*1000:.1f} ms", "", "",
                         f"with each outcome's witness run again: {x['with_witnesses_s']['median']*1000:.1f} ms",
                         "", ""))
    t = r.get("explore_3x5")
    if t:
        spread = ", ".join(f"{x:.2f}×" for x in t["ratios"])
        lines.append(row(f"explore: cost per schedule, 3 clients × 5 steps on one key (one lane, {t['compare']:,} "
                         "sampled schedules)", f"{t['per_schedule_ms']:.2f} ms", "", "",
                         f"{t['ratio']:.2f}× (lean redis-py loop, same schedules: {t['baseline_ms']:.2f} ms; "
                         f"ratio of minimums {t['ratio_of_min']:.2f}×; runs: {spread})", "≤ 1.3×",
                         verdict(t["ratio"] <= 1.3)))
    s = r.get("explore_sample")
    if s:
        lines.append(row(f"explore: 3 clients × 5 steps on one key ({s['total']:,} schedules), "
                         f"sampled to {s['runs']:,}", f"{s['seconds']['median']:.1f} s", f"{s['seconds']['min']:.1f} s",
                         f"{s['seconds']['max']:.1f} s", f"{s['outcomes']} outcome(s); "
                         f"{len(s.get('lanes', [1]))} lane(s): {'+'.join(map(str, s.get('lanes', [])))}", "≤ 15 s",
                         verdict(s["seconds"]["median"] <= 15)))
        lines.append(row("explore: cost per schedule, 3 × 5 on one key", f"{s['per_schedule_ms']:.2f} ms", "", "",
                         f"{s['ratio']:.2f}× (redis-py, same 1,000 schedules: {s['baseline_ms']:.2f} ms; "
                         f"ratio of minimums {s['ratio_of_min']:.2f}×)", "≤ 1.3×", verdict(s["ratio"] <= 1.3)))
        peaks = s["peak_kib"]
        lo, hi = min(peaks, key=int), max(peaks, key=int)
        lines.append(row(f"explore: memory held at the peak, {int(hi):,} vs {int(lo):,} schedules",
                         f"{peaks[hi]:.0f} KiB", "", "", f"{s['memory_ratio']:.2f}× ({peaks[lo]:.0f} KiB)",
                         "flat", verdict(s["memory_ratio"] <= 1.5)))
    return lines
