"""The Enter-to-reply measurement of `python -m benchmarks.bench` (`--only enter_to_reply`):
GET/SET lines typed into the app's pane A, each from Enter to its reply in the pane (and to
the first frame drawn after it), against the same typing in a bare Textual app sending with
redis-py, and redis-py's own round trips, on the same server in the same run."""

from __future__ import annotations

import asyncio
import time

# The baseline app: the same kinds of widgets as ours, nothing else. One definition, used
# in a subprocess (start-up, memory) and in-process (Enter → reply).
BARE_APP_CLASS = """
from textual.app import App
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Input, RichLog, Static
class Bare(App):
    def compose(self):
        yield Static("server bar")
        with Horizontal():
            for name in "AB":
                with Vertical():
                    yield Static(name)
                    yield RichLog(id=f"log{name}")
                    yield Input(id=f"in{name}")
        table = DataTable()
        table.add_columns("key", "type", "TTL", "value")
        yield table
        yield Footer()
"""


async def _type_commands(app, field, log, count: int, busy=lambda: False, painted: bool = False) -> list[float]:
    """Milliseconds from Enter to the reply in `log` (or, `painted`, to the end of the
    first frame drawn after it), for `count` GET/SET commands typed one after another."""
    times = []
    for i in range(count):
        field.value = f"SET key:{i % 50} value-{i}" if i % 2 else f"GET key:{i % 50}"
        before = len(log.lines)
        t0 = time.perf_counter()
        await field.action_submit()  # what the Enter key runs (Pilot's own key path is slow)
        while len(log.lines) < before + 2 or busy():  # noqa: ASYNC110 (a state nothing signals)
            await asyncio.sleep(0)
        if painted:
            drawn = asyncio.get_running_loop().create_future()
            app.call_after_refresh(lambda drawn=drawn: drawn.done() or drawn.set_result(None))
            await drawn
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def _p(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(len(values) * q))]


async def _enter_to_reply(count: int) -> dict:
    from playground.tui.app import make_app
    from playground.tui.widgets.command_input import CommandInput

    app = make_app("bundled")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.inspector is None:
            await pilot.pause(0.01)
        pane = app.mode_screen.pane("A")  # (the mode's screen, not Textual's default one under it)
        field = pane.query_one(CommandInput)
        field.focus()
        await pilot.pause()
        busy = lambda: pane._busy  # noqa: E731
        latencies = await _type_commands(app, field, pane.log_widget, count, busy)
        painted = await _type_commands(app, field, pane.log_widget, count // 2, busy, painted=True)
        raw = await _raw_round_trips(app.playground.address.path, count)
        bare, bare_painted = await _bare_enter(app.playground.address.path, count)
    return {"p50_ms": _p(latencies, 0.5), "p95_ms": _p(latencies, 0.95), "max_ms": latencies[-1],
            "painted_p50_ms": _p(painted, 0.5), "painted_p95_ms": _p(painted, 0.95),
            "raw_redis_py_p50_ms": _p(raw, 0.5), "raw_redis_py_p95_ms": _p(raw, 0.95),
            "bare_textual_p50_ms": _p(bare, 0.5), "bare_textual_p95_ms": _p(bare, 0.95),
            "bare_painted_p50_ms": _p(bare_painted, 0.5), "bare_painted_p95_ms": _p(bare_painted, 0.95),
            "n": count}


async def _bare_enter(socket_path: str, count: int) -> tuple[list[float], list[float]]:
    """The same Enter → reply path in a bare Textual app (Input, RichLog, DataTable) that
    sends the command with plain redis-py: what Textual itself costs per command."""
    import redis.asyncio as aioredis
    from textual.widgets import Input, RichLog

    client = aioredis.Redis(unix_socket_path=socket_path)
    namespace: dict = {}
    exec(BARE_APP_CLASS, namespace)

    class Bare(namespace["Bare"]):
        async def on_input_submitted(self, event):
            log = self.query_one("#logA", RichLog)
            log.write(f"A> {event.value}")
            log.write(repr(await client.execute_command(*event.value.split())))
            event.input.value = ""

    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        field = app.query_one("#inA", Input)
        log = app.query_one("#logA", RichLog)
        field.focus()
        await pilot.pause()
        times = await _type_commands(app, field, log, count)
        painted = await _type_commands(app, field, log, count // 2, painted=True)
    await client.aclose()
    return times, painted


async def _raw_round_trips(socket_path: str, count: int) -> list[float]:
    import redis.asyncio as aioredis

    client = aioredis.Redis(unix_socket_path=socket_path)
    times = []
    for i in range(count):
        t0 = time.perf_counter()
        if i % 2:
            await client.set(f"key:{i % 50}", f"value-{i}")
        else:
            await client.get(f"key:{i % 50}")
        times.append((time.perf_counter() - t0) * 1000)
    await client.aclose()
    return sorted(times)


def bench_enter(count: int) -> dict:
    return asyncio.run(_enter_to_reply(count))
