"""Lua debugging as redis-cli does it (`SCRIPT DEBUG YES|SYNC`, then EVAL).

redis-cli follows the session from what it sends and reads: `SCRIPT DEBUG YES|SYNC`
arms it, the next EVAL starts a session whose replies are the debugger's log lines
(arrays of status strings: `* Stopped at 1, stop reason = step over`, `-> 1 …`), every
line typed meanwhile goes to the debugger (`step`, `print`, `continue`, `abort`, `help`),
and a log line `<endsession>` ends it: the EVAL's own reply comes next, then the server
closes the connection. With YES the server forks and the changes are thrown away; with
SYNC the other clients wait and the changes stay. Rendering: `cli_format.render_ldb`.
"""

from __future__ import annotations

from collections.abc import Sequence

from playground.resp.replies import Array, Reply, Status

LDB_ENDED = b"\n(Lua debugging session ended -- dataset changes rolled back)\n\n"
"""What redis-cli prints after the EVAL's reply. (It says "rolled back" after SYNC too:
only its --ldb-sync-mode option changes the words.)"""


class LuaDebugging:
    """redis-cli's Lua debugger, as it follows it: `SCRIPT DEBUG YES|SYNC` arms it, the
    next EVAL starts a session whose replies are the debugger's log lines (arrays of
    status strings), and a log line `<endsession>` ends it; the EVAL's own reply comes
    next (`final`), then the server closes the connection."""

    def __init__(self) -> None:
        self.on_eval = False   # SCRIPT DEBUG YES|SYNC was sent: the next EVAL debugs
        self.sync = False      # ... SYNC: the server serves no one else during the session
        self.active = False    # in a session: replies are the debugger's
        self.reply = False     # the last reply was the debugger's
        self.ended = False     # ... and it ended the session (`final` holds the EVAL's reply)
        self.final: Reply | None = None

    def before(self, argv: Sequence[bytes]) -> bool:
        """Note a command about to be sent; True if its reply is the debugger's."""
        cmd = argv[0].lower()
        if cmd == b"script" and len(argv) == 3 and argv[1].lower() == b"debug":
            self.on_eval = argv[2].lower() in (b"yes", b"sync")
            self.sync = argv[2].lower() == b"sync"
        self.reply = self.active or (cmd == b"eval" and self.on_eval)
        self.ended, self.final = False, None
        return self.reply

    def after(self, reply: object) -> bool:
        """Note the debugger's reply; True if it ended the session."""
        self.active = True
        if isinstance(reply, Array) and any(isinstance(x, Status) and x.startswith(b"<endsession>")
                                            for x in reply):
            self.active = self.on_eval = False
            self.ended = True
        return self.ended

    @property
    def holds_server(self) -> bool:
        """A SYNC session is on: the server answers nothing else until it ends."""
        return self.active and self.sync
