"""Whether a server meets a scenario's (or a part's, a step's) `requires`."""

from __future__ import annotations

from playground.engine.playground import Playground
from playground.i18n import tr
from playground.resp.replies import Array, Nil
from playground.scenario.checks import reader_of
from playground.scenario.model import Requirement


async def requirement_unmet(pg: Playground, req: Requirement | None) -> str | None:
    """Why this server does not meet `req`, or None if it does."""
    if req is None:
        return None
    server_flavour = flavour_of(pg)
    if req.flavour and req.flavour != server_flavour:
        return tr("needs {what}; this is {server}", what=req.describe(), server=pg.label)
    if req.min_version and pg.server is not None and pg.server.version_tuple() < req.min_version:
        return tr("needs {what}; this is {server}", what=req.describe(), server=pg.label)
    for command in req.commands:
        reply = (await reader_of(pg).run([[b"COMMAND", b"INFO", command.encode()]]))[0]
        if not isinstance(reply, Array) or not reply or reply[0] is Nil:
            return tr("needs the command {command}; {server} does not have it", command=command, server=pg.label)
    return None


def flavour_of(pg: Playground) -> str | None:
    """The private server's flavour in lower case ("redis", "valkey"), or None without one.

    Args:
        pg: the playground.
    """
    if pg.server is not None:
        return pg.server.flavour.lower()
    return None
