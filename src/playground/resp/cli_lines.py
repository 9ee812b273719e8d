"""Split a typed command line exactly as redis-cli does.

A port of `sdssplitargs` (redis/redis `src/sds.c`) plus the repeat-count rule of
redis-cli's `repl()`, so a line means the same arguments here as in redis-cli.
"""

from __future__ import annotations

import re
from typing import NamedTuple

INVALID_ARGUMENTS = b"Invalid argument(s)\n"
INVALID_REPEAT = b"Invalid redis-cli repeat command option value.\n"

_C_SPACE = b" \t\n\v\f\r"           # isspace() in the C locale
_TOKEN_END = b" \n\r\t"             # what ends an unquoted token (and NUL)
_HEX = b"0123456789abcdefABCDEF"
_ESC = {ord("n"): 0x0A, ord("r"): 0x0D, ord("t"): 0x09, ord("b"): 0x08, ord("a"): 0x07}
_LONG_MAX = 2**63 - 1
_COUNT_START = b"0123456789+-" + _C_SPACE  # (b"" is in it too: an empty first word goes to strtol)
_DOUBLE_QUOTED_RUN = re.compile(rb'[^\\"]+')
_SINGLE_QUOTED_RUN = re.compile(rb"[^\\']+")
# Bytes that may stand anywhere in a line split by whitespace alone (bytes.split()
# splits on space, \t, \n, \r, \v, \f: \v and \f don't end an sdssplitargs token).
_PLAIN_TEXT = bytes(b for b in range(256) if b not in b"\"'\0\v\f")


class SplitError(ValueError):
    """Unbalanced quotes, or a closing quote not followed by a space."""


def split_args(line: bytes | str) -> list[bytes]:
    """`sdssplitargs`: the arguments of `line`, or SplitError where redis-cli says
    `Invalid argument(s)`.

    Args:
        line: the typed line (text is encoded as UTF-8).
    """
    if isinstance(line, str):
        line = line.encode("utf-8")
    if not line.translate(None, _PLAIN_TEXT):  # no quotes, NUL, \v or \f: plain words
        return line.split()
    # C strings end at the first NUL byte.
    nul = line.find(b"\0")
    if nul >= 0:
        line = line[:nul]
    n = len(line)
    p = 0
    args: list[bytes] = []
    while True:
        while p < n and line[p] in _C_SPACE:
            p += 1
        if p >= n:
            return args
        current = bytearray()
        p = _token(line, p, current)
        args.append(bytes(current))


def _token(line: bytes, p: int, current: bytearray) -> int:
    """One argument from `p` into `current`; where the next one may start. Unquoted bytes
    up to a space, or up to a quote: the quoted part then ends the argument."""
    n = len(line)
    while p < n:
        c = line[p]
        if c in _TOKEN_END:
            return p + 1
        if c == 0x22:
            return _double_quoted(line, p + 1, current)
        if c == 0x27:
            return _single_quoted(line, p + 1, current)
        current.append(c)
        p += 1
    return p + 1


def _double_quoted(line: bytes, p: int, current: bytearray) -> int:
    """A "..." part from just after its quote: escapes (\\n, \\x41, ...) decoded; the
    position after its closing quote, which must end the argument."""
    n = len(line)
    while True:
        run = _DOUBLE_QUOTED_RUN.match(line, p)
        if run:  # up to the next backslash or quote, at once
            current += run.group()
            p = run.end()
            continue
        c = line[p] if p < n else None
        nxt = line[p + 1] if p + 1 < n else None
        if (c == 0x5C and nxt == ord("x") and p + 3 < n
                and line[p + 2] in _HEX and line[p + 3] in _HEX):
            current.append(int(line[p + 2:p + 4], 16))
            p += 4
        elif c == 0x5C and nxt is not None:
            current.append(_ESC.get(nxt, nxt))
            p += 2
        elif c == 0x22:
            if nxt is not None and nxt not in _C_SPACE:
                raise SplitError(line)
            return p + 1
        elif c is None:
            raise SplitError(line)
        else:  # a backslash at the very end: kept, and the quote is unbalanced
            current.append(c)
            p += 1


def _single_quoted(line: bytes, p: int, current: bytearray) -> int:
    """A '...' part from just after its quote: only \\' is an escape; the position after
    its closing quote, which must end the argument."""
    n = len(line)
    while True:
        run = _SINGLE_QUOTED_RUN.match(line, p)
        if run:
            current += run.group()
            p = run.end()
            continue
        c = line[p] if p < n else None
        nxt = line[p + 1] if p + 1 < n else None
        if c == 0x5C and nxt == 0x27:
            current.append(0x27)
            p += 2
        elif c == 0x27:
            if nxt is not None and nxt not in _C_SPACE:
                raise SplitError(line)
            return p + 1
        elif c is None:
            raise SplitError(line)
        else:
            current.append(c)
            p += 1


class CommandLine(NamedTuple):
    """One typed line: the command's arguments and how many times to send it."""

    argv: list[bytes]
    repeat: int = 1
    counted: bool = False  # the line began with a count: redis-cli's own words then go to the server


class RepeatError(ValueError):
    """A leading count that is zero, negative or out of range."""


def _strtol(text: bytes) -> tuple[int, bool]:
    """C's strtol(s, &end, 10): (value, whole string consumed); ERANGE raises."""
    s = text.lstrip(_C_SPACE)
    i = 0
    if i < len(s) and s[i:i + 1] in (b"+", b"-"):
        i += 1
    start = i
    while i < len(s) and 0x30 <= s[i] <= 0x39:
        i += 1
    if i == start:  # no digits: nothing converted, end pointer at the start
        return 0, len(text) == 0
    value = int(s[:i])
    if not -_LONG_MAX - 1 <= value <= _LONG_MAX:
        raise RepeatError(text)
    return value, i == len(s)


def parse_line(line: bytes | str) -> CommandLine | None:
    """A typed line as redis-cli reads it: None for a blank line, SplitError for bad
    quoting, RepeatError for a bad leading count (`3 INCR n` sends INCR three times)."""
    argv = split_args(line)
    if not argv:
        return None
    if len(argv) > 1 and argv[0][:1] in _COUNT_START:
        value, whole = _strtol(argv[0])
        if whole:
            if value <= 0:
                raise RepeatError(argv[0])
            return CommandLine(argv[1:], value, counted=True)
    return CommandLine(argv)


def quote_arg(arg: bytes) -> str:
    """One argument as a user would type it: bare when safe, else sdscatrepr-quoted."""
    if arg and all(0x21 <= b <= 0x7E and b not in b"\"'\\" for b in arg):
        return arg.decode("ascii")
    try:  # UTF-8 text (余额, 😀) stays readable: sdssplitargs takes it bare
        text = arg.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text and all(c.isprintable() and not c.isspace() and c not in "\"'\\" for c in text):
        return text
    from playground.resp.cli_format import repr_bytes

    return repr_bytes(arg).decode("ascii")


def format_argv(argv: list[bytes]) -> str:
    """A command line that `split_args` turns back into `argv`."""
    return " ".join(quote_arg(a) for a in argv)
