"""A command sent as one client in a test, through the one command path
(engine.executor), then every client's state read from the server, as a pane does
after a reply. Shared by the test files that set up or check the server this way."""

from __future__ import annotations

import weakref

from playground.engine.executor import Executor
from playground.engine.session import STREAMING

_executors: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def executor_of(pg) -> Executor:
    """One executor per playground for the whole test (a second one would take over the
    sessions' streams)."""
    ex = _executors.get(pg)
    if ex is None:
        ex = _executors[pg] = Executor(pg)
    return ex


async def line(target, client: str, argv, refresh: bool = True, quiet: bool = False):
    """Run `argv` as `client`; its LineResult. `target`: a Playground, or an Executor.
    `quiet`: on an executor of its own, so an app's panes and write attribution never
    hear of the line (a test's setup behind the app's back); the app's executor keeps
    the clients' streams."""
    ex = target if isinstance(target, Executor) else executor_of(target)
    if quiet:
        result = await _aside(ex.pg, client, argv)
    else:
        result = await ex.run(client, argv)
    if refresh:
        await ex.pg.refresh_states()
    return result


async def _aside(pg, client: str, argv):
    streams = {name: session.on_stream for name, session in pg.sessions.items()}
    try:
        return await Executor(pg).run(client, argv)
    finally:
        for name, on_stream in streams.items():
            pg.sessions[name].on_stream = on_stream


async def send(target, client: str, argv, refresh: bool = True, quiet: bool = False):
    """Run `argv` as `client`; its (last) reply, or STREAMING when replies come on the
    stream (SUBSCRIBE). A line that was refused or lost fails the test."""
    result = await line(target, client, argv, refresh, quiet)
    what = result.refused or result.lost or result.server_gone
    assert what is None, f"{client}> {argv!r}: {what}"
    if result.streaming and not result.replies:
        return STREAMING
    return result.reply
