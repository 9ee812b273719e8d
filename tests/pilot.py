"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

import asyncio
import html
import re

import pytest
from textual.widgets import Input, RichLog, Static

import playground.tui.screens.scenario_screen as app_module
from playground.resp.cli_lines import parse_line
from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.tui.app import PlaygroundApp
from playground.tui.dialogs.info_screens import InfoScreen
from playground.tui.screens.mode_screen import ModeScreen
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.key_footer import KeyFooter
from timing_lines import TIMING_LINE  # (re-exported: the tests that use pilot's helpers)
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.narration import NarrationPanel
from playground.tui.widgets.server_bar import ServerBar


def hear_notices(monkeypatch) -> None:
    """Every app made from now on in this test keeps the texts it notifies (App.notify,
    which every notification goes through): `notices(app)`."""
    notify = PlaygroundApp.notify

    def heard(self, message, *args, **kwargs):
        self.heard_notices = [*getattr(self, "heard_notices", []), str(message)]
        return notify(self, message, *args, **kwargs)

    monkeypatch.setattr(PlaygroundApp, "notify", heard)


def notices(app) -> list[str]:
    """What `app` has notified so far (hear_notices first)."""
    return getattr(app, "heard_notices", [])


async def wait_until(pilot, predicate, timeout=30.0):  # noqa: ASYNC109 (the helpers' own deadline)
    """Pause until `predicate()` holds; AssertionError past `timeout` seconds. The bound is
    only for a test that would hang: a lesson's setup took over 10 s on a CI machine shared
    with other jobs (a passing test waits as long as its condition takes, no more)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached in {timeout:g} s: {_described(predicate)}")
        await pilot.pause(0.02)


def _described(predicate) -> str:
    """What a wait waited for: its source (a lambda: the lines it is on), else its repr."""
    import inspect

    try:
        return " ".join(inspect.getsource(predicate).split())[:400]
    except (OSError, TypeError):
        return repr(predicate)


LONG_LIVED = ("classroom", "command", "poll-state")
"""Worker groups that run as long as the app (a class's listener) or a command (a blocked
one, its state polled): workers_finished does not wait for them."""


async def workers_finished(pilot, app, *groups: str, timeout=30.0) -> None:  # noqa: ASYNC109 (wait_until's)
    """Until every worker of `groups` (none given: every one but LONG_LIVED's) has finished,
    then a pause for what they posted: all that the keys pressed before started has happened.
    A bare pause is no such barrier: it waits for the messages queued and for the CPU to be
    idle, not for a worker (a dialog it pushes, a step it runs, what it sends) to end."""
    def running() -> list:
        return [w for w in app.workers if not w.is_finished
                and (w.group in groups if groups else w.group not in LONG_LIVED)]

    await wait_until(pilot, lambda: not running(), timeout)
    await pilot.pause()


def log_text(app: PlaygroundApp, client: str) -> list[str]:
    log = app.mode_screen.query_one(f"#pane-{client} RichLog", RichLog)
    return [strip.text.rstrip() for strip in log.lines]


def reply_to(app: PlaygroundApp, client: str, line: str) -> list[str]:
    """What pane `client` shows under the last echo of `line` (`B> SET x 12`): the line's
    reply first, then whatever came after it; [] until the line is echoed. Wait on
    `reply_to(...)[:1] == ["OK"]`, not on the log's last line: redis-cli's "(0.61s)" follows
    a reply that took half a second to be read, and a loaded machine that holds the app's
    event loop that long makes one of any command (4 test workers on 2 cores can)."""
    lines = log_text(app, client)
    echo = f"{client}> {line}"
    for at in range(len(lines) - 1, -1, -1):
        if lines[at] == echo:
            return lines[at + 1:]
    return []




def untimed(lines: list[str]) -> list[str]:
    """`lines` (a pane's log, or a line's `reply_to`) without redis-cli's timing line at
    their end: a test that is not about timing asserts that nothing but the reply follows
    a line's echo with `untimed(reply_to(...)) == ["OK"]`, which a loaded machine's
    "(0.61s)" under the reply does not break."""
    return lines[:-1] if lines and TIMING_LINE.fullmatch(lines[-1]) else lines


def state_text(app: PlaygroundApp, client: str) -> str:
    return str(app.mode_screen.query_one(f"#pane-{client} #state", Static).render())


async def type_command(pilot, app, client: str, line: str) -> None:
    pane = app.mode_screen.query_one(f"#pane-{client}", ClientPane)
    pane.query_one(Input).focus()
    await pilot.pause()
    before, done = len(log_text(app, client)), app.commands_done
    pane.query_one(Input).value = line  # pressing each key costs ~80 ms in Pilot
    await pilot.press("enter")
    await wait_until(pilot, lambda: not pane.running and len(log_text(app, client)) > before + 1)
    if _sent_to_server(line):
        await wait_until(pilot, lambda: app.commands_done > done)  # the state lines are up to date
        await app.executor.attributed()  # and who wrote what (it runs after the line)
        await pilot.pause()


def _sent_to_server(line: str) -> bool:
    try:
        cmd = parse_line(line)
    except Exception:
        return False
    return cmd is not None and cmd.argv[0].lower() not in (b"help", b"?", b"clear")


async def shutdown_then_f5(pilot, app, client: str) -> str:
    """SHUTDOWN NOSAVE from `client`, then F5 once the app says the server stopped; the
    banner it showed meanwhile."""
    await type_command(pilot, app, client, "SHUTDOWN NOSAVE")
    bar = app.mode_screen.query_one(ServerBar)
    await wait_until(pilot, lambda: bar.stopped)
    banner = str(app.mode_screen.query_one("#banner", Static).render())
    await pilot.press("f5")
    await wait_until(pilot, lambda: not bar.stopped)
    return banner


async def started(pilot, app):
    """The server runs and free play's screen shows it (the app pushes that screen when mounted)."""
    def up() -> bool:
        if not app.screen_stack:  # (the app not mounted yet: no screen at all)
            return False
        screen = app.screen_stack[-1]
        return (isinstance(screen, ModeScreen) and screen.is_running and screen.is_mounted
                and screen.query_one(ServerBar).where != "" and app.inspector is not None)

    await wait_until(pilot, up)


async def gate_opened(pilot, app) -> str:
    """Ctrl+G in free play: the gate's URL shown (its info screen), then Esc, and that
    screen gone; the gate's URL."""
    await pilot.press("ctrl+g")
    await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen))
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, InfoScreen))
    return app.own_programs.url


def scenario(sid):
    return load_scenario(bundled_dir() / f"{sid}.toml")


def panel_text(app) -> str:
    return app.mode_screen.query_one(NarrationPanel).body.plain


async def opened(pilot, app):
    await started(pilot, app)
    await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app))
    app.scenario_run.speed_index = 0  # no typing animation in tests


async def press_and_wait(pilot, app, *keys):
    await pilot.press(*keys)
    await wait_until(pilot, lambda: not app.mode_screen.busy)
    await pilot.pause()


@pytest.fixture
def quick_autoplay(monkeypatch):
    """Autoplay without its pause between steps (a module that wants it: usefixtures)."""
    monkeypatch.setattr(app_module, "AUTOPLAY_PAUSE", 0.05)


def screen(app) -> str:
    """Every character the app draws now (its screenshot's text)."""
    return html.unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


def cells(table, key: str) -> tuple[str, str]:
    """A key's ("changed by", WATCH badge) cells."""
    for i in range(table.row_count):
        row = table.row(i)
        if str(row[0]) == key:
            return str(row[4]), str(row[5])
    return "?", "?"


def _footer_descriptions(app) -> list[str]:
    from textual.widgets._footer import FooterKey

    return [key.description for key in app.mode_screen.query_one(KeyFooter).query(FooterKey)]



async def settle(pilot, app):
    # Wait for refreshes in flight (not for a command that is meant to stay blocked),
    # then redraw the state lines and the keys once more from the engine's final state.
    pending = [w for w in app.workers if w.group not in ("command", "poll-state") and not w.is_finished]
    await asyncio.gather(*(w.wait() for w in pending), return_exceptions=True)
    await pilot.pause()
    app.refresh_states()
    inspector = app.mode_screen.query_one(KeyInspector)
    inspector.refresh_keys()
    await wait_until(pilot, lambda: not inspector._loading)
    bar = app.mode_screen.query_one(ServerBar)
    bar.where = "/tmp/redis-playground-…/redis.sock"
    bar.show_stats = False  # memory and connections vary from run to run
    for pane in app.mode_screen.query(ClientPane):
        pane._pending_since = None       # no elapsed-time counter in a picture
        pane.watch_state(pane.state)
        pane.query_one("CommandInput").cursor_blink = False
    app.mode_screen.query_one(KeyInspector)._render_table()
    await pilot.pause()


def run(*steps):
    async def run_before(pilot):
        app = pilot.app
        await started(pilot, app)
        for client, line in steps:
            await type_command(pilot, app, client, line)
        await settle(pilot, app)
    return run_before
