"""`repl`'s pipelined runs: the lines read together that go to the server ahead of
their replies (engine/pipeline.py), and the lines that may not (see cli/repl.py)."""

from __future__ import annotations

import time

from playground.engine.pipeline import NOT_PIPELINED
from playground.engine.catalogue import SCRIPT_COMMANDS
from playground.resp.cli_lines import CommandLine, RepeatError, SplitError, parse_line

LOCAL_WORDS = (b"help", b"?", b"quit", b"exit", b"restart", b"clear", b"connect")
_NOT_IN_RUNS = NOT_PIPELINED | frozenset(LOCAL_WORDS)


class PipelinedRuns:
    """The part of `Repl` (cli/repl.py) that gathers runs of lines and hands them to the
    executor; lines that may not go in a run go through `Repl.feed`."""

    async def feed_many(self, raws: list[bytes]) -> bool:
        """Handle lines read together: runs of plain lines are pipelined
        (`Executor.run_pipelined`) while nothing else is going on (no client waiting
        or listening); every other line goes through `feed`. Same output either way.
        False when the user typed quit/exit."""
        run: list[tuple[bytes, str, CommandLine]] = []
        quiet = self._quiet()
        for index, raw in enumerate(raws):
            self.line_number += 1
            fast = self._pipelinable(raw, raws[index + 1] if index + 1 < len(raws) else None) if quiet else None
            if fast is not None:
                if fast[2]:  # a script another client's line follows: it ends the run
                    if not await self._run_pipelined(run + [(raw, fast[0], fast[1])], settle_last=True):
                        return False
                    run = []
                    quiet = self._quiet()
                else:
                    run.append((raw, fast[0], fast[1]))
                continue
            if run:
                if not await self._run_pipelined(run):
                    return False
                run = []
            if not await self.feed(raw):
                return False
            quiet = self._quiet()
        if run and not await self._run_pipelined(run):
            return False
        self.flush()
        return not self.stopped

    paused_until = 0.0  # (time.monotonic) while a CLIENT PAUSE typed here may last

    def note_pause(self, argv) -> None:
        """After CLIENT PAUSE ms, lines go one by one until it is over: a run of two
        clients' lines first asks the server for their keys (COMMAND INFO), and that
        question would sit out the pause, so the line's own "(1.00s)" went missing."""
        if len(argv) >= 3 and argv[0].lower() == b"client" and argv[1].lower() in (b"pause", b"unpause"):
            try:
                seconds = int(argv[2]) / 1000 if argv[1].lower() == b"pause" else 0.0
            except ValueError:
                return
            self.paused_until = time.monotonic() + min(max(seconds, 0.0), 86400.0) + 0.05

    def _quiet(self) -> bool:
        """Nothing going on that a pipelined line could overtake: no line waiting or
        still in a worker, no client listening, every one connected, no CLIENT PAUSE of
        ours in force. (A line of a client that reads no more is never pipelined.)"""
        if self.paused_until and time.monotonic() < self.paused_until:
            return False
        return not (self.in_workers or any(self.lines.values()) or self.after_quit
                    or any(s.streaming or not s.connected or s.state.disconnected or s.ldb.active
                           for s in self.pg.sessions.values()))

    def _pipelinable(self, raw: bytes, following: bytes | None = None) -> tuple[str, CommandLine, bool] | None:
        """(client, line, settles) if `raw` may be pipelined (when `_quiet`), else None
        (nothing emitted: `feed` will parse it again and answer).

        A script (EVAL, FCALL, ...) goes with the run when the line after it is a plain
        line of the same client, which would wait for the script anyway. Otherwise it
        ends the run (`settles`): it is waited for as any line is, and if the server
        says it is busy, the lines after it go on without it (another client may have
        to kill it), and at the end of input it is waited for as a script (see the
        module docstring)."""
        if self.pg.follows_redirects:  # a cluster: each reply may send the line elsewhere
            return None
        if self.show_pushes:  # one round trip a line, as redis-cli: the server batches a
            return None       # pipeline's invalidations into one push (two SETs, one push)
        name, text = self.split_client(raw.rstrip(b"\n"))
        if name is None or name in self.deaf:  # no such client, or one that reads no more
            return None
        try:
            cmd = parse_line(text)
        except (SplitError, RepeatError):
            return None
        if cmd is None:
            return None
        word = cmd.argv[0].lower()
        if word not in _NOT_IN_RUNS and word[:1] != b":":
            return name, cmd, False
        if word in SCRIPT_COMMANDS and not self.pg.sessions[name].ldb.on_eval:
            after = self._pipelinable(following) if following is not None else None
            return name, cmd, after is None or after[0] != name
        return None

    async def _run_pipelined(self, run: list[tuple[bytes, str, CommandLine]], settle_last: bool = False) -> bool:
        results, blocked = await self.executor.run_pipelined(
            [(name, tuple(c.argv), c.repeat) for _, name, c in run], overlap=not self.show_pushes,
            settle_last=settle_last)
        for result in results:
            if result.may_have_run:  # redis-cli would have sent it (and printed its reply)
                self.exit_code = 1
            if result.server_gone:
                await self._server_gone(result.client, result.expected_stop)
        if blocked is not None:  # the last line still runs: its client's worker takes it over
            _, name, cmd = run[-1]
            self.adopt(name, cmd, blocked)
            return not self.stopped
        for raw, _, _ in run[len(results):]:  # the server went away: the rest one by one
            if not await self.feed(raw):
                return False
        return not self.stopped
