"""A pane's prompt behaves like a terminal's (issue 35): lines typed in a burst, or typed
while a command still runs, are sent one by one in order; a pasted block runs line by
line. Driven with Pilot on a real server."""

from textual import events

from playground.tui.app import make_app
from playground.tui.widgets.client_pane import ClientPane
from playground.tui.widgets.command_input import CommandInput
from playground.tui.dialogs.confirm import ConfirmScreen
from pilot import log_text, reply_to, started, type_command, untimed, wait_until
from servers import shared


def commands_and_replies(app, client="A") -> list[str]:
    return [line for line in log_text(app, client) if line.startswith(f"{client}> ") or line.startswith('"')]


def burst(app, text: str) -> None:
    """Every key of `text` (a newline is Enter) queued at once, as a terminal delivers a
    quickly typed (or unbracketed, pasted) stretch: nothing is drawn or sent in between."""
    for char in text:
        if char == "\n":
            app.post_message(events.Key("enter", "\r"))
        elif char == " ":
            app.post_message(events.Key("space", " "))
        else:
            app.post_message(events.Key(char, char))


async def focus_pane(pilot, app, client="A") -> ClientPane:
    pane = app.mode_screen.query_one(f"#pane-{client}", ClientPane)
    pane.query_one(CommandInput).focus()
    await pilot.pause()
    return pane


async def test_a_burst_of_typed_lines_runs_each_line_in_order(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        pane = await focus_pane(pilot, app)
        burst(app, "ECHO one\nECHO two\nECHO three\n")
        await wait_until(pilot, lambda: '"three"' in log_text(app, "A") and not pane.running)
        assert commands_and_replies(app) == ["A> ECHO one", '"one"', "A> ECHO two", '"two"',
                                             "A> ECHO three", '"three"']
        assert not any("not sent" in line for line in log_text(app, "A"))
        assert pane.query_one(CommandInput).value == ""


async def test_lines_typed_while_a_command_blocks_wait_their_turn(server_binary):
    """Typed while BLPOP blocks: shown as pending, sent in order once it returns;
    Ctrl+C later drops what waits (and says so), as a terminal drops typed-ahead lines."""
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        pane = await focus_pane(pilot, app)
        burst(app, "BLPOP q 0\nRPUSH order first\nRPUSH order second\n")
        await wait_until(pilot, lambda: pane.queued() == ["RPUSH order first", "RPUSH order second"])
        pending = str(pane.query_one("#pending").render())
        assert "A> RPUSH order first" in pending and "pending" in pending
        assert "A> RPUSH order first" not in log_text(app, "A")  # not sent yet
        await type_command(pilot, app, "B", "LLEN order")
        assert untimed(reply_to(app, "B", "LLEN order")) == ["(integer) 0"]
        await type_command(pilot, app, "B", "RPUSH q job")
        await wait_until(pilot, lambda: not pane.running and "(integer) 2" in log_text(app, "A"))
        await type_command(pilot, app, "B", "LRANGE order 0 -1")
        assert untimed(reply_to(app, "B", "LRANGE order 0 -1")) == ['1) "first"', '2) "second"']
        assert not pane.query_one("#pending").display

        pane.query_one(CommandInput).focus()
        burst(app, "BLPOP q 0\nRPUSH order third\n")
        await wait_until(pilot, lambda: pane.queued() == ["RPUSH order third"])
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not pane.running and any("1 pending line dropped" in line
                                                               for line in log_text(app, "A")))
        await type_command(pilot, app, "B", "LLEN order")
        assert untimed(reply_to(app, "B", "LLEN order")) == ["(integer) 2"]  # the dropped line never ran


async def test_a_pasted_block_runs_each_line_after_one_confirmation(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        pane = await focus_pane(pilot, app)
        field = pane.query_one(CommandInput)
        app.post_message(events.Paste("ECHO one\nECHO two\r\nECHO three\n"))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")  # no: nothing runs, the line is as it was
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert commands_and_replies(app) == [] and field.value == ""

        field.focus()
        await pilot.pause()
        app.post_message(events.Paste("ECHO one\nECHO two\r\nECHO three\nECHO fo"))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "3 pasted lines" in str(app.screen.query_one("Static").render())
        await pilot.press("y")
        await wait_until(pilot, lambda: '"three"' in log_text(app, "A") and not pane.running)
        assert commands_and_replies(app) == ["A> ECHO one", '"one"', "A> ECHO two", '"two"',
                                             "A> ECHO three", '"three"']
        assert field.value == "ECHO fo"  # after the last newline: left to finish, as in a terminal
        await pilot.press("u", "r", "enter")
        await wait_until(pilot, lambda: '"four"' in log_text(app, "A"))


async def test_a_one_line_paste_is_typed_in_and_one_finished_line_runs_at_once(server_binary):
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        pane = await focus_pane(pilot, app)
        field = pane.query_one(CommandInput)
        app.post_message(events.Paste("ECHO [bold]x"))  # no newline: typed in, nothing runs
        await wait_until(pilot, lambda: field.value == "ECHO [bold]x")
        assert commands_and_replies(app) == []
        field.value = ""
        app.post_message(events.Paste("ECHO single\n"))  # one line: no question
        await wait_until(pilot, lambda: '"single"' in log_text(app, "A") and not pane.running)
        assert not isinstance(app.screen, ConfirmScreen) and field.value == ""


async def test_a_paste_of_too_many_lines_is_refused_in_one_line(server_binary):
    """Memory stays bounded: a paste of more lines than may wait is refused whole."""
    from playground.tui.widgets.pane_prompt import MAX_PENDING

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await focus_pane(pilot, app)
        app.post_message(events.Paste("INCR n\n" * (MAX_PENDING + 1)))
        await wait_until(pilot, lambda: any("nothing was sent" in line for line in log_text(app, "A")))
        assert not isinstance(app.screen, ConfirmScreen)
        await type_command(pilot, app, "B", "EXISTS n")
        assert untimed(reply_to(app, "B", "EXISTS n")) == ["(integer) 0"]
