"""`repl`'s two outputs: stdout gets what redis-cli prints, as redis-cli writes it (what
it prints without fflush waits, and a clear-screen overtakes it); stderr gets what is
meant for a human. Which line's output comes when is cli/repl_lines.py's business."""

from __future__ import annotations

from collections.abc import Iterable
from typing import BinaryIO, TextIO

from playground.visible import visible

CLEAR_SCREEN = b"\x1b[H\x1b[2J"   # linenoiseClearScreen, written at once (not through stdio)
DIRECT = None  # (as `buffered`: written at once, as CLEAR_SCREEN is)


class OutputClosed(Exception):
    """stdout went away (`repl | head -1`): stop quietly."""


class ReplOutput:
    """stdout and stderr of one `repl`."""

    def __init__(self, out: BinaryIO, err: TextIO) -> None:
        self.out = out
        self.err = err
        self.unflushed: list[bytes | Iterable[bytes]] = []  # what redis-cli printed without fflush

    def write(self, data: bytes | Iterable[bytes], buffered: bool | None = False) -> None:
        """Write redis-cli's output: bytes, or an iterator of pieces (a big reply).

        Args:
            data: what redis-cli prints.
            buffered: True when redis-cli printed it without fflush (it waits in stdio's
                buffer, and a clear-screen overtakes it); DIRECT to write it at once,
                ahead of what waits.
        """
        if buffered is DIRECT:
            assert isinstance(data, bytes)
            self.write_direct(data)
            return
        if buffered:
            self.unflushed.append(data)
            return
        try:
            if self.unflushed:
                pending, self.unflushed = self.unflushed, []
                for piece in pending:
                    self._write(piece)
            self._write(data)
        except BrokenPipeError:
            raise OutputClosed() from None

    def _write(self, data: bytes | Iterable[bytes]) -> None:
        if isinstance(data, bytes):
            self.out.write(data)
        else:
            for piece in data:
                self.out.write(piece)

    def flush(self, everything: bool = False) -> None:
        """Hand what was written to the system (a settle point).

        Args:
            everything: also what redis-cli left unflushed (at its exit).
        """
        try:
            if everything and self.unflushed:
                self.write(b"")
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def write_direct(self, data: bytes) -> None:
        """Write `data` at once, ahead of what redis-cli left unflushed (a clear-screen)."""
        try:
            self.out.flush()
            self.out.write(data)
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def say(self, message: str) -> None:
        """One line for the human, on stderr: the app's own words (which may quote a server's
        error or a line typed), control characters written out (playground/visible.py)."""
        print(visible(message, "\n"), file=self.err, flush=True)
