"""Record free typing in the panes as a new scenario file that `check` replays.

Each command becomes a step with the reply it got as its check (errors by their code,
so the file also passes on a server whose error texts differ). A command whose reply
came only after other clients moved (BLPOP, a slow script) becomes a blocking step
plus a wait step where the reply arrived.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from playground.history import create_private
from playground.resp.cli_lines import RepeatError, SplitError, parse_line
from playground.resp.cli_secrets import SECRET, redact_line, redact_reply, reply_reveals_secret
from playground.resp.replies import Err
from playground.scenario.substitution import escape

SECRET_NOTE = (f"# A secret was left out of this recording: {SECRET.decode()} stands where it was typed,\n"
               "# and replies that could show one have no check. Put the password back to replay it.")


@dataclass
class _Step:
    client: str
    line: str
    reply: str | None = None
    error: str | None = None
    blocking: bool = False
    done: bool = False
    argv: list = field(default_factory=list)


@dataclass
class Recorder:
    """Collects commands and replies in the order they happened."""

    steps: list = field(default_factory=list)   # _Step, or ("wait", _Step)
    _open: dict = field(default_factory=dict)    # client -> its _Step waiting for a reply

    redacted: bool = False                       # a secret was left out somewhere

    def sent(self, client: str, line: str) -> None:
        try:
            cmd = parse_line(line)
        except (SplitError, RepeatError, UnicodeEncodeError):
            cmd = None
        argv = cmd.argv if cmd is not None else []
        shown = redact_line(line, argv)
        if shown != line:
            line, self.redacted = shown, True
        step = _Step(client, line, argv=argv)
        self.steps.append(step)
        self._open[client] = step

    def replied(self, client: str, rendered: str, reply) -> None:
        step = self._open.pop(client, None)
        if step is None:
            return
        if isinstance(reply, Err):
            step.error = reply.code
        elif reply_reveals_secret(step.argv, rendered) or redact_reply(step.argv, rendered) != rendered:
            self.redacted = True  # no check: the reply would write the secret into the file
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
        out = [SECRET_NOTE] if self.redacted else []
        out += [f"title = {toml_string(title)}",
               'lesson = "Recorded in redis-playground. Describe what this shows."',
               'tags = ["recorded"]']
        if tuple(clients) != ("A", "B"):
            out.append("clients = [" + ", ".join(toml_string(c) for c in clients) + "]")
        for item in self.steps:
            out.append("")
            out.append("[[steps]]")
            if isinstance(item, tuple):
                step = item[1]
                out.append(f"client = {toml_string(step.client)}")
                out.append("wait = true")
                out += _checks(step)
                continue
            out.append(f"client = {toml_string(item.client)}")
            out.append(f"command = {toml_string(escape(item.line))}")  # a typed $ is $$ in a file
            if item.blocking:
                out.append("blocking = true")
            elif item.done:
                out += _checks(item)
        return "\n".join(out) + "\n"

    def save(self, directory: Path, title: str, clients: tuple[str, ...]) -> Path:
        """Write the recording as a new 0600 file in `directory` (created 0700 if
        missing): TITLE-STAMP.toml, or TITLE-STAMP-2.toml, ... when a recording of the
        same second is there (never overwritten)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "recording"
        path, f = create_private(directory, f"{slug}-{stamp}", ".toml")
        with f:
            f.write(self.to_toml(title, clients))
        return path


def _checks(step: _Step) -> list[str]:
    if step.error is not None:
        return [f"error = {toml_string(step.error)}"]
    if step.reply is not None:
        return [f"reply = {toml_string(step.reply)}"]
    return []


_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
                 "\r": "\\r"}


def toml_string(text: str) -> str:
    """A TOML basic string holding `text`: characters beyond ASCII as themselves (TOML
    has no surrogate pairs, so json.dumps' \\ud83d\\ude00 for an emoji is no TOML),
    control characters escaped, and a lone surrogate (no character) as U+FFFD."""
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return '"' + re.sub(r'["\\\x00-\x1f\x7f]',
                        lambda m: _TOML_ESCAPES.get(m.group(), "\\u%04x" % ord(m.group())), text) + '"'
