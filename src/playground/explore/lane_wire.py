"""What the explorer and its lane workers (explore/lanes.py, explore/lane_worker.py) say to
each other over their socket pair: length-prefixed pickles. Only our own process is at
the other end (a private socket pair, never a path or a port)."""

from __future__ import annotations

import asyncio
import pickle
import struct

_HEAD = struct.Struct(">I")


def encode(obj) -> bytes:
    """One message for the other side: its pickle, after its length.

    Args:
        obj: the message.
    """
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)  # (an i18n.Translated goes as the text it said: its __reduce__)
    return _HEAD.pack(len(data)) + data


async def receive(reader):
    """The next message (EOFError when the other side has gone)."""
    try:
        head = await reader.readexactly(_HEAD.size)
        size, = _HEAD.unpack(head)
        return pickle.loads(await reader.readexactly(size))
    except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
        raise EOFError(str(exc)) from exc
