"""Record free typing in the panes as a new scenario file that `check` replays.

Each command becomes a step with the reply it got as its check (errors by their code,
so the file also passes on a server whose error texts differ). A command whose reply
came only after other clients moved (BLPOP, a slow script) becomes a blocking step
plus a wait step where the reply arrived.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from playground.resp.replies import Err


@dataclass
class _Step:
    client: str
    line: str
    reply: str | None = None
    error: str | None = None
    blocking: bool = False
    done: bool = False


@dataclass
class Recorder:
    """Collects commands and replies in the order they happened."""

    steps: list = field(default_factory=list)   # _Step, or ("wait", _Step)
    _open: dict = field(default_factory=dict)    # client -> its _Step waiting for a reply

    def sent(self, client: str, line: str) -> None:
        step = _Step(client, line)
        self.steps.append(step)
        self._open[client] = step

    def replied(self, client: str, rendered: str, reply) -> None:
        step = self._open.pop(client, None)
        if step is None:
            return
        if isinstance(reply, Err):
            step.error = reply.code
        else:
            step.reply = rendered.rstrip("\n")
        if self.steps and self.steps[-1] is not step:  # others moved meanwhile
            step.blocking = True
            self.steps.append(("wait", step))
        step.done = True

    def abandoned(self, client: str) -> None:
        """The command was cancelled: it leaves the recording."""
        step = self._open.pop(client, None)
        if step is not None and step in self.steps:
            self.steps.remove(step)

    def __len__(self) -> int:
        return sum(1 for s in self.steps if isinstance(s, _Step))

    def to_toml(self, title: str, clients: tuple[str, ...]) -> str:
        out = [f"title = {json.dumps(title)}",
               'lesson = "Recorded in redis-playground. Describe what this shows."',
               'tags = ["recorded"]']
        if tuple(clients) != ("A", "B"):
            out.append("clients = " + json.dumps(list(clients)))
        for item in self.steps:
            out.append("")
            out.append("[[steps]]")
            if isinstance(item, tuple):
                step = item[1]
                out.append(f"client = {json.dumps(step.client)}")
                out.append("wait = true")
                out += _checks(step)
                continue
            out.append(f"client = {json.dumps(item.client)}")
            out.append(f"command = {json.dumps(item.line)}")
            if item.blocking:
                out.append("blocking = true")
            elif item.done:
                out += _checks(item)
        return "\n".join(out) + "\n"

    def save(self, directory: Path, title: str, clients: tuple[str, ...]) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "recording"
        path = directory / f"{slug}-{stamp}.toml"
        path.write_text(self.to_toml(title, clients), encoding="utf-8")
        return path


def _checks(step: _Step) -> list[str]:
    if step.error is not None:
        return [f"error = {json.dumps(step.error)}"]
    if step.reply is not None:
        return [f"reply = {json.dumps(step.reply)}"]
    return []
