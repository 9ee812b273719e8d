"""What the explorer and its lane workers (explore/lanes.py, explore/lane_worker.py) say to
each other over their socket pair: length-prefixed pickles. Only our own process is at
the other end (a private socket pair, never a path or a port)."""

from __future__ import annotations

import asyncio
import copyreg
import io
import pickle
import struct

from playground.i18n import Translated

_HEAD = struct.Struct(">I")
_TABLE = copyreg.dispatch_table.copy()
_TABLE[Translated] = lambda text: (str, (str(text),))   # said again in a worker: as it was said


def encode(obj) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _TABLE
    pickler.dump(obj)
    data = buffer.getvalue()
    return _HEAD.pack(len(data)) + data


async def receive(reader):
    """The next message (EOFError when the other side has gone)."""
    try:
        head = await reader.readexactly(_HEAD.size)
        size, = _HEAD.unpack(head)
        return pickle.loads(await reader.readexactly(size))
    except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
        raise EOFError(str(exc)) from exc
