"""`redis-playground repl`: command lines on stdin, redis-cli's output on stdout.

A line `B> CMD` runs CMD as client B (default A). stdout gets exactly what
`redis-cli --no-raw` prints; everything meant for a human goes to stderr.

Each client runs its own lines in order. A command that blocks (BLPOP, a busy script)
blocks only its client: the next line goes ahead as soon as the server reports the
client blocked. Output stays in a deterministic order: after every line, a client that
the line unblocked prints its reply before the next line runs, and subscribed clients
print every message already sent to them.
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from playground.resp.cli_lines import INVALID_ARGUMENTS, INVALID_REPEAT, CommandLine, RepeatError, SplitError, parse_line
from playground.engine.playground import Playground, Refused, ServerGone
from playground.resp.cli_format import render, render_invalidate
from playground.resp.replies import Push
from playground.engine.session import STREAMING, ConnectionLost, Session

READING_MESSAGES = b"Reading messages... (press Ctrl-C to quit)\n"
_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
SCRIPT_WAIT_AT_EOF = 60.0


@dataclass
class _Job:
    cmd: CommandLine
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    detached: bool = False   # the REPL moved on while this job was blocked
    held: list = field(default_factory=list)  # output of a detached job, printed at a settle point


class Repl:
    """Feeds lines to the playground's clients and prints their replies."""

    def __init__(self, playground: Playground, out: BinaryIO, err: TextIO) -> None:
        self.pg = playground
        self.out = out
        self.err = err
        self.queues: dict[str, asyncio.Queue] = {}
        self.workers: dict[str, asyncio.Task] = {}
        self.unfinished: dict[str, list[_Job]] = {name: [] for name in playground.sessions}
        # Subscription frames wait here until a settle point, so a PUBLISH's own reply
        # is printed before the message it delivered.
        self.stream_held: dict[str, list[bytes]] = {name: [] for name in playground.sessions}
        for session in playground.sessions.values():
            session.on_stream = self._on_stream

    # -- output -------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def say(self, message: str) -> None:
        print(message, file=self.err, flush=True)

    def _on_stream(self, session: Session, frame) -> None:
        if isinstance(frame, ConnectionLost):
            self.say(f"client {session.name}: subscription connection lost ({frame})")
            return
        if isinstance(frame, Push) and not session.streaming:
            text = render_invalidate(frame)
            self.write(text if text is not None else render(frame))
            return
        self.stream_held[session.name].append(render(frame))

    def _flush_stream(self, name: str) -> None:
        held = self.stream_held[name]
        while held:
            self.write(held.pop(0))

    # -- lines --------------------------------------------------------------------

    def split_client(self, line: bytes) -> tuple[str, bytes]:
        match = _PREFIX.match(line)
        if match:
            name = match.group(1).decode()
            for known in self.pg.sessions:
                if known.lower() == name.lower():
                    return known, line[match.end():]
        return next(iter(self.pg.sessions)), line

    async def feed(self, line: bytes) -> bool:
        """Handle one input line; False when the user typed quit/exit."""
        name, text = self.split_client(line.rstrip(b"\n"))
        try:
            cmd = parse_line(text)
        except SplitError:
            self.write(INVALID_ARGUMENTS)
            return True
        except RepeatError:
            self.write(INVALID_REPEAT)
            return True
        if cmd is None:
            return True
        word = cmd.argv[0].lower()
        if word in (b"quit", b"exit") and cmd.repeat == 1:
            return False
        if word in (b"help", b"?"):  # answered locally, as redis-cli does
            index = await self.pg.help_index()
            self.write(index.output_help([a.decode("utf-8", "replace") for a in cmd.argv[1:]]))
            return True
        if word.startswith(b":") or (word == b"connect" and len(cmd.argv) == 3):
            self.say(f"{cmd.argv[0].decode(errors='replace')}: not supported here "
                     "(the playground only talks to its own server, or the one given with --url)")
            return True
        if word == b"clear" and len(cmd.argv) == 1:
            return True
        job = _Job(cmd)
        self.unfinished[name].append(job)
        self._queue(name).put_nowait(job)
        await self._settle(name, job)
        await self._settle_others(name)
        for session in self.pg.sessions.values():
            if session.streaming:
                await session.sync()
            self._flush_stream(session.name)
        return True

    def _queue(self, name: str) -> asyncio.Queue:
        if name not in self.queues:
            self.queues[name] = asyncio.Queue()
            self.workers[name] = asyncio.create_task(self._worker(name))
        return self.queues[name]

    async def _worker(self, name: str) -> None:
        queue = self.queues[name]
        while True:
            job = await queue.get()
            try:
                await self._run(name, job)
            except Exception as exc:  # never a traceback: say what happened
                self.say(f"client {name}: {exc}")
            finally:
                if not job.done.done():
                    job.done.set_result(None)

    async def _run(self, name: str, job: _Job) -> None:
        session = self.pg.sessions[name]
        started = time.monotonic()
        for _ in range(job.cmd.repeat):
            was_streaming = session.streaming
            try:
                reply = await self.pg.execute(name, job.cmd.argv)
            except Refused as exc:
                self.say(str(exc))
                return
            except ServerGone as exc:
                await self._server_gone(name, exc)
                return
            except ConnectionLost as exc:
                self.say(str(exc))
                self.say(await self.pg.reconnect(name))
                return
            if reply is STREAMING:
                if not was_streaming and job.cmd.argv[0].lower() in (b"subscribe", b"psubscribe", b"ssubscribe"):
                    self._emit(job, READING_MESSAGES)
                await session.wait_stream_drained()
                if not job.detached:
                    self._flush_stream(name)
            else:
                self._emit(job, render(reply, job.cmd.argv))
        elapsed = time.monotonic() - started
        if elapsed >= 0.5:
            self._emit(job, b"(%.2fs)\n" % elapsed)

    def _emit(self, job: _Job, data: bytes) -> None:
        if job.detached:
            job.held.append(data)
        else:
            self.write(data)

    async def _server_gone(self, name: str, exc: ServerGone) -> None:
        if not self.pg.private:
            self.say(f"client {name}: {exc}")
            raise SystemExit(1)
        if self.pg.server_stopped():  # another client may have restarted it already
            cause = "after SHUTDOWN" if exc.expected else "unexpectedly"
            self.say(f"client {name}: the server stopped {cause}; {self.pg.gone_message()}")
            self.say(await self.pg.restart())

    async def _settle(self, name: str, job: _Job) -> None:
        """Return when `job` is done, or its client is blocked / running a busy script.

        A job left blocked is detached: its output is held and printed by a later
        settle, right after the output of the line that unblocked it.
        """
        if not await self.pg.settle(name, job.done):
            job.detached = True
            return
        for data in job.held:
            self.write(data)
        job.held.clear()
        if job in self.unfinished[name]:
            self.unfinished[name].remove(job)

    async def _settle_others(self, name: str) -> None:
        """Clients unblocked by the last line print their replies before the next line."""
        for other, jobs in self.unfinished.items():
            if other != name and jobs:
                for job in list(jobs):
                    await self._settle(other, job)

    async def finish(self) -> None:
        """At end of input: wait for replies that are coming and for running scripts;
        cancel clients still blocked (nothing left in the input can unblock them)."""
        for name, jobs in self.unfinished.items():
            for job in list(jobs):
                await self._settle(name, job)
                if job.done.done():
                    continue
                what = job.cmd.argv[0].decode(errors="replace")
                if self.pg.sessions[name].state.busy_script:
                    self.say(f"client {name}: end of input; waiting for its script ({what}) to finish")
                    try:
                        await asyncio.wait_for(asyncio.shield(job.done), SCRIPT_WAIT_AT_EOF)
                        await self._settle(name, job)
                        continue
                    except asyncio.TimeoutError:
                        self.say(f"client {name}: the script still runs after {SCRIPT_WAIT_AT_EOF:g}s; "
                                 "stopping the server")
                        break
                self.say(f"client {name}: still waiting at end of input ({what}); cancelled")
                self.workers[name].cancel()
                try:
                    self.say(await self.pg.reconnect(name))
                except ConnectionLost as exc:
                    self.say(str(exc))
                break
        for name in self.stream_held:
            self._flush_stream(name)
        for task in self.workers.values():
            task.cancel()
        await asyncio.gather(*self.workers.values(), return_exceptions=True)


def _stdin_lines(stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
    """Read lines in a daemon thread, so a blocked read never holds up shutdown."""
    queue: asyncio.Queue = asyncio.Queue()

    def pump() -> None:
        for line in iter(stream.readline, b""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, daemon=True, name="repl-stdin").start()
    return queue


async def run_repl(playground: Playground, stdin: BinaryIO | None = None,
                   stdout: BinaryIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the REPL until end of input; returns the exit code."""
    stdin = stdin or sys.stdin.buffer
    repl = Repl(playground, stdout or sys.stdout.buffer, stderr or sys.stderr)
    async with playground:
        repl.say(f"redis-playground repl: {playground.label}; clients "
                 f"{', '.join(playground.sessions)} (prefix a line with 'B> ' for client B)")
        lines = _stdin_lines(stdin, asyncio.get_running_loop())
        while (line := await lines.get()) is not None:
            if not await repl.feed(line):
                break
        await repl.finish()
    return 0
