"""The frames a subscribed or monitoring connection reads (engine/session.py's stream):
which kind each is, the subscriptions they count, and the sync token of Session.sync."""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.engine.catalogue import SUBSCRIBE_FAMILY
from playground.resp.replies import Array, Bulk, Push

MESSAGE_KINDS = (b"message", b"pmessage", b"smessage")


@dataclass
class Subscriptions:
    """A connection's subscriptions: channels, patterns, shard channels."""

    channels: set[bytes] = field(default_factory=set)
    patterns: set[bytes] = field(default_factory=set)
    shard: set[bytes] = field(default_factory=set)

    def total(self) -> int:
        """How many there are, of all three kinds (what the server counts)."""
        return len(self.channels) + len(self.patterns) + len(self.shard)


def frame_kind(frame: object) -> bytes | None:
    """A pub/sub frame's kind, its first element lowercased (b"message", a confirmation's command);
    None for anything else.

    Args:
        frame: a reply or push the connection read.
    """
    if isinstance(frame, (Array, Push)) and frame and isinstance(frame[0], Bulk):
        return bytes(frame[0]).lower()
    return None


def is_subscription_frame(frame: object) -> bool:
    """Whether `frame` confirms a (un)subscription.

    Args:
        frame: a reply or push the connection read.
    """
    return frame_kind(frame) in SUBSCRIBE_FAMILY   # (a confirmation is named as its command)


def sync_token(frame: object) -> bytes | None:
    """The token of Session.sync's PING in `frame` (its reply), else None.

    Args:
        frame: a reply or push the connection read.
    """
    if (isinstance(frame, Array) and len(frame) == 2 and frame_kind(frame) == b"pong"
            and isinstance(frame[1], bytes)):
        return bytes(frame[1])   # RESP2: ["pong", token]
    if isinstance(frame, Bulk):
        return bytes(frame)      # RESP3: the token itself
    return None
