"""MONITOR's output read line by line, as Redis 6/7 and Valkey write it (redis-cli
monitor prints it as it comes, after an `OK`):

    1796355203.029456 [0 127.0.0.1:39430] "SET" "counter" "10"
    1796355203.030652 [0 lua] "GET" "counter"
    1796355241.140759 [0 unix:/tmp/redis.sock] "PING"

The time (seconds and microseconds of the server's clock), the database, who sent it (an
address; `lua` for a command a script ran; a unix socket's clients all show the socket's
path: `unix:/path`, or `/path:0` on older servers) and every argument in double quotes,
escaped as the server's `sdscatrepr` escapes them: `\\"`, `\\\\`, `\\n`, `\\r`, `\\t`,
`\\a`, `\\b`, and `\\xHH` for any other byte that is not printable ASCII.

No I/O here but reading the stream it is given; one line at a time, so a capture of any
length takes the memory of its longest line (at most `MAX_LINE_BYTES`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from playground.i18n import tr

MAX_LINE_BYTES = 4 * 1024 * 1024
"""A longer line is refused: it could not go into a scenario file (at most 4 MB) anyway."""

_PREFIX = re.compile(rb"\+?(\d{1,12})\.(\d{1,6}) \[(\d{1,6}) (.+?)\] (?=\")")
_ARG = re.compile(rb'"((?:[^"\\]|\\(?:x[0-9a-fA-F]{2}|[\\"nrtab]))*)"')
_ESCAPE = re.compile(rb"\\(x[0-9a-fA-F]{2}|.)", re.DOTALL)
_SIMPLE = {b"\\": b"\\", b'"': b'"', b"n": b"\n", b"r": b"\r", b"t": b"\t", b"a": b"\a", b"b": b"\b"}
_REPLY_LINES = (b"OK", b"+OK")  # MONITOR's own reply, which redis-cli prints first
_UNIX_OLD = re.compile(r"/.*:0")


class MonitorFormatError(ValueError):
    """A line that is not MONITOR output; str() is one line that names the line number."""

    def __init__(self, number: int, message: str) -> None:
        super().__init__(tr("line {number}: {message}", number=number, message=message))
        self.number = number


@dataclass(frozen=True)
class CaptureLine:
    """One command as MONITOR printed it."""

    number: int                  # its line number in the file, from 1
    micros: int                  # the server's clock: microseconds since the epoch
    db: int                      # the database it ran in (a SELECT: the one it selected)
    source: str                  # the client's address, or "lua" for a script's own command
    argv: tuple[bytes, ...]

    @property
    def time(self) -> float:
        """Seconds since the epoch."""
        return self.micros / 1_000_000

    @property
    def lua(self) -> bool:
        """A command a script (EVAL, FCALL ...) ran, not a client."""
        return self.source == "lua"

    @property
    def unix(self) -> bool:
        """Sent over a unix socket: every client of the socket shows the same address."""
        return is_unix_address(self.source)

    @property
    def name(self) -> bytes:
        """The command's name, lower case."""
        return self.argv[0].lower()


def is_unix_address(source: str) -> bool:
    """`unix:/path` (Redis 6, 7, Valkey) or `/path:0` (older servers, and CLIENT LIST)."""
    return source.startswith("unix:") or bool(_UNIX_OLD.fullmatch(source))


def _unescape(body: bytes) -> bytes:
    if b"\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: bytes((int(m.group(1)[1:], 16),)) if m.group(1)[:1] == b"x"
                       else _SIMPLE[m.group(1)], body)


def _argument_problem(line: bytes, at: int) -> str:
    """Why the arguments cannot be read from offset `at` of `line` on (columns count from 1)."""
    if at >= len(line):
        return tr("truncated: the line ends after a space (column {column})", column=at + 1)
    if line[at:at + 1] != b'"':
        return tr("column {column}: expected a quoted argument, found {found!r}", column=at + 1,
                  found=line[at:at + 12].decode("utf-8", "replace"))
    i = at + 1
    while i < len(line):
        c = line[i:i + 1]
        if c == b'"':
            return tr("column {column}: expected a space between two arguments", column=i + 2)
        if c == b"\\":
            escape = line[i + 1:i + 2]
            if escape == b"x":
                if not re.fullmatch(rb"[0-9a-fA-F]{2}", line[i + 2:i + 4]):
                    if i + 4 > len(line):
                        break
                    return tr("column {column}: \\x needs two hex digits", column=i + 1)
                i += 4
                continue
            if not escape:
                break
            if escape not in _SIMPLE:
                return tr("column {column}: unknown escape \\{escape} (MONITOR writes \\\" \\\\ \\n \\r \\t "
                          "\\a \\b \\xHH)", column=i + 1, escape=escape.decode("utf-8", "replace"))
            i += 2
            continue
        i += 1
    return tr("truncated: the line ends inside a quoted argument (column {column})", column=at + 1)


def parse_monitor_line(raw: bytes, number: int) -> CaptureLine | None:
    """One line of a capture (without its line end); None for a line that holds no
    command (MONITOR's `OK`, a blank line). MonitorFormatError for anything else."""
    line = raw.rstrip(b"\r\n")
    if not line.strip() or line.strip() in _REPLY_LINES:
        return None
    head = _PREFIX.match(line)
    if head is None:
        raise MonitorFormatError(number, tr("not a MONITOR line (expected TIME [DB ADDRESS] \"COMMAND\" "
                                            "\"ARG\" ..., as redis-cli monitor prints): {start!r}",
                                            start=line[:40].decode("utf-8", "replace")))
    seconds, fraction, db, source = head.groups()
    argv: list[bytes] = []
    at = head.end()
    while True:
        arg = _ARG.match(line, at)
        if arg is None:
            raise MonitorFormatError(number, _argument_problem(line, at))
        argv.append(_unescape(arg.group(1)))
        at = arg.end()
        if at == len(line):
            break
        if line[at:at + 1] != b" ":
            raise MonitorFormatError(number, tr("column {column}: expected a space between two arguments",
                                                column=at + 1))
        at += 1
    micros = int(seconds) * 1_000_000 + int(fraction.ljust(6, b"0"))
    return CaptureLine(number, micros, int(db), source.decode("utf-8", "replace"), tuple(argv))


def read_monitor(stream: BinaryIO, on_bytes: Callable[[int], None] | None = None) -> Iterator[CaptureLine]:
    """Every command of a capture, in the order of the file (the server's order), one line
    at a time. `on_bytes` is told how many bytes each line took (a progress bar)."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise MonitorFormatError(number, tr("longer than {mb} MB: too long for a lesson",
                                                mb=MAX_LINE_BYTES // 2**20))
        if on_bytes is not None:
            on_bytes(len(raw))
        line = parse_monitor_line(raw, number)
        if line is not None:
            yield line
