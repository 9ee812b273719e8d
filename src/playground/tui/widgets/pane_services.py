"""What a client's pane needs of the app, handed to it in its constructor (the pane
never reaches into the app for them): the playground and the executor it sends
through, command help, the recorder while one runs, and the two display switches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class PaneServices:
    """What every mode's client panes are given by the app (the same for each pane)."""

    playground: Any            # engine.playground.Playground
    executor: Any              # engine.executor.Executor: the one command path
    help: Callable[[], Any]    # the command help now (the bundled table until the server's is read)
    recorder: Callable[[], Any]  # the scenario recorder while F9 records, else None
    show_why: Callable[[], bool]    # "why" notes under surprising replies (Ctrl+Y)
    show_order: Callable[[], bool]  # the server order's numbers in the gutter (Ctrl+T)
