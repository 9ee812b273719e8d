"""The frames a subscribed or monitoring connection reads (engine/session.py's stream):
which kind each is, the subscriptions they count, and the sync token of Session.sync."""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.engine.catalogue import SUBSCRIBE_FAMILY
from playground.resp.replies import Array, Bulk, Push

MESSAGE_KINDS = (b"message", b"pmessage", b"smessage")


@dataclass
class Subscriptions:
    channels: set = field(default_factory=set)
    patterns: set = field(default_factory=set)
    shard: set = field(default_factory=set)

    def total(self) -> int:
        return len(self.channels) + len(self.patterns) + len(self.shard)


def frame_kind(frame) -> bytes | None:
    if isinstance(frame, (Array, Push)) and frame and isinstance(frame[0], Bulk):
        return bytes(frame[0]).lower()
    return None


def is_subscription_frame(frame) -> bool:
    return frame_kind(frame) in SUBSCRIBE_FAMILY   # (a confirmation is named as its command)


def sync_token(frame) -> bytes | None:
    if isinstance(frame, Array) and len(frame) == 2 and frame_kind(frame) == b"pong":
        return bytes(frame[1])   # RESP2: ["pong", token]
    if isinstance(frame, Bulk):
        return bytes(frame)      # RESP3: the token itself
    return None
