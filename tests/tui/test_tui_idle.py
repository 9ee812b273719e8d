"""An idle app draws nothing: a class's idle tabs, and the apps `serve` keeps ready, share
the cores with the learners typing. The cursor blinks for CommandInput.BLINK_FOR seconds
after a key or the focus, then stays lit (GTK's cursor-blink-timeout); the key inspector's
reads that find the keys as they were draw nothing."""

import pytest
from textual import events
from textual.widgets import Static

from playground import served

from collections import Counter

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.lanes_view import LanesView
from playground.tui.widgets.command_input import CommandInput
from playground.tui.widgets.key_inspector import KeyInspector
from playground.tui.widgets.key_table import KeyTable
from pilot import TIMING_LINE, log_text, started, type_command, untimed, wait_until
from servers import shared


@pytest.mark.slow
async def test_the_cursor_stops_blinking_and_a_key_starts_it_again(server_binary, monkeypatch):
    monkeypatch.setattr(CommandInput, "BLINK_FOR", 0.3)
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        field = app.mode_screen.query_one("#pane-A CommandInput", CommandInput)
        lit: list[bool] = []   # each change of its blinking, as it happens (not a look after a pause: on a
        app.watch(field, "cursor_blink", lambda blinks: lit.append(blinks), init=False)   # busy machine the
        # 0.3 s could be past)
        field.focus()
        await wait_until(pilot, lambda: not field.cursor_blink)   # steady now, and lit (Input's own rule)
        lit.clear()
        await pilot.press("x")
        assert field.value == "x"
        await wait_until(pilot, lambda: lit[:1] == [True] and not field.cursor_blink)   # blinked again, then stopped
        app.mode_screen.query_one("#pane-B CommandInput", CommandInput).focus()
        await pilot.pause()
        lit.clear()
        field.focus()                                             # the focus, like a key, starts it again
        await wait_until(pilot, lambda: lit[:1] == [True])


async def test_reads_that_find_nothing_new_draw_nothing(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k v")
        inspector = app.mode_screen.query_one(KeyInspector)
        await wait_until(pilot, lambda: inspector.snapshot is not None and inspector.snapshot.keys)
        drawn = []
        for widget in (inspector, inspector.query_one(KeyTable), inspector.query_one("#summary", Static)):
            original = widget.refresh
            widget.refresh = lambda *a, _w=widget, _o=original, **k: (drawn.append(_w), _o(*a, **k))[1]
        reads = []
        watch = inspector.watch_snapshot
        inspector.watch_snapshot = lambda old, new: (reads.append(new), watch(old, new))[1]
        for _ in range(3):
            inspector.refresh_keys()
            before = len(reads)
            await wait_until(pilot, lambda before=before: len(reads) > before)
        assert drawn == []
        await type_command(pilot, app, "B", "SET k w")              # a change is drawn
        await wait_until(pilot, lambda: drawn != [])


async def test_a_line_and_its_reply_are_drawn_in_one_frame(server_binary, monkeypatch):
    """After Enter the screen waits (ONE_FRAME_FOR; here long, so that a reply 0.2 s away
    still comes within it) for the reply: the log is never drawn with the line alone."""
    from playground.tui.widgets import client_pane
    from playground.tui.widgets.pane_log import PaneLog
    from pilot import log_text

    monkeypatch.setattr(client_pane, "ONE_FRAME_FOR", 30.0, raising=False)
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        log = app.mode_screen.query_one("#pane-A PaneLog", PaneLog)
        drawn: list[list[str]] = []
        original = log.render_lines

        def render_lines(crop):
            drawn.append([strip.text.rstrip() for strip in log.lines])
            return original(crop)

        log.render_lines = render_lines
        await type_command(pilot, app, "A", "BLPOP nothing 0.2")
        await pilot.pause()
        shown = log_text(app, "A")   # (a loaded machine: past 0.5 s redis-cli adds the time it took, "(0.69s)")
        at = shown.index("A> BLPOP nothing 0.2")
        assert shown[at + 1] == "(nil)" and all(TIMING_LINE.fullmatch(line) for line in shown[at + 2:])
        assert not any(lines and lines[-1] == "A> BLPOP nothing 0.2" for lines in drawn)
        assert any("(nil)" in lines[-2:] for lines in drawn)


async def test_served_the_drivers_blur_at_start_restyles_nothing(server_binary, monkeypatch):
    """Under serve Textual's web driver says "blur" as each app starts; the page says
    "focus" when the learner is in the tab. Each change restyles the whole screen: at the
    start of a class's thirty tabs, twice per tab for nothing. The driver's blur is left
    out; the page's own blur, after its focus, is taken."""
    monkeypatch.setenv(served.ENV, "1")
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        screen, restyled = app.mode_screen, []
        original = screen.update_node_styles
        screen.update_node_styles = lambda *a, **k: (restyled.append(1), original(*a, **k))[1]
        app.post_message(events.AppBlur())                # the driver's, at start
        await pilot.pause()
        assert app.app_focus and restyled == []
        app.post_message(events.AppFocus())               # the page's first: nothing changes
        await pilot.pause()
        assert app.app_focus and restyled == []
        app.post_message(events.AppBlur())                # the page's own blur is taken
        await pilot.pause()
        assert not app.app_focus and restyled


@pytest.mark.slow
async def test_an_idle_app_ticks_only_for_what_moves(server_binary, monkeypatch):
    """A pane's state line, the lanes and the TTL column each tick four times a second,
    but only while there is something to follow: a pending line, the lanes on screen, a
    key shown with a TTL. An idle tab (thirty in a class, and serve's ready apps) then
    wakes for the keys and the server's figures alone, once a second each."""
    ticks, reads = Counter(), []
    for name, cls, method in (("pane", ClientPane, "_tick"), ("lanes", LanesView, "_tick"),
                              ("ttl", KeyInspector, "_tick_ttls")):
        original = getattr(cls, method)
        monkeypatch.setattr(cls, method, lambda self, _o=original, _n=name: (ticks.update([_n]), _o(self))[1])
    refresh = KeyInspector.refresh_keys
    monkeypatch.setattr(KeyInspector, "refresh_keys", lambda self: (reads.append(1), refresh(self))[1])
    app = make_app(server=shared(server_binary))

    async def a_while(pilot) -> Counter:  # two of the inspector's 1-second reads: a second at least (4 ticks)
        seen = len(reads)
        await wait_until(pilot, lambda: len(reads) >= seen + 2, timeout=30.0)
        return Counter(ticks)

    async with app.run_test(size=(150, 40)) as pilot:
        await started(pilot, app)
        assert await a_while(pilot) == Counter()                            # idle: none of the three

        await type_command(pilot, app, "A", "SET k v EX 100")              # a TTL on screen: its column ticks
        await wait_until(pilot, lambda: ticks["ttl"] > 0)
        await type_command(pilot, app, "A", "PERSIST k")
        now = await a_while(pilot)
        assert await a_while(pilot) == now                                  # and stops with it

        await pilot.press("ctrl+t")                                         # the lanes shown: they tick
        await wait_until(pilot, lambda: ticks["lanes"] > 0)
        await pilot.press("ctrl+t")
        now = await a_while(pilot)
        assert await a_while(pilot) == now

        pane = app.mode_screen.query_one("#pane-A", ClientPane)
        pane.query_one(CommandInput).value = "BLPOP q 0"                    # a pending line: its state line ticks
        await pilot.press("enter")
        await wait_until(pilot, lambda: ticks["pane"] > 0)
        await type_command(pilot, app, "B", "LPUSH q x")
        # (redis-cli's "(N.NNs)" follows when B's line came over half a second later: a busy machine)
        await wait_until(pilot, lambda: not pane.running and untimed(log_text(app, "A"))[-2:] == ['1) "q"', '2) "x"'])
        now = await a_while(pilot)
        assert await a_while(pilot) == now
