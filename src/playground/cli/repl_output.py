"""`repl`'s output: what redis-cli prints, on stdout in the order redis-cli prints it (a
client's lines in their order, each line's output held until the lines before it are
printed: cli/repl.py), and what is meant for a human on stderr."""

from __future__ import annotations

from playground.engine import events as ev
from playground.resp.replies import Push
from playground.visible import visible

CLEAR_SCREEN = b"\x1b[H\x1b[2J"   # linenoiseClearScreen, written at once (not through stdio)
DIRECT = None  # (as `buffered` of held output: written at once, as CLEAR_SCREEN is)


class OutputClosed(Exception):
    """stdout went away (`repl | head -1`): stop quietly."""


class ReplOutput:
    """The part of `Repl` (cli/repl.py) that writes."""

    def write(self, data, buffered: bool = False) -> None:
        """Write redis-cli's output: bytes, or an iterator of pieces (a big reply).

        `buffered`: redis-cli printed it without fflush, so it waits in stdio's buffer
        and the clear-screen sequence (a direct write) overtakes it."""
        if buffered:
            self.unflushed.append(data)
            return
        try:
            if self.unflushed:
                pending, self.unflushed = self.unflushed, []
                for piece in pending:
                    self.out.write(piece)
            if isinstance(data, bytes):
                self.out.write(data)
            else:
                for piece in data:
                    self.out.write(piece)
        except BrokenPipeError:
            raise OutputClosed() from None

    def flush(self, everything: bool = False) -> None:
        try:
            if everything and self.unflushed:
                self.write(b"")
            self.out.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def write_direct(self, data: bytes) -> None:
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

    def _on_event(self, event: ev.Event) -> None:
        client = event.client
        line = self.running.get(client)
        if line is not None and not any(held is line for held in self.lines[client]):
            line = None  # printed already (its worker has not cleared `running` yet): what comes now is not its
        if isinstance(event, ev.Message):
            if isinstance(event.frame, Push) and not self.pg.sessions[client].streaming:
                # a push between replies (client tracking): piped redis-cli hides it
                # unless --show-pushes yes, and prints it where it reads it: before the
                # reply of the command it was reading for
                if self.show_pushes:
                    self._out(line, event.output)
                return
            self.last_reply[client] = event.frame
            if line is not None:  # the running line's own frames (its confirmations), in order
                line.held.append((event.output, False))
            else:
                self.stream_held[client].append(event.output)
        elif isinstance(event, ev.Reply):
            self.last_reply[client] = event.reply
            self._out(line, event.output)
        elif isinstance(event, ev.Output):
            self._out(line, event.output, event.buffered)
        elif isinstance(event, ev.Cleared):
            self._out(line, CLEAR_SCREEN, DIRECT)
        elif isinstance(event, ev.Notice):
            self.say(event.text)

    def _out(self, line, output, buffered: bool | None = False) -> None:
        if line is not None:
            line.held.append((output, buffered))
        elif buffered is DIRECT:
            self.write_direct(output)
        else:
            self.write(output, buffered)

    def _print_done(self, name: str) -> None:
        """Print the finished lines of client `name`, oldest first, and what the first
        one still running has printed so far (`2 BLPOP`'s first reply, before it blocks
        again): a client's output keeps the order of its lines."""
        lines = self.lines[name]
        while lines:
            line = lines[0]
            held, line.held = line.held, []
            for data, buffered in held:
                self._out(None, data, buffered)
            if not line.done:
                return
            lines.pop(0)

    def _flush_stream(self, name: str) -> None:
        held = self.stream_held[name]
        while held:
            self.write(held.pop(0))
