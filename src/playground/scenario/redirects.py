"""A cluster's redirects in a scenario's steps: the `-> Redirected to slot [N] located at
HOST:PORT` lines redis-cli -c prints (engine/redirect.py), kept on the step's result
apart from its reply (the reply checks never see them).

A stepped lesson's pane shows the line exactly as free play does. A transcript (`run`)
names the node instead of its address (`located at node-2`), as server-action lines
do: a private topology's ports differ from run to run, and a transcript must not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playground.engine import events as ev

_LINE = re.compile(rb"^-> Redirected to slot \[(\d+)\] located at (.*):(\d+)\n?$")


@dataclass(frozen=True)
class Redirect:
    """A redirect a client followed (`-> Redirected to slot [N] located at HOST:PORT`): the slot and the node."""
    slot: int
    address: str          # "127.0.0.1:30002", as redis-cli prints it
    node: str | None      # the topology's name for it ("node-2"); None off a private topology

    @property
    def line(self) -> str:
        """As redis-cli prints it (the pane)."""
        return f"-> Redirected to slot [{self.slot}] located at {self.address}"

    @property
    def stable_line(self) -> str:
        """The same with the node's name for its address (transcripts)."""
        return f"-> Redirected to slot [{self.slot}] located at {self.node or self.address}"


def catching(pg, into: list, forward):
    """A sink that appends each redirect line's Redirect to `into`, and passes every
    event on to `forward` (the runner's own sink, or the executor's)."""
    def sink(event) -> None:
        if isinstance(event, ev.Output) and event.kind == "redirect":
            match = _LINE.match(event.output)
            if match:
                slot, host, port = int(match[1]), match[2].decode("utf-8", "replace"), int(match[3])
                node_at = getattr(pg.server, "node_at", None)
                node = node_at(host, port) if node_at is not None else None
                into.append(Redirect(slot, f"{host}:{port}", node.name if node is not None else None))
        forward(event)
    return sink
