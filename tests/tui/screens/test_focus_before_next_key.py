"""A focus change applies before the next key (tui/focus.py): keys that arrive in the same
burst as F2 (typed right after it, the app busy) go to client A's pane, not to B's, which
had the focus; before, Widget.focus() moved the focus only after the keys already queued,
so they landed in B's pane (2 in 16 tries under load, while B was subscribed).

The burst is posted to the app at once, as the driver posts what it reads from the
terminal, with no pause between the keys: no timing in the test."""

from __future__ import annotations

import pytest
from pilot import started, type_command, wait_until
from textual import events
from textual.widgets import Input, Static

from playground.tui.app import make_app

pytestmark = [pytest.mark.server, pytest.mark.tui]


def _burst(app, *keys: str) -> None:
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


@pytest.mark.parametrize("switch, to, other", [("f2", "A", "B"), ("f3", "B", "A")])
async def test_keys_typed_right_after_the_switch_go_to_the_client_it_names(private_server, switch, to, other):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, other, "SUBSCRIBE news")  # the other pane: subscribed, focused
        await wait_until(pilot, lambda: "subscribed" in str(
            app.mode_screen.query_one(f"#pane-{other} #state", Static).render()))
        field, other_field = (app.mode_screen.query_one(f"#pane-{name} Input", Input) for name in (to, other))
        assert app.focused is other_field
        _burst(app, switch, "p", "i", "n", "g")
        await wait_until(pilot, lambda: field.value == "ping")
        assert app.focused is field and other_field.value == ""


async def test_keys_typed_right_after_f4_go_to_the_keys_not_the_pane(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        field = app.mode_screen.query_one("#pane-A Input", Input)
        field.focus()
        await wait_until(pilot, lambda: app.focused is field)
        _burst(app, "f4", "x", "y", "slash")
        filter_field = app.mode_screen.query_one("#inspector #filter", Input)
        # (the slash, last of the burst, focuses the keys' filter: every key before it has been handled)
        await wait_until(pilot, lambda: app.focused is filter_field)
        assert field.value == "" and filter_field.value == ""
