"""`repl`'s pipelined runs: which lines read together may go to the server ahead of their
replies (engine/pipeline.py), and the run handed to the executor. The lines that may not
go in a run go through `Repl.feed` one by one (see cli/repl.py)."""

from __future__ import annotations

from collections.abc import Callable

from playground.cli.repl_order import LOCAL_WORDS
from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.engine.events import LineResult
from playground.engine.executor import Executor
from playground.engine.job import Job
from playground.engine.pipeline import NOT_PIPELINED, may_close_after
from playground.engine.playground import Playground
from playground.resp.cli_lines import CommandLine, RepeatError, SplitError, parse_line

_NOT_IN_RUNS = NOT_PIPELINED | frozenset(LOCAL_WORDS)

RunLine = tuple[bytes, str, CommandLine]  # (the input line, its client, its command)


class PipelinedRuns:
    """Picks the lines that may be pipelined and runs them."""

    def __init__(self, pg: Playground, executor: Executor, split_client: Callable[[bytes], tuple[str | None, bytes]],
                 reads_no_more: Callable[[str], bool], show_pushes: bool) -> None:
        """
        Args:
            pg: the playground (its clients and whether it follows redirects).
            executor: what runs the lines.
            split_client: an input line's client and command text (`Repl.split_client`).
            reads_no_more: whether a client's redis-cli reads no more input (it listens, or has quit).
            show_pushes: redis-cli --show-pushes yes: one round trip a line.
        """
        self.pg = pg
        self.executor = executor
        self.split_client = split_client
        self.reads_no_more = reads_no_more
        self.show_pushes = show_pushes

    def pipelinable(self, raw: bytes, following: bytes | None = None) -> tuple[str, CommandLine, bool] | None:
        """(client, line, settles) if `raw` may be pipelined (while nothing else is going
        on), else None (nothing emitted: `Repl.feed` parses it again and answers).

        A script (EVAL, FCALL, ...) goes with the run when the line after it is a plain
        line of the same client, which would wait for the script anyway. Otherwise it
        ends the run (`settles`): it is waited for as any line is, and if the server
        says it is busy, the lines after it go on without it (another client may have
        to kill it), and at the end of the input it is waited for as a script.

        Args:
            raw: the input line.
            following: the input line after it, if it was read with it.
        """
        if self.pg.follows_redirects:  # a cluster: each reply may send the line elsewhere
            return None
        if self.show_pushes:  # one round trip a line, as redis-cli: the server batches a
            return None       # pipeline's invalidations into one push (two SETs, one push)
        name, text = self.split_client(raw.rstrip(b"\n"))
        if name is None or self.reads_no_more(name):  # no such client, or one that reads no more
            return None
        try:
            cmd = parse_line(text)
        except (SplitError, RepeatError):
            return None
        if cmd is None:
            return None
        word = cmd.argv[0].lower()
        if may_close_after(self.pg.sessions[name], cmd.argv):  # (an EXEC that runs a CLIENT KILL)
            return None
        if word not in _NOT_IN_RUNS and word[:1] != b":":
            return name, cmd, False
        if word in SCRIPT_COMMANDS and not self.pg.sessions[name].ldb.on_eval:
            after = self.pipelinable(following) if following is not None else None
            return name, cmd, after is None or after[0] != name
        return None

    async def run(self, run: list[RunLine], settle_last: bool = False) -> tuple[list[LineResult], Job | None]:
        """Send the run's lines ahead of their replies (`Executor.run_pipelined`): their
        results in order (fewer than the lines if the server went away), and the last
        line still running if it blocked (with `settle_last`)."""
        return await self.executor.run_pipelined(
            [(name, tuple(c.argv), c.repeat) for _, name, c in run], overlap=not self.show_pushes,
            settle_last=settle_last)
