"""A pane's work on Ctrl+T is bounded by what its log can hold, not by the history
(tui/widgets/client_pane.py): a line typed or pasted of megabytes is cut as a long reply
is, and a redraw writes only the newest entries that fill the log's max_lines."""

from __future__ import annotations

import pytest
from rich.text import Text
from pilot import log_text, started, untimed, wait_until

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import SHOW_LIMIT
from playground.tui.widgets.pane_log import KEPT_LINES

pytestmark = [pytest.mark.server, pytest.mark.tui]


async def test_a_typed_line_of_200_kb_is_cut_in_the_pane_as_a_reply_is(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        pane = app.mode_screen.pane("A")
        pane.send("SET big " + "x" * 200_000)
        # (the line's echo is cut, and wrapped: not one to find; its reply is the log's last line, the time aside)
        await wait_until(pilot, lambda: not pane.running and untimed(log_text(app, "A"))[-1:] == ["OK"], timeout=120)
        shown = log_text(app, "A")
        more = 200_008 + 3 - SHOW_LIMIT  # ("A> " and the line, past SHOW_LIMIT characters)
        assert f"… ({more:,} more bytes of this command not shown)" in shown
        assert sum(len(line) for line in shown) < SHOW_LIMIT + 2000


async def test_a_redraw_writes_only_the_newest_entries_the_log_can_hold(private_server, monkeypatch):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        pane = app.mode_screen.pane("A")
        for i in range(2 * KEPT_LINES):
            pane.drawn_lines.append(("out", i, Text(f"line {i}"), None))
        drawn = []
        real = pane._lines
        monkeypatch.setattr(pane, "_lines", lambda entry, *args: drawn.append(entry) or real(entry, *args))
        app.action_toggle_order()
        await pilot.pause()
        assert len(drawn) == KEPT_LINES < len(pane.drawn_lines)  # (one line each)
        assert drawn[-1][1] == 2 * KEPT_LINES - 1
        shown = log_text(app, "A")
        assert len(shown) == KEPT_LINES and shown[-1] == f"{2 * KEPT_LINES - 1:>3} line {2 * KEPT_LINES - 1}"


async def test_a_command_done_as_the_app_closes_is_no_error(private_server):
    """CI: a pane's CommandDone came while the app closed, its panes already removed, and
    the first-run hints' query of pane A raised NoMatches in the handler."""
    from playground.tui.messages import CommandDone

    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        for client in app.clients:
            await app.mode_screen.pane(client).remove()
        app.on_command_done(CommandDone("A", [b"PING"]))   # (no exception)
        assert app.commands_done == 0
