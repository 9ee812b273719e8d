"""`repl`'s lines on their way, and where their output goes.

Each client's lines stay here from when they are read until their output is printed, in
input order: what a line prints is held until the lines of its client before it are
printed (a client's output keeps the order of its lines), and printed at settle points
(cli/repl.py). What a subscribed or monitoring client receives waits for the next settle
point too, so that a PUBLISH's own reply comes before the message it delivered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from playground.cli.repl_output import CLEAR_SCREEN, DIRECT, ReplOutput
from playground.engine import events as ev
from playground.engine.job import Job
from playground.engine.session import Session
from playground.resp.cli_lines import CommandLine, format_argv
from playground.resp.replies import Push

Held = tuple[bytes | Iterable[bytes], bool | None]  # (output, buffered: see ReplOutput.write)


class ReplLine:
    """One input line of one client, from when it is read until its output is printed."""

    __slots__ = ("cmd", "text", "started", "job", "held", "skipped", "answered", "gave_up")

    def __init__(self, cmd: CommandLine | None, text: bytes = b"", job: Job | None = None) -> None:
        self.cmd = cmd                  # None: read in its turn, behind its client's earlier lines
        self.text = text                # the line as typed (without its client's prefix)
        self.started = asyncio.Event()  # its worker has taken it
        self.job = job                  # the executor's job, once this line's turn came
        self.held: list[Held] = []      # what it printed and is not printed yet, in order
        self.skipped = False            # not run: its client listens or has quit (cli/repl_reading.py)
        self.answered = False           # answered without the server (redis-cli's own words, a bad line)
        self.gave_up: str | None = None  # why it is cancelled at end of input, once waited for (cli/repl_eof.py)

    @property
    def done(self) -> bool:
        """Nothing more will come of it."""
        return self.skipped or self.answered or (self.job is not None and self.job.task is not None
                                                 and self.job.task.done())

    def what(self) -> str:
        """The line as redis-cli would echo it (for stderr notes)."""
        return format_argv(list(self.cmd.argv)) if self.cmd is not None else self.text.decode(errors="replace")


class ClientLines:
    """Every client's lines not printed yet, and the executor's events routed to them."""

    def __init__(self, output: ReplOutput, sessions: Mapping[str, Session], show_pushes: bool) -> None:
        self.output = output
        self.sessions = sessions
        self.show_pushes = show_pushes  # redis-cli --show-pushes yes (piped, it hides them)
        self.lines: dict[str, list[ReplLine]] = {name: [] for name in sessions}
        self.running: dict[str, ReplLine | None] = {name: None for name in sessions}
        self.last_reply: dict[str, object] = {}  # each client's last reply or stream frame
        self.stream_held: dict[str, list[bytes]] = {name: [] for name in sessions}

    def pending(self) -> bool:
        """Is any client's line still on its way or unprinted?"""
        return any(self.lines.values())

    def on_event(self, event: ev.Event) -> None:
        """The executor's sink: each event's output goes to the line it belongs to."""
        client = event.client
        line = self.running.get(client)
        if line is not None and not any(held is line for held in self.lines[client]):
            line = None  # printed already (its worker has not cleared `running` yet): what comes now is not its
        if isinstance(event, ev.Pushed):
            if isinstance(event.frame, Push) and not self.sessions[client].streaming:
                # a push between replies (client tracking): piped redis-cli hides it
                # unless --show-pushes yes, and prints it where it reads it: before the
                # reply of the command it was reading for
                if self.show_pushes:
                    self._out(line, event.output)
                return
            self.last_reply[client] = event.frame
            if line is not None:  # the running line's own frames (its confirmations), in order
                line.held.append((event.output, False))
            else:
                self.stream_held[client].append(event.output)
        elif isinstance(event, ev.Reply):
            self.last_reply[client] = event.reply
            self._out(line, event.output)
        elif isinstance(event, ev.Output):
            self._out(line, event.output, event.buffered)
        elif isinstance(event, ev.Cleared):
            self._out(line, CLEAR_SCREEN, DIRECT)
        elif isinstance(event, ev.Notice):
            self.output.say(event.text)

    def _out(self, line: ReplLine | None, output, buffered: bool | None = False) -> None:
        if line is not None:
            line.held.append((output, buffered))
        else:
            self.output.write(output, buffered)

    async def settle_point(self, name: str) -> None:
        """After a line of `name`: its output, then what the others printed meanwhile
        (a reply it woke), then what the listening clients received."""
        await self.settle(name)
        for other in self.sessions:
            if other != name:
                await self.settle(other)
        for session in self.sessions.values():
            if session.streaming:
                await session.sync()
            self.flush_stream(session.name)
        self.output.flush()

    async def settle(self, name: str) -> None:
        """Wait until each of the client's lines is done, in order, or one is blocked
        on the server (the lines behind it wait their turn); print what is done."""
        for line in list(self.lines[name]):
            await line.started.wait()
            if line.job is None:  # not run, or answered here
                continue
            if not await line.job.settle():
                break
        self.print_done(name)

    def print_done(self, name: str) -> None:
        """Print the finished lines of client `name`, oldest first, and what the first
        one still running has printed so far (`2 BLPOP`'s first reply, before it blocks
        again): a client's output keeps the order of its lines."""
        lines = self.lines[name]
        while lines:
            line = lines[0]
            held, line.held = line.held, []
            for data, buffered in held:
                self.output.write(data, buffered)
            if not line.done:
                return
            lines.pop(0)

    def flush_stream(self, name: str) -> None:
        """Print what client `name` received on its subscription or monitor stream."""
        held = self.stream_held[name]
        while held:
            self.output.write(held.pop(0))
