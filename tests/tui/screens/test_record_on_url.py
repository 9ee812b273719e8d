"""F9 (record: "Recording starts from an empty server … Start?") on a --url server:
without --allow-flush it is refused before the question is asked (it used to ask, and
refuse after Yes); with --allow-flush it asks as on the private server."""

from __future__ import annotations

import pytest
from pilot import hear_notices, notices, reply_to, started, type_command, untimed, wait_until

from playground.tui.app import make_app
from playground.tui.dialogs.confirm import ConfirmScreen

pytestmark = [pytest.mark.server, pytest.mark.tui]


@pytest.fixture(autouse=True)
def _hear_notices(monkeypatch):
    hear_notices(monkeypatch)


async def test_f9_under_url_refuses_before_asking(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}")
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET precious 1")
        await pilot.press("f9")
        await wait_until(pilot, lambda: any("allow-flush" in m for m in notices(app)))
        assert not isinstance(app.screen, ConfirmScreen)  # nothing was asked
        assert app.recorder is None
        await type_command(pilot, app, "A", "GET precious")
        assert untimed(reply_to(app, "A", "GET precious")) == ['"1"']


async def test_f9_under_url_with_allow_flush_still_asks(private_server):
    app = make_app(url=f"unix://{private_server.socket_path}", allow_flush=True)
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await pilot.press("f9")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not any("allow-flush" in m for m in notices(app)) and app.recorder is None
