"""What a tab types, on its way from the page to its app (serve's relay, cli/web_server.py).

- **Alt keys.** The page sends a key with Alt (Option on a Mac) as ESC and the key ("\\x1bw"),
  as a terminal does. Textual reads ESC + letter as Alt+letter only once no more input
  follows within its escape delay; in a burst (Alt+W three times: "\\x1bw\\x1bw\\x1bw"), each
  ESC is read as the end of the sequence before it, and the app typed "^w". A frame that is
  exactly ESC and one character is sent to the app as the same key in the keyboard protocol
  Textual reads at once, whatever follows (CSI codepoint;3 u: alt+w).
- **Pending input.** A browser sends one frame per key, and a paste as one bracketed frame;
  a frame of thousands of characters that is not a paste is no typing (125 of 4,000 grew an
  app to 1.85 GB, a key event each, and its pane never answered): it reaches the app as one
  paste. And a tab sends at most BURST characters ahead of RATE a second (a paste of a long
  script fits); past that its input is dropped and the tab is told (`TabInput.admit`).
- **Floods.** More than FLOOD_BURST messages ahead of FLOOD_RATE a second (keys, mouse
  moves and resizes together: a page sends tens a second at most) closes the websocket
  with FLOODED.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
PASTE_FROM = 1024  # characters in one frame from which a frame that is no paste is sent as one
BURST = 256 * 1024  # characters a tab may send ahead (a paste of a long script)
RATE = 32 * 1024  # characters a second it may go on sending after that
FLOOD_BURST = 2000  # messages a tab may send ahead …
FLOOD_RATE = 500  # … and a second after that
FLOODED = 1008  # websocket close code: policy violation (RFC 6455), too many messages


def alt_key(data: str) -> str:
    """A frame of ESC and one character (Alt with a key) as Textual's keyboard protocol
    (read at once, not after the escape delay), else the frame as it is.

    Args:
        data: the frame's keys, as the page sent them.
    """
    if len(data) == 2 and data[0] == "\x1b" and data[1] != "\x1b" and (data[1].isprintable() or data[1] == "\x7f"):
        return f"\x1b[{ord(data[1])};3u"
    return data


def as_paste(data: str) -> str:
    """A long frame that is no bracketed paste, as one (module note)."""
    if len(data) >= PASTE_FROM and not data.startswith(PASTE_START):
        return PASTE_START + data.replace(PASTE_END, "") + PASTE_END
    return data


class Bucket:
    """At most `burst` ahead, then `rate` a second (a token bucket)."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self.left = float(burst)
        self.at = clock()

    def take(self, amount: float) -> bool:
        """Whether `amount` fits now (then it is taken)."""
        now = self.clock()
        self.left = min(self.burst, self.left + (now - self.at) * self.rate)
        self.at = now
        if amount > self.left:
            return False
        self.left -= amount
        return True


class TabInput:
    """One tab's input on its way to its app."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        """Args:
            clock: seconds, monotonic (tests give their own).
        """
        self.characters = Bucket(BURST, RATE, clock)
        self.messages = Bucket(FLOOD_BURST, FLOOD_RATE, clock)
        self.dropped = 0  # characters dropped so far

    def flooded(self) -> bool:
        """One more message from the tab: True once it sends more than a page does."""
        return not self.messages.take(1)

    def admit(self, data: str) -> str | None:
        """The keys for the app (Alt keys and long frames made what Textual reads at once),
        or None: past the tab's pending input, dropped (counted in `dropped`).

        Args:
            data: a "stdin" message's text.
        """
        if not self.characters.take(len(data)):
            self.dropped += len(data)
            return None
        return as_paste(alt_key(data))
