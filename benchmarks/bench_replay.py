"""Programs explored as they are replayed from what they saw (issue 42's budgets; a step of
`python -m benchmarks.bench`, `--only explore_replay`).

- Two redis-py programs that each read the counter and write it back plus one, twice
  (GET, SET, GET, SET), explored whole (the reduction on, no witnesses, one lane), against
  the same four commands typed as steps, explored the same way on the same playground,
  alternating round by round: the ratio of the whole explorations' wall times (medians).
  Budget ≤ 2×. The playground keeps its warm interpreter (gate/warm.py) from its first
  exploration on: that first one's time is given too.
- The bundled WATCH retry lesson (scenarios/watch-retry-python.toml: two redis-py programs
  with pipe.watch … execute and a retry on WatchError), explored as `explore` does (the
  reduction, the witnesses): wall time from the explorer's start to its report. Budget ≤ 10 s.
- Two programs on disjoint keys (GET, SET × 3 each: 924 schedules): schedules run. Budget: 1.

Each with the schedules run, the schedules they stand for and the program processes started.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_programs import _lessons

DISJOINT = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
for _ in range(3):
    value = int(r.get("{key}"))
    r.set("{key}", value + 1)
'''


async def _explore(pg, scenario, **kwargs):
    from playground.explore.explorer import Explorer

    explorer = Explorer(pg, scenario, jobs=1, **kwargs)
    t0 = time.perf_counter()
    result = await explorer.explore()
    return time.perf_counter() - t0, result, explorer.trees.starts


async def _replay(rounds: int) -> dict:
    from playground.engine.playground import Playground
    from playground.scenario.library import bundled_dir
    from playground.scenario.loader import load_scenario

    with tempfile.TemporaryDirectory(prefix="pg-bench-replay-") as folder:
        programs, typed = _lessons(Path(folder))
        for name in "ab":
            (Path(folder) / f"{name}.py").write_text(DISJOINT.format(key=name))
        (Path(folder) / "disjoint.toml").write_text(
            'title = "bench"\nlesson = "bench"\nsetup = ["SET a 1", "SET b 1"]\n'
            '[programs]\nA = ["python", "a.py"]\nB = ["python", "b.py"]\n')
        disjoint = load_scenario(Path(folder) / "disjoint.toml")
        watch = load_scenario(bundled_dir() / "watch-retry-python.toml")
        rows: dict[str, list] = {"programs": [], "typed": [], "watch": []}
        async with Playground.create(server_choice="bundled") as pg:
            await _explore(pg, typed, witnesses=False)   # warm up: COMMAND INFO
            for _ in range(rounds):
                for name, scenario in (("typed", typed), ("programs", programs)):
                    rows[name].append(await _explore(pg, scenario, witnesses=False))
                rows["watch"].append(await _explore(pg, watch))
            _, apart, apart_starts = await _explore(pg, disjoint, witnesses=False)

    def wall(name: str) -> float:
        return statistics.median(r[0] for r in rows[name])
    first = {name: rows[name][0] for name in rows}
    return {"programs_s": wall("programs"), "typed_s": wall("typed"), "ratio": wall("programs") / wall("typed"),
            "programs_first_s": rows["programs"][0][0],
            "programs_runs": first["programs"][1].runs, "programs_covered": first["programs"][1].covered,
            "programs_starts": first["programs"][2], "typed_runs": first["typed"][1].runs,
            "watch_s": wall("watch"), "watch_max_s": max(r[0] for r in rows["watch"]),
            "watch_runs": first["watch"][1].runs, "watch_covered": first["watch"][1].covered,
            "watch_starts": first["watch"][2], "disjoint_runs": apart.runs, "disjoint_covered": apart.covered,
            "disjoint_starts": apart_starts, "rounds": rounds}


def bench_replay(rounds: int = 3) -> dict:
    return asyncio.run(_replay(rounds))


def table_rows(p: dict, row) -> list[str]:
    return [
        row(f"explore 2 redis-py programs × GET SET GET SET, whole ({p['programs_runs']} schedules run for "
            f"{p['programs_covered']}; {p['programs_starts']} program starts)", f"{p['programs_s']:.2f} s", "", "",
            f"{p['ratio']:.1f}× the same commands typed as steps ({p['typed_s']:.2f} s, {p['typed_runs']} run); "
            f"the playground's first: {p['programs_first_s']:.2f} s (its warm interpreter's start)",
            "≤ 2×", "met" if p["ratio"] <= 2 else "NOT met"),
        row(f"explore watch-retry-python, whole, witnesses included ({p['watch_runs']} schedules run for "
            f"{p['watch_covered']}; {p['watch_starts']} program starts)", f"{p['watch_s']:.2f} s", "",
            f"{p['watch_max_s']:.2f} s", "", "≤ 10 s", "met" if p["watch_max_s"] <= 10 else "NOT met"),
        row(f"explore 2 programs on disjoint keys ({p['disjoint_covered']} schedules; "
            f"{p['disjoint_starts']} program starts)", f"{p['disjoint_runs']} run", "", "", "", "1",
            "met" if p["disjoint_runs"] == 1 else "NOT met"),
    ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_replay", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = bench_replay(args.rounds)
    print("| measurement | median | min | max | vs baseline | budget | |\n|---|---|---|---|---|---|---|")
    print("\n".join(table_rows(result, lambda *cells: "| " + " | ".join(cells) + " |")))
