"""`repl`'s input: stdin's lines, in batches of what has been read so far.

A file or pipe of many lines is read far ahead of the server: every line available is
handed over at once, so `Repl.feed_many` can pipeline them; a person typing gets each
line as soon as it is complete.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import AsyncIterator, BinaryIO


async def line_batches(stdin: BinaryIO, most: int) -> AsyncIterator[list[bytes]]:
    """Lists of at most `most` lines (each with its newline, the last maybe without),
    as many as are read already, until end of input."""
    lines = _stdin_lines(stdin, asyncio.get_running_loop())
    pending: list[bytes] = []  # lines read, from `start` on not yet handed over
    start, ended = 0, False
    while not ended or start < len(pending):
        while not ended and (start == len(pending) or not lines.empty()):
            more = await lines.get()
            if more is None:
                ended = True
            else:
                if start > len(pending) // 2:  # (amortised: each line is moved once)
                    del pending[:start]
                    start = 0
                pending.extend(more)
        batch = pending[start:start + most]
        start += len(batch)
        if batch:
            yield batch


def _stdin_lines(stream: BinaryIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
    """Read lines in a daemon thread, so a blocked read never holds up shutdown; the
    queue gets the lines of each read together (a list), then None at the end.

    A real file descriptor is read with os.read: a daemon thread blocked inside a
    buffered reader at interpreter exit aborts Python ("_enter_buffered_busy")."""
    queue: asyncio.Queue = asyncio.Queue()

    def chunks():
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            yield from iter(lambda: stream.read(65536), b"")
            return
        while chunk := os.read(fd, 65536):
            yield chunk

    def pump() -> None:
        rest = b""
        try:
            for chunk in chunks():
                rest += chunk
                *lines, rest = rest.split(b"\n")
                if lines:  # every line of the chunk at once: they can be pipelined together
                    loop.call_soon_threadsafe(queue.put_nowait, [line + b"\n" for line in lines])
            if rest:
                loop.call_soon_threadsafe(queue.put_nowait, [rest])
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:  # the loop is closed: the REPL has ended
            pass

    threading.Thread(target=pump, daemon=True, name="repl-stdin").start()
    return queue
