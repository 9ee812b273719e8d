"""`repl` against piped `redis-cli --no-raw`: `python -m benchmarks.bench_repl [--runs N]`
(also a step of `python -m benchmarks.bench`).

Both get the same input on stdin and write to a pipe that is read to the end; each run
starts from an empty server of its own (started before the clock, with the bundled
Valkey), so program start is included and server start is not. `repl` runs with `--url`
on that server (`--allow-flush`: it is a throwaway). Peak memory is the child's own
(VmHWM, polled). Outputs are compared without "(N.NNs)" lines (see README). Budgets from
the headless-parity issue: 10,000 mixed lines and
MULTI + 200000 INCR + EXEC ≤ 2× redis-cli; GET of a 50 MB value ≤ 2× redis-cli's time and
≤ 3× the value's size in peak memory. From issue 46: `repl` starts (and stops, empty input)
in ≤ 0.15 s, and 5,000 lines of one client run within 2× redis-cli, start-up included.

The package's bytecode is compiled first, as an installed package has it (and an editable
one after its first run: this machine sets PYTHONDONTWRITEBYTECODE, so nothing would
write it, and every start would compile every module). For context the start is also
measured without it, and against a bare `python -c "import asyncio"` (the floor: the
repl's whole engine is asyncio). Every ratio is of medians measured in the same run,
redis-cli and repl alternating.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time

BIG = 50_000_000


def corpus(n: int = 10_000, seed: int = 7) -> str:
    """Mixed lines: strings, counters, lists, hashes, sets, sorted sets, scripts, every
    tenth line for client B."""
    rnd = random.Random(seed)
    lines = []
    for i in range(n):
        k = rnd.randrange(50)
        line = rnd.choice([
            f"SET k{k} v{i}", f"GET k{k}", f"INCR n{k}", f"LPUSH l{k} {i}", f"LRANGE l{k} 0 3",
            f"HSET h{k} f{i % 7} {i}", f"HGETALL h{k}", f"SADD s{k} m{i % 9}", f"SMEMBERS s{k}",
            f"ZADD z{k} {i} m{i % 5}", f"ZRANGE z{k} 0 -1 WITHSCORES", f"DEL k{k}", f"EXISTS k{k}",
            "PING", f"TYPE h{k}", 'EVAL "return 1" 0', f"TTL k{k}", f"APPEND a{k} x", f"STRLEN a{k}"])
        lines.append(("B> " if rnd.random() < 0.1 else "") + line)
    return "\n".join(lines) + "\n"


def _run(args: list[str], data: bytes) -> tuple[float, float, bytes]:
    """(seconds, peak RSS in MiB, a digest of stdout without "(N.NNs)" lines) of one
    process fed `data`.

    The peak is the child's own VmHWM, polled from /proc while it runs: wait4's
    ru_maxrss would also count this process's memory (a vforked child inherits its
    parent's high-water mark until exec)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env)
    peak = [0]
    watcher = threading.Thread(target=_watch_hwm, args=(proc, peak), daemon=True)
    watcher.start()
    proc.stdin.write(data)
    proc.stdin.close()
    digest, rest = hashlib.sha256(), b""
    while chunk := proc.stdout.read(1 << 20):
        chunk = rest + chunk
        cut = chunk.rfind(b"\n") + 1
        digest.update(_without_timing(chunk[:cut]))  # whole lines only
        rest = chunk[cut:]
    digest.update(rest)
    proc.wait()
    elapsed = time.perf_counter() - start
    watcher.join()
    return elapsed, peak[0] / 1024, digest.digest()


def _watch_hwm(proc: subprocess.Popen, peak: list[int]) -> None:
    path = f"/proc/{proc.pid}/status"
    while proc.poll() is None:
        try:
            for line in open(path):
                if line.startswith("VmHWM:"):
                    peak[0] = max(peak[0], int(line.split()[1]))
        except (OSError, ValueError):
            break
        time.sleep(0.005)


def _pair(cli: str, ours_input: bytes, cli_input: bytes, prepare: bytes = b"") -> tuple[tuple, tuple]:
    from playground.server import PrivateServer, choose_binary

    results = []
    for who in ("redis-cli", "repl"):
        with PrivateServer(choose_binary("bundled")) as server:
            if prepare:
                subprocess.run([cli, "-s", server.socket_path], input=prepare, capture_output=True, timeout=120)
            if who == "redis-cli":
                results.append(_run([cli, "-s", server.socket_path, "--no-raw"], cli_input))
            else:
                results.append(_run([sys.executable, "-m", "playground", "repl", "--url",
                                     f"unix://{server.socket_path}", "--allow-flush"], ours_input))
    return results[0], results[1]


def _series(cli: str, runs: int, ours_input: bytes, cli_input: bytes, prepare: bytes = b"") -> dict:
    cli_t, our_t, cli_m, our_m, same = [], [], [], [], True
    for _ in range(runs):
        (ct, cm, cout), (ot, om, oout) = _pair(cli, ours_input, cli_input, prepare)
        cli_t.append(ct), our_t.append(ot), cli_m.append(cm), our_m.append(om)
        same = same and cout == oout
    return {"redis_cli_s": statistics.median(cli_t), "ours_s": statistics.median(our_t),
            "ours_min_s": min(our_t), "ours_max_s": max(our_t),
            "ratio": statistics.median(our_t) / statistics.median(cli_t),
            "redis_cli_rss_mib": statistics.median(cli_m), "ours_rss_mib": statistics.median(our_m),
            "same_output": same}


def _without_timing(out: bytes) -> bytes:
    """redis-cli's "(N.NNs)" lines count its own rendering too (see README): compare without."""
    import re

    return re.sub(rb"(?m)^\(\d+\.\d\ds\)\n", b"", out)


def _package_bytecode(write: bool) -> None:
    """Compile the package's modules (an installed package's state), or remove what was compiled."""
    import compileall
    from pathlib import Path

    import playground

    root = Path(playground.__file__).resolve().parent
    if write:
        compileall.compile_dir(str(root), quiet=1)
    else:
        for cache in root.rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)


def _starts(runs: int) -> dict:
    """Start and stop with empty input: repl --url, with and without the package's bytecode,
    and the floor (python with asyncio's imports), alternating; medians in seconds."""
    from playground.server import PrivateServer, choose_binary

    repl_times, cold_times, floor_times = [], [], []
    with PrivateServer(choose_binary("bundled")) as server:
        args = [sys.executable, "-m", "playground", "repl", "--url", f"unix://{server.socket_path}", "--allow-flush"]
        for _ in range(max(runs, 5)):
            floor_times.append(_run([sys.executable, "-c", "import asyncio"], b"")[0])
            repl_times.append(_run(args, b"")[0])
        _package_bytecode(False)
        env_wrote = os.environ.get("PYTHONDONTWRITEBYTECODE")
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        try:
            for _ in range(max(runs, 5)):
                cold_times.append(_run(args, b"")[0])
        finally:
            if env_wrote is None:
                del os.environ["PYTHONDONTWRITEBYTECODE"]
            else:
                os.environ["PYTHONDONTWRITEBYTECODE"] = env_wrote
            _package_bytecode(True)
    return {"start_s": statistics.median(repl_times), "start_without_bytecode_s": statistics.median(cold_times),
            "floor_s": statistics.median(floor_times)}


def bench_repl(runs: int = 3) -> dict | None:
    cli = shutil.which("redis-cli")
    if not cli:
        return None
    _package_bytecode(True)
    text = corpus()
    results = {"mixed": _series(cli, runs, text.encode(), text.replace("B> ", "").encode())}
    one = corpus(5000).replace("B> ", "").encode()  # 5,000 lines of one client: start-up weighs most here
    results["five_thousand"] = _series(cli, max(runs, 5), one, one)
    multi = b"MULTI\n200000 INCR n\nEXEC\n"
    results["multi"] = _series(cli, runs, multi, multi)
    # a value of lines ("x\n"): escaped, it is twice its size (the \\\\ is \\ for redis-cli, \ for Lua)
    make = b"EVAL \"redis.call('SET','big',string.rep('x\\\\n',%d)) return 1\" 0\n" % (BIG // 2)
    results["big"] = _series(cli, max(1, min(runs, 2)), b"GET big\n", b"GET big\n", prepare=make)
    results.update(_starts(runs))
    return results


def table_rows(r: dict, row) -> list[str]:
    """Rows for bench.table (`row` formats one)."""
    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    mixed, multi, big, five = r["mixed"], r["multi"], r["big"], r["five_thousand"]
    return [
        row("repl start and stop, empty input (issue 46)", f"{r['start_s']*1000:.0f} ms", "", "",
            f"python + asyncio's imports alone {r['floor_s']*1000:.0f} ms; without the package's bytecode "
            f"{r['start_without_bytecode_s']*1000:.0f} ms", "≤ 150 ms", verdict(r["start_s"] <= 0.15)),
        row("repl, 5,000 lines of one client, program start included (issue 46)",
            f"{five['ours_s']*1000:.0f} ms", f"{five['ours_min_s']*1000:.0f} ms", f"{five['ours_max_s']*1000:.0f} ms",
            f"{five['ratio']:.2f}× (piped redis-cli {five['redis_cli_s']*1000:.0f} ms; same output: "
            f"{'yes' if five['same_output'] else 'NO'})", "≤ 2×", verdict(five["ratio"] <= 2)),
        row("repl, 10,000 mixed lines (A and B), program start included",
            f"{mixed['ours_s']*1000:.0f} ms", f"{mixed['ours_min_s']*1000:.0f} ms",
            f"{mixed['ours_max_s']*1000:.0f} ms",
            f"{mixed['ratio']:.2f}× (piped redis-cli {mixed['redis_cli_s']*1000:.0f} ms; same output: "
            f"{'yes' if mixed['same_output'] else 'NO'})", "≤ 2×", verdict(mixed["ratio"] <= 2)),
        row("repl, MULTI + 200000 INCR + EXEC", f"{multi['ours_s']*1000:.0f} ms", f"{multi['ours_min_s']*1000:.0f} ms",
            f"{multi['ours_max_s']*1000:.0f} ms",
            f"{multi['ratio']:.2f}× (redis-cli {multi['redis_cli_s']*1000:.0f} ms)",
            "≤ 2×", verdict(multi["ratio"] <= 2)),
        row("repl, GET of a 50 MB value: time", f"{big['ours_s']*1000:.0f} ms", f"{big['ours_min_s']*1000:.0f} ms",
            f"{big['ours_max_s']*1000:.0f} ms", f"{big['ratio']:.2f}× (redis-cli {big['redis_cli_s']*1000:.0f} ms)",
            "≤ 2×", verdict(big["ratio"] <= 2)),
        row("repl, GET of a 50 MB value: peak RSS", f"{big['ours_rss_mib']:.0f} MiB", "", "",
            f"{big['ours_rss_mib'] * 2**20 / BIG:.2f}× the value (redis-cli {big['redis_cli_rss_mib']:.0f} MiB)",
            "≤ 3× the value", verdict(big["ours_rss_mib"] * 2**20 <= 3 * BIG)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_repl", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    r = bench_repl(args.runs)
    if r is None:
        print("redis-cli not found", file=sys.stderr)
        return 1
    print("| measurement | median | min | max | vs baseline | budget | |\n|---|---|---|---|---|---|---|")
    print("\n".join(table_rows(r, lambda *cells: "| " + " | ".join(cells) + " |")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
