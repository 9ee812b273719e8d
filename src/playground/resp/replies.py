"""Typed replies: one class per RESP type, so rendering can tell `+OK` from `$2 OK`.

Client libraries (redis-py among them) collapse status and bulk replies into the same
bytes; redis-cli prints them differently, so every reply the playground shows keeps the
type the server sent. `Status` and `Bulk` subclass `bytes`, so code that only wants the
bytes can use them as such.
"""

from __future__ import annotations

from dataclasses import dataclass


class Status(bytes):
    """A simple string (`+OK`, `+QUEUED`)."""


class Bulk(bytes):
    """A bulk string (`$n`)."""


class Verbatim(bytes):
    """A RESP3 verbatim string (`=n txt:...`); `format` holds the three-letter type."""

    format: bytes = b"txt"

    def __new__(cls, data: bytes, format: bytes = b"txt") -> "Verbatim":
        obj = super().__new__(cls, data)
        obj.format = format
        return obj


@dataclass(frozen=True)
class Err:
    """An error reply (`-ERR ...` or RESP3 blob error `!n`); `message` is the raw text."""

    message: bytes

    @property
    def code(self) -> str:
        """The error code, the first word (`WRONGTYPE`, `NOSCRIPT`, `BUSY`, ...)."""
        return self.message.split(b" ", 1)[0].decode("utf-8", "replace")


class Int(int):
    """An integer reply (`:n`)."""


@dataclass(frozen=True)
class Double:
    """A RESP3 double; `raw` is the server's own text, which redis-cli prints as is."""

    raw: bytes


@dataclass(frozen=True)
class BigNumber:
    """A RESP3 big number (`(n`), kept as the server's text."""

    raw: bytes


@dataclass(frozen=True)
class Bool:
    """A RESP3 boolean (`#t` / `#f`)."""

    value: bool


class _NilType:
    """Null bulk, null array or RESP3 null: redis-cli prints all of them as `(nil)`."""

    _instance: "_NilType | None" = None

    def __new__(cls) -> "_NilType":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Nil"

    def __bool__(self) -> bool:
        return False


Nil = _NilType()


class Array(list["Reply"]):
    """An array reply (`*n`)."""


class Set(list["Reply"]):
    """A RESP3 set (`~n`), kept in server order."""


class Push(list["Reply"]):
    """A RESP3 push (`>n`): pub/sub messages and invalidations."""


class Map(list[tuple["Reply", "Reply"]]):
    """A RESP3 map (`%n`), kept as an ordered list of (key, value) pairs."""


Reply = (
    Status | Bulk | Verbatim | Err | Int | Double | BigNumber | Bool | _NilType
    | Array | Set | Push | Map
)


def to_python(reply: object) -> object:
    """Plain Python values for a reply (for checks and JSON): bytes, int, list, dict, None."""
    if reply is Nil:
        return None
    if isinstance(reply, Map):
        return {_hashable(to_python(k)): to_python(v) for k, v in reply}
    if isinstance(reply, list):
        return [to_python(x) for x in reply]
    if isinstance(reply, (Status, Bulk, Verbatim)):
        return bytes(reply)
    if isinstance(reply, Int):
        return int(reply)
    if isinstance(reply, Bool):
        return reply.value
    if isinstance(reply, (Double, BigNumber)):
        return reply.raw.decode()
    return reply


def string_bytes(reply: object) -> bytes:
    """The bytes of a string reply (a Status, Bulk or Verbatim is a `bytes`): a key, a
    member, a field, a stream ID, where the server sends a string.

    Args:
        reply: one reply, or one element of an array reply.

    Returns:
        Its bytes, as `bytes(reply)` gives them.

    Raises:
        TypeError: the reply is no string (an integer, a nil, an array ...).
    """
    if isinstance(reply, bytes):
        return bytes(reply)
    raise TypeError(f"not a string reply: {reply!r}")


def flat_items(reply: Array | Map) -> list[Reply]:
    """An array's elements, or a map's keys and values in turn: RESP2's flat form of a
    reply of field/value pairs (HGETALL) whichever protocol sent it.

    Args:
        reply: an array or a map reply.

    Returns:
        Its elements, in server order.
    """
    if isinstance(reply, Map):
        return [x for pair in reply for x in pair]
    return list(reply)


def _hashable(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value
