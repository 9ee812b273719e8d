"""`serve`'s costs for a class (a step of `python -m benchmarks.bench`, `--only serve`).

A real `redis-playground serve` on a free port, its tabs played by websocket clients that
speak the page's protocol (what the browser's page sends and receives, without a browser):
1. A burst: N tabs (30) opened at once; seconds until every one shows pane A's prompt
   (usable). Baseline, same run: one tab alone. Goal (issue 27): all 30 within 5 s on 2 cores.
2. A command's reply (ECHO typed into pane A, until its reply is drawn) in one tab while
   5 neighbours type commands as fast as their replies come; p95. Baseline, same run: the
   same tab with its neighbours idle. Goal: p95 ≤ 150 ms.
3. Memory per tab: the RSS of every process under serve (each tab's app and its private
   server) after the burst, divided by the tabs. Goal: ≤ 60 MB.
serve runs with its --ready (its default, or `--ready N`); the bench waits for the ready
apps to have started (idle) before the first tab and again before the burst, as a class
opens a while after its teacher started serve.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playground.server.children import proc_stat

ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
DEADLINE = 120.0


class Tab:
    """One browser tab, as serve sees it: a websocket at /ws/<token>."""

    def __init__(self, http, base: str) -> None:
        self.http, self.base = http, base
        self.text = b""
        self.changed = asyncio.Condition()
        self.ws = None

    async def open(self) -> None:
        self.ws = await self.http.ws_connect(f"{self.base}ws/{secrets.token_hex(16)}?width=120&height=40",
                                             max_msg_size=0)
        self.reader = asyncio.ensure_future(self._read())
        await self.ws.send_str(json.dumps(["resize", {"width": 120, "height": 40}]))  # as the page does

    async def _read(self) -> None:
        async for message in self.ws:
            if isinstance(message.data, bytes):
                self.text += ESCAPES.sub(b"", message.data)
                async with self.changed:
                    self.changed.notify_all()

    async def wait_for(self, needle: bytes, after: int = 0) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: needle in self.text[after:]), DEADLINE)

    async def command(self, text: str) -> float:
        """Seconds from typing `ECHO <marker>` + Enter to the reply drawn in the pane."""
        marker = secrets.token_hex(4)
        after = len(self.text)
        start = time.perf_counter()
        await self.ws.send_str(json.dumps(["stdin", f"{text} {marker}\r"]))
        await self.wait_for(f'"{marker}"'.encode(), after)
        return time.perf_counter() - start

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _process_tree(pid: int) -> list[tuple[int, list[bytes]]]:
    """Every live process under pid, with its /proc stat fields after the name
    (server/children.proc_stat: state, ppid, …)."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := proc_stat(int(entry))) is not None:
            stats[int(entry)] = fields
    children: dict[int, list[int]] = {}
    for child, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(child)
    tree, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            tree.append((child, stats[child]))
    return tree


def _tree_rss_kib(pid: int) -> tuple[int, int, int]:
    """(RSS of every process under pid, in KiB; how many processes; their PSS in KiB: the
    pages they share, as the apps forked from serve's zygote do, counted once in all)."""
    total, count, pss = 0, 0, 0
    for child, _ in _process_tree(pid):
        try:
            for line in Path(f"/proc/{child}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    count += 1
            for line in Path(f"/proc/{child}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            pass
    return total, count, pss


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds used so far by the processes under pid (the live ones)."""
    ticks = sum(int(fields[11]) + int(fields[12]) for _, fields in _process_tree(pid))  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _settle(pid: int, servers: int) -> None:
    """Until `servers` private servers run under serve and its apps are idle (their CPU use
    under 5% of a core, and 1% more per app, over half a second): the ready apps have started."""
    end = time.monotonic() + 3 * DEADLINE
    while time.monotonic() < end:
        if sum(1 for name in _names(pid) if "server" in name) >= servers:
            before = _tree_cpu_s(pid)
            time.sleep(0.5)  # a measurement window, not a wait for an event
            if _tree_cpu_s(pid) - before < 0.025 + 0.005 * servers:
                return
        else:
            time.sleep(0.1)  # polling a condition, bounded by DEADLINE
    raise RuntimeError("serve's ready apps did not settle")


def _names(pid: int) -> list[str]:
    names, children = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            names[int(entry)] = stat[stat.index("(") + 1:stat.rindex(")")]
            children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(names[child])
            todo.append(child)
    return found


def _start_serve(temp: str, ready: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "TMPDIR": temp, "REDIS_PLAYGROUND_STATE_DIR": os.path.join(temp, "state")}
    proc = subprocess.Popen([sys.executable, "-m", "playground", "--lang", "en", "serve", "--port", str(port),
                             "--server", "bundled", "--session-grace", "0"]
                            + (["--ready", str(ready)] if ready is not None else []),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end and proc.poll() is None:  # it says its URL just before it listens
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("serve did not start")


async def _open_usable(http, base: str, count: int) -> tuple[list[Tab], float]:
    tabs = [Tab(http, base) for _ in range(count)]
    start = time.perf_counter()
    await asyncio.gather(*(tab.open() for tab in tabs))
    await asyncio.gather(*(tab.wait_for(b"A>") for tab in tabs))
    await asyncio.gather(*(tab.wait_for(b"Start here") for tab in tabs))  # the server is up: commands run
    usable = time.perf_counter() - start
    for tab in tabs:  # the page has the focus (as a browser says when the tab is in front)
        await tab.ws.send_str(json.dumps(["focus"]))
    return tabs, usable


async def _busy(tab: Tab, stop: asyncio.Event) -> int:
    done = 0
    while not stop.is_set():
        await tab.command("ECHO")
        done += 1
    return done


async def _serve(pid: int, base: str, burst: int, commands: int, ready: int) -> dict:
    import aiohttp

    async with aiohttp.ClientSession() as http:
        await asyncio.to_thread(_settle, pid, ready)
        one, alone_s = await _open_usable(http, base, 1)
        for tab in one:
            await tab.close()
        await asyncio.to_thread(_settle, pid, ready)  # the tab's app gone, the pool full again
        tabs, burst_s = await _open_usable(http, base, burst)
        rss_kib, processes, pss_kib = _tree_rss_kib(pid)
        apps = sum(1 for name in _names(pid) if "server" in name)  # the tabs' and the ready ones
        for tab in tabs[6:]:
            await tab.close()
        measured, neighbours = tabs[0], tabs[1:6]
        idle = [await measured.command("ECHO") for _ in range(commands)]
        stop = asyncio.Event()
        working = [asyncio.ensure_future(_busy(tab, stop)) for tab in neighbours]
        busy = [await measured.command("ECHO") for _ in range(commands)]
        stop.set()
        neighbour_commands = sum(await asyncio.gather(*working))
        for tab in tabs[:6]:
            await tab.close()
    p95 = lambda values: sorted(values)[max(0, int(len(values) * 0.95) - 1)]  # noqa: E731
    return {"tabs": burst, "one_tab_s": alone_s, "burst_s": burst_s, "burst_ratio": burst_s / alone_s,
            "rss_per_tab_mib": rss_kib / 1024 / burst, "processes": processes,
            "rss_per_app_mib": rss_kib / 1024 / max(1, apps), "apps": apps,
            "pss_per_app_mib": pss_kib / 1024 / max(1, apps),
            "idle_p50_ms": statistics.median(idle) * 1000, "idle_p95_ms": p95(idle) * 1000,
            "busy_p50_ms": statistics.median(busy) * 1000, "busy_p95_ms": p95(busy) * 1000,
            "busy_ratio": p95(busy) / p95(idle), "neighbour_commands": neighbour_commands, "n": commands}


def bench_serve(runs: int = 1, burst: int = 30, commands: int = 60, ready: int | None = None) -> dict | None:
    """ready: serve's --ready (None: its default; cli/serve_command.py)."""
    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        return None
    results = []
    for _ in range(runs):
        temp = tempfile.mkdtemp(prefix="rp-bench-serve-")
        proc, base = _start_serve(temp, ready)
        try:
            from playground.cli import serve_command

            pool = getattr(serve_command, "READY", 0) if ready is None else ready  # 0: a serve before --ready
            results.append(asyncio.run(_serve(proc.pid, base, burst, commands, pool)) | {"ready": pool})
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            shutil.rmtree(temp, ignore_errors=True)
    return {key: statistics.median(r[key] for r in results) for key in results[0]} | {
        "burst_max_s": max(r["burst_s"] for r in results)}


def table_rows(r: dict, row) -> list[str]:
    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    return [
        row(f"serve --ready {r['ready']}: {r['tabs']} tabs opened at once, all usable", f"{r['burst_s']:.1f} s", "",
            f"{r['burst_max_s']:.1f} s", f"{r['burst_ratio']:.1f}× (one tab alone {r['one_tab_s']:.2f} s)",
            "≤ 5 s on 2 cores", verdict(r["burst_s"] <= 5)),
        row(f"serve: a command's reply with 5 busy neighbours (p50 / p95, n={r['n']})",
            f"{r['busy_p50_ms']:.0f} / {r['busy_p95_ms']:.0f} ms", "", "",
            f"{r['busy_ratio']:.1f}× (neighbours idle: {r['idle_p50_ms']:.0f} / {r['idle_p95_ms']:.0f} ms)",
            "p95 ≤ 150 ms", verdict(r["busy_p95_ms"] <= 150)),
        row(f"serve: memory per tab (apps + private servers, the ready ones too, / {r['tabs']} tabs)",
            f"{r['rss_per_tab_mib']:.1f} MiB", "", "",
            f"per app and its server: {r['rss_per_app_mib']:.1f} MiB ({r['apps']:.0f} apps; "
            f"PSS, shared pages counted once: {r.get('pss_per_app_mib', 0):.1f} MiB)",
            "≤ 60 MB per tab's app and server", verdict(r["rss_per_app_mib"] * 2**20 <= 60e6)),
    ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_serve", description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tabs", type=int, default=30)
    parser.add_argument("--ready", type=int, help="serve's --ready (default: serve's default)")
    args = parser.parse_args()
    result = bench_serve(args.runs, args.tabs, ready=args.ready)
    if result is None:
        print("serve needs textual-serve: pip install 'redis-playground[serve]'", file=sys.stderr)
        sys.exit(1)
    print("| measurement | median | min | max | vs baseline | budget | |\n|---|---|---|---|---|---|---|")
    print("\n".join(table_rows(result, lambda *cells: "| " + " | ".join(cells) + " |")))
