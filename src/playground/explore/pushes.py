"""What a typed client is sent without asking, during one schedule of the explorer: a
subscriber's frames (its SUBSCRIBE's confirmation, each message another client
PUBLISHes), a RESP3 push. They are that client's replies as much as any command's
(explore/one_schedule.py puts them among what it saw, in the order they came), and
they are drawn in the witness's lanes. MONITOR's lines are not: each carries the time
it was read, which differs from run to run.

A message reaches the subscriber on its own connection, whenever its reader takes it:
after each step the explorer asks every subscribed connection for a PING of its own
(`Session.sync`, which the reader swallows), so every message a step caused is in
before the next step runs, and none is counted in another schedule's place.
"""

from __future__ import annotations

from collections.abc import Callable

from playground.engine.session_stream import MonitorLine
from playground.resp.cli_format import render


class PushLog:
    """The frames each client's connection streamed, since they were last taken."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.frames: dict[str, list[str]] = {}

    def attach(self) -> None:
        """Listen on every session (again: an executor made since replaces the handler),
        and forget what came before."""
        self.frames = {}
        for name, session in self.pg.sessions.items():
            handler = session.on_stream
            if getattr(handler, "push_log", None) is self:
                continue
            session.on_stream = self._listener(name, handler)

    def detach(self) -> None:
        """Every session's handler as it was before `attach`."""
        for session in self.pg.sessions.values():
            handler = session.on_stream
            if getattr(handler, "push_log", None) is self:
                session.on_stream = handler.inner

    def _listener(self, name: str, inner: Callable) -> Callable:
        def listen(session, frame) -> None:
            if not isinstance(frame, (Exception, MonitorLine)):   # (a lost connection is no frame)
                text = render(frame).decode("utf-8", "replace")
                self.frames.setdefault(name, []).append(" ".join(text.split("\n")).strip())
            inner(session, frame)
        listen.push_log = self      # type: ignore[attr-defined]
        listen.inner = inner        # type: ignore[attr-defined]
        return listen

    async def settle(self) -> None:
        """Every frame the server has sent so far is in (a PING on each subscribed
        connection, answered after them)."""
        for session in self.pg.sessions.values():
            if session.streaming and session.connected:
                await session.sync()

    def take(self, client: str) -> list[str]:
        """The client's frames since they were last taken, each on one line."""
        return self.frames.pop(client, [])
