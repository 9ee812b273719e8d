"""A line on its way through the executor (engine/executor.py), apart so that the
pipeline (engine/pipeline.py) can hand back a blocked last line without importing the
executor (which imports the pipeline)."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from playground.engine import events as ev

if TYPE_CHECKING:
    from playground.engine.executor import Executor


class Job:
    """One line on its way: `task` ends with its LineResult (a done future when the line
    ran in its caller's task: engine/settled_line.py); `settle()` returns as soon as the
    line is done or its client is blocked on the server."""

    def __init__(self, executor: "Executor", client: str, argv: tuple[bytes, ...], repeat: int,
                 limit: int | None = None) -> None:
        self.executor = executor
        self.client = client
        self.argv = argv
        self.repeat = repeat
        self.limit = limit  # render at most this many bytes of each reply (None: all)
        self.task: asyncio.Future[Any] | None = None  # (its caller's task while the line runs there)
        self.blocked = False

    async def settle(self) -> bool:
        """True when the line is done; False when the server says its client waits
        (a `Blocked` event is sent once)."""
        assert self.task is not None  # (submitted)
        done = await self.executor.pg.settle(self.client, self.task)
        if not done and not self.blocked:
            self.blocked = True
            state = self.executor.pg.sessions[self.client].state
            self.executor.emit(ev.Blocked(self.client, self.argv, busy_script=state.busy_script))
        return done

    def result(self) -> ev.LineResult:
        """The line's result (it is done)."""
        assert self.task is not None  # (submitted)
        result: ev.LineResult = self.task.result()
        return result

    def __await__(self) -> Generator[Any, None, ev.LineResult]:
        assert self.task is not None  # (submitted)
        return self.task.__await__()
