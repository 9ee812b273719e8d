"""The one per-type value reader: which command reads a key's value, all of it or a
bounded first part. The explorer's snapshots and the scenario checks read whole values;
the inspector's detail view reads at most so many elements or bytes (a set or hash by a
first SCAN page, continued by engine/key_detail.py). The inspector's one-line previews
(engine/key_reader.py, with a Lua twin of the same reads) show a stream's newest entry
instead, and stay their own.
"""

from __future__ import annotations

SIZE = {"string": b"STRLEN", "list": b"LLEN", "set": b"SCARD", "zset": b"ZCARD", "hash": b"HLEN",
        "stream": b"XLEN"}
"""The command that says how big a value of each type is."""
TYPES = tuple(SIZE)


def read_value(type_: str, key: bytes, items: int | None = None, nbytes: int | None = None) -> list[bytes] | None:
    """The command that reads `key`'s value of type `type_`: all of it (`items` None), or
    its first `items` elements (a string: its first `nbytes` bytes). None: a type with no
    reader here (none, or a module's)."""
    if items is None:
        return {"string": [b"GET", key], "list": [b"LRANGE", key, b"0", b"-1"], "set": [b"SMEMBERS", key],
                "hash": [b"HGETALL", key], "zset": [b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"],
                "stream": [b"XRANGE", key, b"-", b"+"]}.get(type_)
    last, count = str(items - 1).encode(), str(items).encode()
    return {"string": [b"GETRANGE", key, b"0", str((nbytes or items) - 1).encode()],
            "list": [b"LRANGE", key, b"0", last],
            "set": [b"SSCAN", key, b"0", b"COUNT", count],
            "zset": [b"ZRANGE", key, b"0", last, b"WITHSCORES"],
            "hash": [b"HSCAN", key, b"0", b"COUNT", count],
            "stream": [b"XRANGE", key, b"-", b"+", b"COUNT", count]}.get(type_)
