"""F8 ("Delete every key and cached script…?") on a --url server: without --allow-flush
it is refused before the question is asked (it used to be refused only after Yes);
with --allow-flush it asks as on the private server."""

from __future__ import annotations

import pytest

from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen
from pilot import hear_notices, notices, reply_to, type_command, untimed, wait_until, workers_finished


@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)


async def connected(pilot, app):
    await wait_until(pilot, lambda: app.inspector is not None)


async def test_f8_under_url_refuses_before_asking(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}")
    async with app.run_test(size=(140, 45)) as pilot:
        await connected(pilot, app)
        await type_command(pilot, app, "A", "SET precious 1")
        await pilot.press("f8")
        await wait_until(pilot, lambda: any("allow-flush" in m for m in notices(app)))
        await workers_finished(pilot, app)  # (a question a worker would push: pushed by now)
        assert not isinstance(app.screen, ConfirmScreen)  # nothing was asked
        await type_command(pilot, app, "A", "GET precious")
        assert untimed(reply_to(app, "A", "GET precious")) == ['"1"']


async def test_f8_under_url_with_allow_flush_still_asks(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await connected(pilot, app)
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not any("allow-flush" in m for m in notices(app))
