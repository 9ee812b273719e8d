"""How long a blocking command may wait, read from its arguments as the server does."""

from __future__ import annotations

# name -> where its timeout is: "last" argument, or "first" (the numkeys forms)
_TIMEOUT_AT = {b"blpop": "last", b"brpop": "last", b"brpoplpush": "last", b"blmove": "last",
               b"bzpopmin": "last", b"bzpopmax": "last", b"blmpop": "first", b"bzmpop": "first",
               b"wait": "last", b"waitaof": "last"}


def block_timeout(argv) -> float | None:
    """Seconds the command may block: 0.0 means forever, None when it is not a
    blocking command (or its timeout can't be read: treated as forever by callers)."""
    if not argv:
        return None
    cmd = bytes(argv[0]).lower()
    try:
        if cmd in (b"xread", b"xreadgroup"):
            words = [bytes(a).lower() for a in argv]
            if b"block" not in words:
                return None
            return int(argv[words.index(b"block") + 1]) / 1000
        where = _TIMEOUT_AT.get(cmd)
        if where is None or len(argv) < 2:
            return None
        value = float(argv[1] if where == "first" else argv[-1])
        if cmd in (b"wait", b"waitaof"):
            value /= 1000
        return max(value, 0.0)
    except (ValueError, IndexError):
        return None
