"""A reply read at once from a plain socket, in the caller's thread, when it is already
there (TypedConnection.first_bytes): no turn of the event loop for it."""

from __future__ import annotations

import asyncio
import os
import select
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reply_stream import ReplyStream


def plain_fd(transport: asyncio.BaseTransport) -> int | None:
    """The socket's descriptor when the connection is not TLS (a quick reply can then be
    read at once, without a turn of the event loop: `quick_read`)."""
    if transport.get_extra_info("sslcontext") is not None:
        return None
    sock = transport.get_extra_info("socket")
    return None if sock is None else sock.fileno()


def quick_read(fd: int, stream: "ReplyStream", within: float, size: int) -> bool:
    """Wait up to `within` seconds, in this thread, for bytes on `fd` and hand them to
    `stream` as its transport would (at most `size` of them): True when something came
    (data, or the end)."""
    try:
        ready, _, _ = select.select((fd,), (), (), within)
        if not ready:
            return False
        data = os.read(fd, size)
    except OSError:  # (nothing after all, interrupted, reset): the event loop's read finds out
        return False
    if data:
        stream.feed(data)
    else:
        stream.feed_eof()
    return True
