"""What redis-cli answers itself, before anything is sent: a line it cannot split or
whose repeat count it refuses, `help`, `clear`, `restart` outside the Lua debugger,
`connect` and its `:set` preferences (engine/executor.py asks here first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground.engine import events as ev
from playground.i18n import tr
from playground.resp.cli_lines import (
    INVALID_ARGUMENTS,
    INVALID_REPEAT,
    CommandLine,
    RepeatError,
    SplitError,
    parse_line,
)

if TYPE_CHECKING:
    from playground.engine.executor import Executor

RESTART_OUTSIDE_LDB = b"Use 'restart' only in Lua debugging mode.\n"


def parse(executor: "Executor", client: str, line: str | bytes) -> CommandLine | None:
    """redis-cli's reading of a line; a bad one is answered as redis-cli answers it."""
    try:
        return parse_line(line)
    except SplitError:
        executor.emit(ev.Output(client, INVALID_ARGUMENTS, kind="error"))
    except RepeatError:
        executor.emit(ev.Output(client, INVALID_REPEAT, kind="error", buffered=True))
    return None


async def answer_locally(executor: "Executor", client: str, cmd: CommandLine) -> bool:
    """The words redis-cli answers itself. `help` is answered once whatever the
    repeat count (as redis-cli does: `3 help incr` prints it once); `clear`, `:…` and
    `connect` are checked before the count is stripped, so with a count they go to
    the server. True when answered."""
    pg = executor.pg
    word = cmd.argv[0].lower()
    if word in (b"help", b"?") and not pg.sessions[client].ldb.active:  # (the debugger has its own)
        index = await pg.help_index()
        text = index.output_help([a.decode("utf-8", "replace") for a in cmd.argv[1:]])
        executor.emit(ev.Output(client, text, buffered=True))
        return True
    if cmd.counted:
        return False
    if word == b"restart":  # outside its Lua debugger, redis-cli answers this itself
        executor.emit(ev.Output(client, RESTART_OUTSIDE_LDB))
        return True
    if word == b"clear" and len(cmd.argv) == 1:
        executor.emit(ev.Cleared(client))
        return True
    if word == b"connect" and len(cmd.argv) == 3 and pg.topology is not None:
        from playground.engine.server_actions import connect_line
        await connect_line(executor, client, cmd.argv[1], cmd.argv[2])  # to a node of the topology
        return True
    if word.startswith(b":"):
        _preference(executor, client, cmd.argv)
        return True
    if word == b"connect" and len(cmd.argv) == 3:
        executor.emit(ev.Notice(client, tr("{command}: not supported here (the "
                                           "playground only talks to its own server, or the one given with --url)",
                                           command=cmd.argv[0].decode(errors='replace')),
                                "warning"))
        return True
    return False


def _preference(executor: "Executor", client: str, argv: list[bytes]) -> None:
    """redis-cli's `cliSetPreferences`: `:set hints|nohints` (nothing to do here:
    there are no hints to switch) and its answers to anything else, which redis-cli
    prints without flushing them (`buffered`)."""
    if argv[0].lower() == b":set" and len(argv) >= 2:
        if argv[1].lower() in (b"hints", b"nohints"):
            return
        text = b"unknown redis-cli preference '%s'\n" % argv[1]
    else:
        text = b"unknown redis-cli internal command '%s'\n" % argv[0]
    executor.emit(ev.Output(client, text, buffered=True))
