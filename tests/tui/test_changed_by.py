"""The inspector's "changed by" and WATCH badges follow what the server did (issue 23), with Pilot."""

from playground.tui.app import make_app
from playground.tui.widgets.key_table import KeyTable
from pilot import started, type_command, wait_until
from servers import shared
from pilot import cells


async def test_changed_by_and_watch_badges_follow_the_server(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        table = app.mode_screen.query_one("#inspector KeyTable", KeyTable)
        await type_command(pilot, app, "A", "SET plain 1")
        await type_command(pilot, app, "B", "EVAL \"return redis.call('GET', KEYS[1])\" 1 plain")
        await type_command(pilot, app, "A", "SET k 1")
        await type_command(pilot, app, "A", "WATCH k missing")
        await type_command(pilot, app, "B", "SET missing 1")
        await wait_until(pilot, lambda: cells(table, "missing") == ("by B", "A dirty"))
        assert cells(table, "k") == ("by A", "A")          # not "A dirty": k did not change
        assert cells(table, "plain") == ("by A", "")       # a read-only script is not "by B"
