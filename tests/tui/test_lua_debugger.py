"""The Lua debugger in a pane: the same lines redis-cli prints (the repl side is in the
goldens: cases/lua_debugger*.txt), in redis-cli's colours, and the other client served
meanwhile by the server that forked for the session (SCRIPT DEBUG YES)."""

from textual.widgets import RichLog

from playground.tui.app import make_app

from pilot import log_text, reply_to, started, type_command, untimed
from servers import shared
from timing_lines import without_timing

SCRIPT = "EVAL \"local a = redis.call('INCR', KEYS[1])\\nreturn a * 10\" 1 k"


async def test_pane_steps_through_a_script_like_redis_cli(server_binary, monkeypatch):
    monkeypatch.setenv("TERM", "xterm")  # redis-cli colours the debugger's lines under an xterm
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot, app)
        await type_command(pilot, app, "A", "SET k 1")
        await type_command(pilot, app, "A", "SCRIPT DEBUG YES")
        await type_command(pilot, app, "A", SCRIPT)
        assert log_text(app, "A")[-2:] == ["* Stopped at 1, stop reason = step over",
                                           "-> 1   local a = redis.call('INCR', KEYS[1])"]
        current = app.mode_screen.query_one("#pane-A RichLog", RichLog).lines[-1]
        assert any(seg.style and seg.style.color and seg.style.color.number == 3
                   for seg in current if seg.text.strip())  # the current line, in yellow (ANSI 33)
        assert "\x1b" not in "".join(log_text(app, "A"))
        await type_command(pilot, app, "A", "step")
        assert log_text(app, "A")[-2:] == ["* Stopped at 2, stop reason = step over", "-> 2   return a * 10"]
        await type_command(pilot, app, "B", "GET k")  # the forked session's INCR is not seen
        assert untimed(reply_to(app, "B", "GET k")) == ['"1"']
        await type_command(pilot, app, "A", "help")  # the debugger's help, not redis-cli's
        assert any(line.lower().endswith("lua debugger help:") for line in log_text(app, "A"))
        await type_command(pilot, app, "A", "continue")
        lines = log_text(app, "A")
        end = lines.index("(Lua debugging session ended -- dataset changes rolled back)")
        assert lines[end - 4:end] == ["A> continue", "", "(integer) 20", ""]
        assert lines[end + 1].startswith("# client A is disconnected")  # a note, styled apart
        await type_command(pilot, app, "A", "GET k")  # a new connection (said first); the change was thrown away
        assert untimed(reply_to(app, "A", "GET k"))[-1:] == ['"1"']


async def test_repl_other_client_waits_for_a_sync_session_without_hanging(private_server, monkeypatch):
    """SCRIPT DEBUG SYNC holds the whole server: B's line waits (no hang: nothing polls
    the held server) and gets its reply once A's session ends; the change stays. A
    session still open at the end of input is closed, as redis-cli's exit would."""
    import io

    from playground.cli.repl import run_repl
    from playground.engine.playground import Playground

    monkeypatch.setenv("TERM", "dumb")
    text = (b"SET k 1\nSCRIPT DEBUG SYNC\nEVAL \"redis.call('INCR', KEYS[1])\\nreturn 1\" 1 k\n"
            b"B> GET k\nstep\ncontinue\nB> GET k\n"
            b"SCRIPT DEBUG SYNC\nEVAL \"return 2\" 0\nB> PING\n")
    out, err = io.BytesIO(), io.StringIO()
    code = await run_repl(Playground(server=private_server), stdin=io.BytesIO(text), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    lines = without_timing(out.getvalue().decode().splitlines())   # (a loaded machine's "(0.61s)": no matter here)
    end = lines.index("(Lua debugging session ended -- dataset changes rolled back)")
    assert lines[end - 3:end] == ["", "(integer) 1", ""]
    assert lines[end + 1:] == ["", '"2"', '"2"', "OK", "* Stopped at 1, stop reason = step over",
                               "-> 1   return 2", "PONG"]
    assert "end of input during a Lua debugging session" in err.getvalue()
