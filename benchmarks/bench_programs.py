"""Exploring a lesson whose clients are programs (a step of `python -m benchmarks.bench`,
`--only explore_programs`; issue 34's budget).

Two redis-py programs that each read the counter and write it back plus one, twice (GET,
SET, GET, SET: 70 schedules), in a lesson with no steps: the explorer runs them by the
commands they send (explore/program_moves.py), each replayed from what it saw where its
tree holds its reply history (explore/program_tree.py, on server connections kept from
schedule to schedule: gate/upstream_pool.py), else run for real by the warm interpreter's
child that ran it before (gate/warm.py, warm_python._run_again). The baseline, in the same run: the same four
commands typed as a steps lesson (`GET counter` saved, `SET counter ${n+1}`), explored the
same way (every schedule, no reduction, no witnesses) on the same playground. Both must
find the same outcomes (6, 7 and 8). Per schedule: the exploration's wall time over its
schedules (the program lesson's includes its warm interpreter's start and its first
order run twice, the repeatability check: what exploring it costs). Budget: ≤ 2×.

For context: the lean redis-py loop of bench_explore on the same schedules, this process's
CPU, and the programs' CPU (the warm interpreter and every program it forked, from /proc).
The two alternate round by round. And the floor under the budget: an empty Python program
run again by the same warm interpreter's child, from the request to its exit told, times the real
program processes the exploration ran (those its trees could not replay: one per reply
history a program had not been seen to get), against the whole typed exploration.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

PROGRAM = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
for _ in range(2):
    value = int(r.get("counter"))
    r.set("counter", value + 1)
'''
HEAD = 'title = "bench"\nlesson = "bench"\nsetup = ["SET counter 4"]\n'
TYPED_STEPS = "".join(f'[[steps]]\nclient = "{c}"\ncommand = "GET counter"\nsave = "n"\n'
                      f'[[steps]]\nclient = "{c}"\ncommand = "SET counter ${{n+1}}"\n'
                      for c in "ABAB")  # (each client's own order: GET, SET, GET, SET)


def _lessons(folder: Path):
    from playground.scenario.loader import load_scenario

    (folder / "rmw.py").write_text(PROGRAM)
    (folder / "programs.toml").write_text(HEAD + '[programs]\nA = ["python", "rmw.py"]\nB = ["python", "rmw.py"]\n')
    (folder / "typed.toml").write_text(HEAD + TYPED_STEPS)
    return load_scenario(folder / "programs.toml"), load_scenario(folder / "typed.toml")


def _cpu_of(pid: int, reaped: bool = True) -> float:
    """CPU seconds of process `pid` (and of its reaped children), from /proc; 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15 if reaped else 13]) / os.sysconf("SC_CLK_TCK")   # (utime stime
    # cutime cstime)


def _children_cpu(pg=None) -> float:
    """CPU seconds of this process's reaped children, and of the playground's warm
    interpreter (gate/warm.py) with the programs it forked: reaped, and still running (its
    kept children, which run a program again: warm_python._run_again), from /proc."""
    t = os.times()
    spent = t.children_user + t.children_system
    from playground.scenario.programs.lesson import _WARM

    warm = _WARM.get(pg) if pg is not None else None
    if warm is not None and warm.process is not None:
        pid = warm.process.pid
        spent += _cpu_of(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
                spent += sum(_cpu_of(int(child), reaped=False) for child in f.read().split())
        except OSError:
            pass
    return spent


async def _timed(pg, scenario) -> tuple[float, float, float, object, int]:
    """(wall, this process's CPU, reaped children's CPU, the exploration, the real program
    processes it ran)."""
    from playground.explore.explorer import Explorer

    c0, k0, t0 = time.process_time(), _children_cpu(pg), time.perf_counter()
    explorer = Explorer(pg, scenario, reduce=False, witnesses=False, jobs=1)
    result = await explorer.explore()
    return time.perf_counter() - t0, time.process_time() - c0, _children_cpu(pg) - k0, result, explorer.trees.starts


async def _program_floor(pg, folder: Path, runs: int = 20) -> float:
    """Seconds from asking the playground's warm interpreter (gate/warm.py) for a Python
    program that does nothing to its exit told, run again by the child that ran it before
    (`reuse`, as the explorer's are): what any run of a real program costs at least here,
    whatever the explorer does around it."""
    import sys

    from playground.scenario.programs.lesson import _WARM

    warm = _WARM.get(pg)
    if warm is None:
        return float("nan")
    empty = folder / "empty.py"
    empty.write_text("pass\n")
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        process = await warm.spawn([sys.executable, str(empty)], folder, dict(os.environ), reuse="floor")
        await process.wait()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls)


def _outcomes(result) -> list[str]:
    return sorted(c.snapshot.describe("counter") for c in result.classes)


async def _programs(rounds: int) -> dict:
    from benchmarks.bench_explore import _connect, _lean
    from playground.engine.playground import Playground
    from playground.explore.schedules import all_schedules

    with tempfile.TemporaryDirectory(prefix="pg-bench-programs-") as folder:
        programs, typed = _lessons(Path(folder))
        plans = list(all_schedules({"A": 4, "B": 4}))
        rows: dict[str, list] = {"programs": [], "typed": [], "lean": []}
        async with Playground.create(server_choice="bundled") as pg:
            clients = await _connect(pg, ("A", "B"))
            for scenario in (typed, programs):  # warm up: COMMAND INFO, the first fork's pages
                await _timed(pg, scenario)
            for _ in range(rounds):
                for name, scenario in (("typed", typed), ("programs", programs)):
                    wall, cpu, children, result, starts = await _timed(pg, scenario)
                    rows[name].append((wall / result.runs, cpu / result.runs, children / result.runs, result,
                                       starts, wall))
                t0 = time.perf_counter()
                await _lean(clients, typed.parts[0], plans, ("GET", "counter"))
                rows["lean"].append((time.perf_counter() - t0) / len(plans))
            for c in clients.values():
                await c.aclose()
            floor = await _program_floor(pg, Path(folder))
    seen = {name: _outcomes(rows[name][0][3]) for name in ("programs", "typed")}
    if seen["programs"] != seen["typed"]:
        raise RuntimeError(f"the two lessons found different outcomes: {seen}")

    def median(name: str, i: int) -> float:
        return statistics.median(r[i] for r in rows[name])

    return {"schedules": rows["programs"][0][3].runs, "typed_schedules": rows["typed"][0][3].runs,
            "outcomes": seen["programs"],
            "programs_ms": median("programs", 0) * 1000, "typed_ms": median("typed", 0) * 1000,
            "lean_ms": statistics.median(rows["lean"]) * 1000,
            "programs_cpu_ms": median("programs", 1) * 1000, "typed_cpu_ms": median("typed", 1) * 1000,
            "programs_children_cpu_ms": median("programs", 2) * 1000,
            "ratio": median("programs", 0) / median("typed", 0),
            "starts": float(statistics.median(r[4] for r in rows["programs"])), "floor_ms": floor * 1000,
            "floor_ratio": statistics.median(r[4] for r in rows["programs"]) * floor / median("typed", 5),
            "ratio_of_min": min(r[0] for r in rows["programs"]) / min(r[0] for r in rows["typed"])}


def _on_one_cpu(rounds: int) -> dict | None:
    """_programs with this process and all it starts (the server, the warm interpreter,
    the programs) on one CPU: no wakeup crosses CPUs, so a round trip to the server costs
    less, and typed steps (a round trip each) gain more than the programs' own work. The
    scheduler places them either way by itself: the two figures bound the ratio. None
    where affinity cannot be set or there is one CPU."""
    getter, setter = getattr(os, "sched_getaffinity", None), getattr(os, "sched_setaffinity", None)
    if getter is None or setter is None or len(getter(0)) < 2:
        return None
    cpus = getter(0)
    setter(0, {min(cpus)})
    try:
        return asyncio.run(_programs(rounds))
    finally:
        setter(0, cpus)


def bench_programs(runs: int, rounds: int = 3) -> dict:
    results = [asyncio.run(_programs(rounds)) for _ in range(runs)]
    keep = results[0]
    out = {key: statistics.median(r[key] for r in results) for key in keep if isinstance(keep[key], float)}
    one_cpu = _on_one_cpu(rounds)
    return out | {"schedules": keep["schedules"], "typed_schedules": keep["typed_schedules"],
                  "outcomes": keep["outcomes"], "runs": runs, "one_cpu": one_cpu,
                  "ratio_max": max(r["ratio"] for r in results), "ratio_min": min(r["ratio"] for r in results)}


def table_rows(p: dict, row) -> list[str]:
    ok = "met" if p["ratio"] <= 2 else "NOT met"
    return [row(f"explore a program lesson, no steps (2 redis-py programs × GET SET GET SET: {p['schedules']} "
                "schedules), per schedule", f"{p['programs_ms']:.1f} ms", "", "",
                f"{p['ratio']:.1f}× (the same commands typed as steps: {p['typed_ms']:.2f} ms a schedule; "
                f"ratio of minimums {p['ratio_of_min']:.1f}×; {p['ratio_min']:.1f}–{p['ratio_max']:.1f}× over "
                f"{p['runs']} run(s))", "≤ 2×", ok),
            row("for context: CPU per schedule of that exploration", f"{p['programs_cpu_ms']:.1f} ms here + "
                f"{p['programs_children_cpu_ms']:.1f} ms in the programs", "", "",
                f"typed: {p['typed_cpu_ms']:.2f} ms; lean redis-py loop: {p['lean_ms']:.2f} ms a schedule (wall)",
                "", ""),
            row("for context: the least a real program run costs here (an empty Python program run again by "
                "the warm interpreter's child that ran it, asked to exit told)", f"{p['floor_ms']:.1f} ms", "", "",
                f"the exploration ran {p['starts']:.0f} real program processes (the rest replayed): at that least, "
                f"{p['floor_ratio']:.1f}× the whole typed exploration", "", "")] + _one_cpu_rows(p, row)


def _one_cpu_rows(p: dict, row) -> list[str]:
    one = p.get("one_cpu")
    if not one:
        return []
    return [row("for context: the same, every process on one CPU (no wakeup across CPUs)",
                f"{one['programs_ms']:.1f} ms", "", "",
                f"{one['ratio']:.1f}× (typed steps: {one['typed_ms']:.2f} ms a schedule)", "", "")]


if __name__ == "__main__":
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_programs", description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = bench_programs(args.runs, args.rounds)
    print("| measurement | median | min | max | vs baseline | budget | |\n|---|---|---|---|---|---|---|")
    print("\n".join(table_rows(result, lambda *cells: "| " + " | ".join(cells) + " |")))
    sys.exit(0)
