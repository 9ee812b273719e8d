"""A lane of a sampled exploration in a process of its own (explore/lanes.py starts it as
`python -m playground.explore.lane_worker FD`): its own private server, started fresh
from the explorer's binary, and the explorer's schedules run there one by one, exactly
as the explorer itself runs them (Explorer.run_checked: a fresh state and the setup,
the steps, the outcome).

Over the socket pair on FD: first what to explore (the scenario, part, clients, binary,
language), then chunks of schedules (None: no more); back "ready", one ("run",
schedule, Run) per schedule, and "done" at the end, or ("error", one line). The worker
ends when its explorer goes (its socket closes), and not before, whatever it said last:
the server with it.
"""

from __future__ import annotations

import asyncio
import socket
import sys

from playground.engine.playground import Playground
from playground.explore.explorer import ExploreError, Explorer
from playground.explore.lane_wire import encode, receive
from playground.i18n import set_language
from playground.server.private import PrivateServer, ServerError


class _ExplorerGone(Exception):
    """The explorer's end of the socket closed: nobody is left to tell anything."""


async def _told(reader):
    """The explorer's next message (None: no more chunks); _ExplorerGone when it has gone
    (an EOF from anywhere else, a server's reply cut short, is the lane's error to tell)."""
    try:
        return await receive(reader)
    except EOFError:
        raise _ExplorerGone from None


async def _serve(sock: socket.socket) -> None:
    reader, writer = await asyncio.open_connection(sock=sock)
    try:
        await _lane(reader, writer)
        await _until_gone(reader)
    except _ExplorerGone:
        pass           # stop (the server goes with the playground)
    finally:
        writer.close()


async def _until_gone(reader) -> None:
    """After its last word ("done", or an error), the lane waits for the explorer to go,
    reading (and dropping) what it still sends. A worker that ended at once made the
    explorer's next chunk meet a closed socket: that write's error failed the explorer's
    reader, and the error it had not read yet (a server stopped in this lane) was lost,
    taken for the worker's own end (CI: "a worker of the exploration stopped")."""
    while await reader.read(1 << 16):
        pass


async def _lane(reader, writer) -> None:
    spec = await _told(reader)
    set_language(spec["lang"])
    try:
        server = PrivateServer(spec["binary"], spec["script_time_limit_ms"])
        async with Playground(server=server, clients=spec["clients"], resp=spec["resp"]) as pg:
            explorer = Explorer(pg, spec["scenario"], spec["part"], by=spec["by"], reduce=False, witnesses=False)
            await explorer.fresh.begin(explorer.commands_sent())
            writer.write(encode(("ready",)))
            while (chunk := await _told(reader)) is not None:
                for schedule in chunk:
                    run = await explorer.run_checked(schedule)
                    writer.write(encode(("run", schedule, run)))
                await writer.drain()
            await explorer.runner.discard_pending()
            writer.write(encode(("done",)))
            await writer.drain()
    except (ExploreError, ServerError) as exc:
        writer.write(encode(("error", str(exc))))
        await writer.drain()
    except _ExplorerGone:
        raise
    except Exception as exc:   # (one line, as the explorer's own lane says it)
        writer.write(encode(("error", f"{spec['scenario'].id}: {type(exc).__name__}: " + " ".join(str(exc).split()))))
        await writer.drain()


def main(argv: list[str]) -> int:
    """A lane worker's process: serve the explorer at the other end of the socket pair until it goes.

    Args:
        argv: the command line; argv[1] is the socket's file descriptor.
    """
    sock = socket.socket(fileno=int(argv[1]))
    asyncio.run(_serve(sock))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
