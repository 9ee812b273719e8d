"""Each client's redis-cli reading its lines, as `repl` follows it.

redis-cli splits a line itself and answers some words itself (`Invalid argument(s)`,
`help`, `clear`: engine/local_words.py). It reads no more input once it is in its
subscribe or monitor loop (after SUBSCRIBE or MONITOR) or has exited (`quit`): such a
client's later lines print nothing on stdout, not even `Invalid argument(s)`, and are
named on stderr. After the server command QUIT (`1 quit`), its next command meets the
closed connection and is lost; the one after reconnects.
"""

from __future__ import annotations

from collections.abc import Mapping

from playground.cli.repl_output import ReplOutput
from playground.engine.catalogue import SUBSCRIBES
from playground.engine.events import LineResult
from playground.engine.executor import Executor
from playground.engine.session import Session
from playground.i18n import tr
from playground.resp.cli_lines import (
    CommandLine,
    RepeatError,
    SplitError,
    format_argv,
    parse_line,
)
from playground.resp.replies import Err

# After these (unless the server answered with an error) redis-cli stays in its
# subscribe or monitor loop for good: it reads no more input.
STAYS_LISTENING = frozenset(SUBSCRIBES) | {b"monitor"}
QUIT = b"quit"  # (in ClientReading.deaf: the client's redis-cli has exited)


class ClientReading:
    """What each client's redis-cli still reads."""

    def __init__(self, executor: Executor, sessions: Mapping[str, Session], output: ReplOutput) -> None:
        self.executor = executor
        self.sessions = sessions
        self.output = output
        self.deaf: dict[str, bytes] = {}  # client -> the word after which redis-cli reads no more (QUIT: it exited)
        self.after_quit: dict[str, bool] = {}  # the client's next line is lost, as in redis-cli

    def reads_no_more(self, name: str) -> bool:
        """Does client `name`'s redis-cli read no more input (it listens, or has quit)?"""
        return name in self.deaf

    def everyone_left(self) -> bool:
        """Has every client's redis-cli exited (`quit`)?"""
        return all(self.deaf.get(name) == QUIT for name in self.sessions)

    async def read(self, name: str, text: bytes) -> CommandLine | None:
        """A line of `name` read as redis-cli reads it, when its turn comes: the command
        to send, or None when it was answered here (or not read at all: its redis-cli
        listens or has exited, and prints nothing for it).

        Args:
            name: the client.
            text: the line as typed, without its client's prefix.
        """
        if name in self.deaf:
            self.not_read(name, _shown(text))
            return None
        cmd = self.executor.parse(name, text)
        if cmd is None:
            return None
        if not cmd.counted and cmd.argv[0].lower() in (b"quit", b"exit"):
            self.deaf[name] = QUIT  # its redis-cli exits; the other clients go on
            return None
        if await self.executor.answer_locally(name, cmd):
            return None
        return cmd

    def takes(self, name: str, cmd: CommandLine) -> bool:
        """Is `cmd`, read earlier, sent when its turn comes? False (said on stderr) when
        its client has stopped reading meanwhile, or it is the line lost after QUIT."""
        if name in self.deaf or self.after_quit.pop(name, False):
            self.not_read(name, format_argv(list(cmd.argv)))
            return False
        return True

    def not_read(self, name: str, what: str) -> None:
        """Say on stderr that a line of `name` is not run, and why."""
        if self.deaf.get(name) == QUIT:
            self.output.say(tr("client {name}: not run: {what} (after quit, redis-cli has exited)",
                               name=name, what=what))
        elif name not in self.deaf:
            self.output.say(tr("client {name}: not run: {what} (after QUIT, redis-cli finds the connection closed "
                               "at the next command, says so on stderr, and reconnects at the one after)",
                               name=name, what=what))
        else:
            self.output.say(tr("client {name}: not run: {what} (after {command}, redis-cli reads no more input)",
                               name=name, what=what, command=self.deaf[name].decode().upper()))

    def ran(self, name: str, cmd: CommandLine, result: LineResult, last_reply: object) -> None:
        """After `cmd` of `name` ran: does its redis-cli go on reading, and how?

        Args:
            name: the client.
            cmd: the line that ran.
            result: what came of it.
            last_reply: the client's last reply or stream frame.
        """
        word = cmd.argv[0].lower()
        if word in STAYS_LISTENING and not isinstance(last_reply, Err):
            self.deaf[name] = word
        elif word == b"quit" and self.sessions[name].state.disconnected:
            if cmd.repeat > 1:  # redis-cli's second QUIT is the line that meets the closed connection
                self.output.say(tr("client {name}: {count} QUIT: the QUITs after the first meet the closed "
                                   "connection (redis-cli says so on stderr); the next line reconnects",
                                   name=name, count=cmd.repeat))
            else:
                self.after_quit[name] = True


def _shown(text: bytes) -> str:
    """A line not read, as the notes on stderr name it."""
    try:
        cmd = parse_line(text)
    except (SplitError, RepeatError):
        cmd = None
    if cmd is None:
        return text.strip().decode(errors="replace")
    return format_argv(list(cmd.argv))
