"""Benchmarks: `python -m benchmarks.bench [--runs N] [--json FILE]`.

Each measurement runs against a baseline measured the same way in the same run, so the
ratio holds on a noisy machine. Nothing here is a pass/fail test; BENCHMARKS.md records
results and the budgets from the performance issue.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_chromium import bench_chromium, table_rows as chromium_rows
from benchmarks.bench_class import bench_class, table_rows as class_rows
from benchmarks.bench_enter import BARE_APP_CLASS, bench_enter
from benchmarks.bench_meter import count_turns, meter
from benchmarks.bench_repl import bench_repl, table_rows as repl_rows
from benchmarks.bench_explore import (bench_explore, bench_explore_3x5, bench_explore_sample,
                                      table_rows as explore_rows)
from benchmarks.bench_gate import bench_gate, table_rows as gate_rows
from benchmarks.bench_order import bench_order_toggle, table_rows as order_rows
from benchmarks.bench_programs import bench_programs, table_rows as programs_rows
from benchmarks.bench_replay import bench_replay as bench_program_replay, table_rows as replay_rows
from benchmarks.bench_serve import bench_serve, table_rows as serve_rows

BUDGETS = {
    "ready": ("ratio", 1.3),
    "enter_to_reply_p95_ms": ("value", 16.0),
    "replay": ("ratio", 1.1),
    "inspector_100k_vs_100": ("ratio", 2.0),
    "rss_idle": ("ratio", 1.5),
    "explore": ("ratio", 1.3),
    "cluster_ready_s": ("value", 3.0),
}

READY_APP = ["-m", "playground", "--server", "bundled"]  # the real CLI, told to quit when ready

BARE_APP = BARE_APP_CLASS + """
import time
class BareReady(Bare):
    def on_mount(self):
        self.call_after_refresh(self.done)
    def done(self):
        print("READY", time.monotonic(), flush=True)
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                print("RSS", int(line.split()[1]), flush=True)
        self.exit()
BareReady().run(headless=True, size=(120, 40))
"""


def _spawn_ready(code, extra: list[str] = (), keys: int = 0) -> tuple[float, int | None]:
    """Seconds from spawning python (the app, or `-c code`) to its READY line, and its RSS."""
    args = code if isinstance(code, list) else ["-c", code, *extra]
    state = _tmp_state()
    marker = os.path.join(state, "ready")
    env = {**os.environ, "REDIS_PLAYGROUND_STATE_DIR": state, "REDIS_PLAYGROUND_BENCH_READY": marker,
           "REDIS_PLAYGROUND_BENCH_KEYS": str(keys)}
    start = time.monotonic()
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                         env=env).stdout
    if os.path.exists(marker):
        out = open(marker).read()
    ready = rss = None
    for line in out.splitlines():
        if line.startswith("READY "):
            ready = float(line.split()[1]) - start
        if line.startswith("RSS "):
            rss = int(line.split()[1])
    if ready is None:
        raise RuntimeError(f"no READY line from the probe: {out[-500:]}")
    return ready, rss


def _tmp_state() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="pg-bench-state-")


def _stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def bench_ready(runs: int) -> dict:
    ours, bare = [], []
    for _ in range(runs):  # interleaved, so drift hits both alike
        ours.append(_spawn_ready(READY_APP)[0])
        bare.append(_spawn_ready(BARE_APP)[0])
    return {"ours": _stats(ours), "baseline": _stats(bare),
            "ratio": statistics.median(ours) / statistics.median(bare)}


def bench_topology(runs: int) -> dict:
    """Start → ready of the bundled server alone (the baseline), of a primary with one
    replica, and of a cluster of three primaries (every node says cluster_state:ok and
    all agree on the slots), interleaved; each stopped before the next."""
    from playground.server import PrivateServer, ServerBinary, bundled_binary_path, identify
    from playground.server.topology import Topology

    path = bundled_binary_path()
    binary = ServerBinary(path, "bundled", *identify(path))
    times = {"single": [], "replica": [], "cluster": []}
    for _ in range(runs):
        for kind in times:
            server = PrivateServer(binary) if kind == "single" else Topology(binary, kind)
            started = time.monotonic()
            server.start()
            times[kind].append(time.monotonic() - started)
            server.stop()
    single = statistics.median(times["single"])
    return {kind: _stats(values) for kind, values in times.items()} | {
        "replica_ratio": statistics.median(times["replica"]) / single,
        "cluster_ratio": statistics.median(times["cluster"]) / single}


def bench_memory(runs: int) -> dict:
    ours = [_spawn_ready(READY_APP)[1] for _ in range(runs)]
    many = [_spawn_ready(READY_APP, keys=100_000)[1] for _ in range(runs)]
    bare = [_spawn_ready(BARE_APP)[1] for _ in range(runs)]
    return {"ours_kib": _stats(ours), "ours_100k_keys_kib": _stats(many), "baseline_kib": _stats(bare),
            "ratio": statistics.median(ours) / statistics.median(bare),
            "ratio_100k": statistics.median(many) / statistics.median(bare)}


async def _replay() -> dict:
    """`check` over the library vs plain redis-py sending the same commands (two
    connections, a flush per part); scenarios that need blocking or time are left out
    of both, their deliberate waits being the point of them, and so are those whose
    clients are programs (their commands are the programs' own: the baseline has none
    to send, and a program's start-up is the gate benchmark's). One pass of each first,
    untimed: what is done once per process (imports, COMMAND INFO, connecting) is not
    what a scenario costs."""
    import redis.asyncio as aioredis

    from playground.engine.playground import Playground
    from playground.scenario.library import load_all
    from playground.scenario.runner import Runner

    scenarios = [s for s in load_all() if s.topology == "single" and not s.programs and not any(
        st.blocking or st.wait or st.sleep or st.server_stops for st in s.steps)] * 5  # enough work to time
    turns = count_turns()
    async with Playground.create(server_choice="bundled") as pg:
        path = pg.address.path
        clients = {c: aioredis.Redis(unix_socket_path=path) for c in ("A", "B")}
        flushed: dict = {}
        for s in scenarios[:len(scenarios) // 5]:  # warm up both (imports, COMMAND INFO, connections)
            await Runner(pg).run(s)
            await _send_plainly(clients, s, flushed)
        async with meter(turns) as ours:
            for s in scenarios:
                result = await Runner(pg).run(s)
                assert result.ok, s.id
        async with meter(turns) as base:
            for s in scenarios:
                await _send_plainly(clients, s, flushed)
        for c in clients.values():
            await c.aclose()
    return {"scenarios": len(scenarios) // 5, "ours_s": ours.wall, "baseline_s": base.wall,
            "ratio": ours.wall / base.wall,
            "cpu_ratio": ours.cpu / base.cpu, "turns": ours.turns, "baseline_turns": base.turns,
            "steps": sum(len(s.steps) for s in scenarios)}


async def _send_plainly(clients: dict, scenario, flushed: dict) -> None:
    """The replay's baseline for one scenario: its commands with redis-py, a flush per part
    (and of the scripts after a part that may have loaded one, as the playground's)."""
    from playground.engine.catalogue import may_load_scripts

    for part in scenario.parts:
        await clients["A"].execute_command("FLUSHALL")
        if not flushed.get("clean"):
            await clients["A"].execute_command("SCRIPT", "FLUSH")
            await clients["A"].execute_command("FUNCTION", "FLUSH")
        flushed["clean"] = not any(may_load_scripts(a) for a in [*part.setup,
                                                                 *(st.argv for st in part.steps if st.argv)])
        for argv in part.setup:
            await clients["A"].execute_command(*argv)
        for st in part.steps:
            if st.argv and not st.template:
                try:
                    await clients[st.client].execute_command(*st.argv)
                except Exception:
                    pass


def bench_replay(runs: int) -> dict:
    results = [asyncio.run(_replay()) for _ in range(runs)]
    ratios = [r["ratio"] for r in results]
    return {"scenarios": results[0]["scenarios"], "ours_s": _stats([r["ours_s"] for r in results]),
            "baseline_s": _stats([r["baseline_s"] for r in results]), "ratio": statistics.median(ratios),
            "cpu_ratio": statistics.median(r["cpu_ratio"] for r in results),
            "turns_per_step": statistics.median(r["turns"] for r in results) / results[0]["steps"],
            "baseline_turns_per_step": statistics.median(r["baseline_turns"] for r in results) / results[0]["steps"]}


async def _inspector(runs: int) -> dict:
    from playground.engine.executor import Executor
    from playground.engine.playground import Playground

    out = {}
    async with Playground.create(server_choice="bundled") as pg:
        executor = Executor(pg)
        populate = b"for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'key:' .. i, i) end return 1"
        for n in (100, 10_000, 100_000):
            for argv in ([b"FLUSHALL"], [b"EVAL", populate, b"0", str(n).encode()]):
                result = await executor.run("A", argv)
                failed = result.refused or result.lost or result.server_gone
                if failed:
                    raise RuntimeError(f"inspector bench setup: {failed}")
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                await pg.reader.snapshot()
                times.append((time.perf_counter() - t0) * 1000)
            out[n] = _stats(times)
    out["ratio_100k_vs_100"] = out[100_000]["median"] / out[100]["median"]
    return out


def bench_inspector(runs: int) -> dict:
    return asyncio.run(_inspector(runs))


def bench_redis_cli(count: int) -> dict | None:
    cli = shutil.which("redis-cli")
    if not cli:
        return None
    from playground.server import PrivateServer, choose_binary

    with PrivateServer(choose_binary("bundled")) as server:
        t0 = time.perf_counter()
        subprocess.run([cli, "-s", server.socket_path], input="PING\n" * count, capture_output=True,
                       text=True, timeout=60)
        piped = (time.perf_counter() - t0) * 1000 / count
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            subprocess.run([cli, "-s", server.socket_path, "PING"], capture_output=True, timeout=10)
            times.append((time.perf_counter() - t0) * 1000)
    return {"piped_ms_per_command": piped, "one_process_per_command_ms": statistics.median(times)}


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}", "machine": platform.machine()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each measurement")
    parser.add_argument("--commands", type=int, default=300, help="commands for the Enter-to-reply test")
    parser.add_argument("--json", metavar="FILE", help="write the results here too")
    parser.add_argument("--only", metavar="NAME", action="append",
                        help="run only this measurement (ready, enter_to_reply, replay, inspector, "
                             "memory, explore, explore_sample, explore_3x5, explore_programs, explore_replay, "
                             "redis_cli, topology, repl, gate, serve, serve_ready30, serve_class, serve_chromium, "
                             "order_toggle); may be repeated")
    args = parser.parse_args(argv)

    # An installed package has its bytecode compiled at install time. An editable checkout
    # run with PYTHONDONTWRITEBYTECODE=1 (set on our CI machines) would recompile every
    # module of ours at each start and time the compiler instead: compile them once here.
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=1)
    results = {"machine": machine()}
    steps = [("ready", lambda: bench_ready(args.runs)),
             ("enter_to_reply", lambda: bench_enter(args.commands)),
             ("replay", lambda: bench_replay(args.runs)),
             ("inspector", lambda: bench_inspector(args.runs)),
             ("memory", lambda: bench_memory(args.runs)),
             ("explore", lambda: bench_explore(args.runs)),
             ("explore_sample", lambda: bench_explore_sample(1)),
             ("explore_3x5", lambda: bench_explore_3x5(min(args.runs, 3))),
             ("explore_programs", lambda: bench_programs(min(args.runs, 3))),
             ("explore_replay", lambda: bench_program_replay(min(args.runs, 3))),
             ("redis_cli", lambda: bench_redis_cli(args.commands)),
             ("topology", lambda: bench_topology(args.runs)),
             ("repl", lambda: bench_repl(min(args.runs, 3))),
             ("gate", lambda: bench_gate(min(args.runs, 3))),
             ("serve", lambda: bench_serve(min(args.runs, 2))),
             ("serve_ready30", lambda: bench_serve(min(args.runs, 2), ready=30)),  # issue 45: the class's burst
             ("serve_class", lambda: bench_class(min(args.runs, 2))),
             ("serve_chromium", lambda: bench_chromium(min(args.runs, 2))),
             ("order_toggle", lambda: bench_order_toggle(min(args.runs, 3)))]
    if args.only:
        steps = [step for step in steps if step[0] in args.only]
    for name, run in steps:
        print(f"measuring {name}…", file=sys.stderr, flush=True)
        results[name] = run()
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str) + "\n")
    return 0


def table(r: dict) -> str:
    def row(name, median, low, high, ratio, budget, ok):
        return f"| {name} | {median} | {low} | {high} | {ratio} | {budget} | {ok} |"

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    lines = ["| measurement | median | min | max | vs baseline | budget | |", "|---|---|---|---|---|---|---|"]
    lines += _startup_rows(r, row, verdict) + _engine_rows(r, row, verdict)
    lines.extend(explore_rows(r, row, verdict))
    c = r.get("redis_cli")
    if c:
        lines.append(row("for context: redis-cli PING", f"{c['piped_ms_per_command']:.3f} ms piped", "", "",
                         f"{c['one_process_per_command_ms']:.1f} ms with one process per command", "", ""))
    sections = [("repl", repl_rows, None), ("explore_programs", programs_rows, None),
                ("explore_replay", replay_rows, None), ("gate", gate_rows, None), ("serve", serve_rows, None),
                ("serve_ready30", serve_rows, 1), ("serve_class", class_rows, None),
                ("serve_chromium", chromium_rows, None), ("order_toggle", order_rows, None)]
    for name, rows, first in sections:   # (each measurement's rows, when it was run; ready30: its first row)
        if r.get(name):
            lines.extend(rows(r[name], row)[:first])
    return "\n".join(lines)


def _startup_rows(r: dict, row, verdict) -> list[str]:
    """The rows of start-up and typing: the topologies ready, the app ready, Enter to reply."""
    lines: list[str] = []
    if "topology" in r:
        t = r["topology"]
        base = f"{t['single']['median']*1000:.0f} ms"
        for kind, label, budget in (("replica", "primary + 1 replica ready", ""),
                                    ("cluster", "cluster of 3 primaries ready", "≤ 3 s")):
            s = t[kind]
            lines.append(row(label, f"{s['median']:.2f} s", f"{s['min']:.2f} s", f"{s['max']:.2f} s",
                             f"{t[kind + '_ratio']:.1f}× (one server {base})", budget,
                             verdict(s["median"] <= 3.0) if budget else ""))
    rd = r.get("ready")
    if rd:  # (--only runs some of the measurements)
        lines.append(row("ready (process start → first frame with keys)", f"{rd['ours']['median']*1000:.0f} ms",
                         f"{rd['ours']['min']*1000:.0f} ms", f"{rd['ours']['max']*1000:.0f} ms",
                         f"{rd['ratio']:.2f}× (bare Textual app {rd['baseline']['median']*1000:.0f} ms)",
                         "≤ 1.3×", verdict(rd["ratio"] <= 1.3)))
    e = r.get("enter_to_reply")
    if e:
        lines.append(row(f"Enter → reply in pane (p50 / p95, n={e['n']})", f"{e['p50_ms']:.1f} / {e['p95_ms']:.1f} ms",
                         "", f"{e['max_ms']:.1f} ms",
                         f"raw redis-py {e['raw_redis_py_p50_ms']:.2f} / {e['raw_redis_py_p95_ms']:.2f} ms; "
                         f"bare Textual app + redis-py {e['bare_textual_p50_ms']:.1f} / "
                         f"{e['bare_textual_p95_ms']:.1f} ms",
                         "p95 ≤ 16 ms", verdict(e["p95_ms"] <= 16)))
        lines.append(row(f"for context: Enter → the frame showing the reply (p50 / p95, n={e['n'] // 2})",
                         f"{e['painted_p50_ms']:.1f} / {e['painted_p95_ms']:.1f} ms", "", "",
                         f"bare Textual app + redis-py {e['bare_painted_p50_ms']:.1f} / "
                         f"{e['bare_painted_p95_ms']:.1f} ms", "", ""))
    return lines


def _engine_rows(r: dict, row, verdict) -> list[str]:
    """The rows of the engine's work: a scenario replay, the inspector's refresh, memory."""
    lines: list[str] = []
    rp = r.get("replay")
    if rp:
        lines.append(row(f"replay of {rp['scenarios']} scenarios (check)", f"{rp['ours_s']['median']*1000:.0f} ms",
                         f"{rp['ours_s']['min']*1000:.0f} ms", f"{rp['ours_s']['max']*1000:.0f} ms",
                         f"{rp['ratio']:.2f}× (redis-py {rp['baseline_s']['median']*1000:.0f} ms)", "≤ 1.1×",
                         verdict(rp["ratio"] <= 1.1)))
        lines.append(row("for context: replay's CPU and event-loop turns per step", "", "", "",
                         f"CPU {rp['cpu_ratio']:.2f}× redis-py's; {rp['turns_per_step']:.1f} turns a step "
                         f"(redis-py {rp['baseline_turns_per_step']:.1f})", "", ""))
    ins = r.get("inspector")
    if ins:
        for n in (100, 10_000, 100_000):
            s = ins[n]
            ratio = f"{s['median'] / ins[100]['median']:.2f}× the cost at 100"
            lines.append(row(f"inspector refresh, {n:,} keys", f"{s['median']:.1f} ms", f"{s['min']:.1f} ms",
                             f"{s['max']:.1f} ms", ratio, "≤ 2× at 100k" if n == 100_000 else "",
                             verdict(ins["ratio_100k_vs_100"] <= 2) if n == 100_000 else ""))
    m = r.get("memory")
    if m:
        lines.append(row("RSS idle", f"{m['ours_kib']['median']/1024:.1f} MiB", f"{m['ours_kib']['min']/1024:.1f} MiB",
                         f"{m['ours_kib']['max']/1024:.1f} MiB",
                         f"{m['ratio']:.2f}× (bare Textual app {m['baseline_kib']['median']/1024:.1f} MiB)", "≤ 1.5×",
                         verdict(m["ratio"] <= 1.5)))
        lines.append(row("RSS with 100k keys (inspector showing them)",
                         f"{m['ours_100k_keys_kib']['median']/1024:.1f} MiB",
                         f"{m['ours_100k_keys_kib']['min']/1024:.1f} MiB",
                         f"{m['ours_100k_keys_kib']['max']/1024:.1f} MiB",
                         f"{m['ratio_100k']:.2f}× the bare app", "", ""))
    return lines


if __name__ == "__main__":
    sys.exit(main())
