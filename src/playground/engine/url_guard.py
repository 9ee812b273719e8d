"""What the playground asks of a --url server for its guard (engine/guard.py holds the
policy): the server's own @dangerous commands, what each typed name is on that server
(COMMAND INFO, through the catalogue: a command renamed with rename-command keeps its
own name there), and SCRIPT KILL for a read-only script a client of ours still runs when
its line is cancelled or the playground ends (the user's server is not left BUSY)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.resp.replies import Err

if TYPE_CHECKING:  # (playground.py imports this module)
    from playground.engine.playground import Playground
    from playground.engine.session import Session

KILL_WAIT = 10.0  # seconds SCRIPT KILL may take (the server answers it once the script is BUSY)


async def dangerous_commands(pg: "Playground") -> frozenset[bytes]:
    """The --url server's own @dangerous commands ("cmd" or "cmd|sub"), for the guard:
    those it has not reviewed are refused. Empty where the server cannot list them
    (before Redis 7.0: COMMAND LIST does not exist)."""
    assert pg.reader is not None  # (started)
    try:
        reply, = await pg.reader.run([[b"COMMAND", b"LIST", b"FILTERBY", b"ACLCAT", b"dangerous"]])
    except (OSError, ConnectionError):
        return frozenset()
    if not isinstance(reply, list):  # (an error: an older server)
        return frozenset()
    return frozenset(name.lower() for name in reply if isinstance(name, bytes))


async def prepare(pg: "Playground", lines: Iterable[Sequence[bytes]]) -> None:
    """Before `check_allowed`: the server's own name of each line's command (COMMAND INFO,
    once per name), and the admin connection open when a line runs a script
    (`stop_own_script` needs it while the server is busy, when a new connection's
    CLIENT SETNAME would get BUSY)."""
    lines = [argv for argv in lines if argv]
    await pg.catalogue.learn(argv[0] for argv in lines)
    if any(pg.catalogue.own_name(argv[0]) in SCRIPT_COMMANDS for argv in lines):
        assert pg.admin is not None  # (started)
        try:
            await pg.admin.run([[b"PING"]])
        except (OSError, ConnectionError):
            pass


async def stop_own_script(pg: "Playground", sessions: Iterable[Session]) -> None:
    """SCRIPT KILL (FUNCTION KILL for FCALL_RO) on the admin connection for each of
    `sessions` still waiting for a script it started. At most KILL_WAIT seconds each;
    an error (NOTBUSY: it ended; UNKILLABLE: it wrote, under --allow-flush) is ignored."""
    for session in sessions:
        sent = session.script_sent  # (set when sent, cleared by its reply: engine/session.py)
        if not sent:
            continue
        kill = b"FUNCTION" if bytes(sent[0]).lower().startswith(b"fcall") else b"SCRIPT"
        try:
            async with asyncio.timeout(KILL_WAIT):
                await _killed(pg, kill)
        except (OSError, ConnectionError, asyncio.TimeoutError):
            pass


async def _killed(pg: "Playground", kill: bytes) -> None:
    """SCRIPT (or FUNCTION) KILL, then until the server serves again: its OK comes before the
    script has stopped (at its next hook), and a command sent at once could still be BUSY."""
    admin = pg.admin
    assert admin is not None  # (started)
    reply, = await admin.run([[kill, b"KILL"]])
    if isinstance(reply, Err):  # NOTBUSY (it ended), UNKILLABLE (it wrote): nothing to wait for
        return
    while True:
        reply, = await admin.run([[b"PING"]])
        if not (isinstance(reply, Err) and reply.code == "BUSY"):
            return
        await asyncio.sleep(0.005)  # polling the server, bounded by KILL_WAIT
