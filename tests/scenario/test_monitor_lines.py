"""The MONITOR line reader (scenario/monitor_lines.py) on the format Redis 7.0 and Valkey
9 print (checked against real captures in tests/scenario/test_monitor_import.py): escapes,
addresses, and lines cut short, each refused in one line that names the line."""

from __future__ import annotations

import io
import random

import pytest

from playground.scenario import monitor_lines
from playground.scenario.monitor_lines import (
    MonitorFormatError,
    is_unix_address,
    parse_monitor_line,
    read_monitor,
)

HEAD = b'1796355203.029456 [0 127.0.0.1:39430] '


def sdscatrepr(data: bytes) -> bytes:
    """The server's own escaping of an argument (sds.c sdscatrepr), written out again."""
    out = bytearray(b'"')
    for byte in data:
        char = bytes((byte,))
        if char in b'\\"':
            out += b"\\" + char
        elif char in b"\n\r\t\a\b":
            out += {b"\n": b"\\n", b"\r": b"\\r", b"\t": b"\\t", b"\a": b"\\a", b"\b": b"\\b"}[char]
        elif 0x20 <= byte <= 0x7E:
            out += char
        else:
            out += b"\\x%02x" % byte
    return bytes(out + b'"')


def test_a_line_as_redis_and_valkey_print_it():
    line = parse_monitor_line(HEAD + b'"SET" "counter" "10"\n', 7)
    assert line.number == 7
    assert line.micros == 1796355203029456 and line.time == pytest.approx(1796355203.029456)
    assert (line.db, line.source, line.argv) == (0, "127.0.0.1:39430", (b"SET", b"counter", b"10"))
    assert not line.lua and not line.unix and line.name == b"set"


@pytest.mark.parametrize("escaped, raw", [
    (rb'"a\"b"', b'a"b'),
    (rb'"back\\slash"', b"back\\slash"),
    (rb'"\xff\xfe"', b"\xff\xfe"),
    (rb'"\x00"', b"\x00"),
    (rb'"\xe4\xbd\x99\xe9\xa2\x9d"', "余额".encode()),
    (rb'"line\nbreak\r\ttab\a\b"', b"line\nbreak\r\ttab\a\b"),
    (rb'"\\x41"', b"\\x41"),             # an escaped backslash, then plain text
    (rb'"\x41\""', b'A"'),
    (rb'""', b""),
    (rb'"a b  c"', b"a b  c"),
    (rb'"] \"x"', b'] "x'),
])
def test_escapes_read_back_to_the_bytes_sent(escaped, raw):
    line = parse_monitor_line(HEAD + b'"SET" "k" ' + escaped, 1)
    assert line.argv == (b"SET", b"k", raw)


def test_every_byte_string_reads_back_from_the_servers_escaping():
    rng = random.Random(47)
    for _ in range(300):
        argv = [bytes(rng.randrange(256) for _ in range(rng.randrange(12))) for _ in range(rng.randrange(1, 5))]
        line = parse_monitor_line(HEAD + b" ".join(sdscatrepr(a) for a in argv), 1)
        assert line.argv == tuple(argv)


@pytest.mark.parametrize("source, unix", [
    (b"lua", False), (b"127.0.0.1:6379", False), (b"[::1]:52044", False),
    (b"unix:/tmp/redis.sock", True), (b"unix:/tmp/my dir/redis.sock", True), (b"/tmp/redis.sock:0", True),
])
def test_addresses(source, unix):
    line = parse_monitor_line(b"1796355203.030652 [3 " + source + b'] "GET" "k"', 1)
    assert line.source == source.decode() and line.db == 3
    assert line.unix is unix and is_unix_address(line.source) is unix
    assert line.lua is (source == b"lua")


@pytest.mark.parametrize("text", [b"OK", b"+OK", b"", b"   ", b"OK\r\n"])
def test_lines_that_hold_no_command(text):
    assert parse_monitor_line(text, 1) is None


def test_crlf_and_the_plus_of_a_raw_status_line():
    line = parse_monitor_line(b"+" + HEAD + b'"PING"\r\n', 1)
    assert line.argv == (b"PING",)


@pytest.mark.parametrize("text, says", [
    (HEAD + b'"SET" "coun', "line 9: truncated: the line ends inside a quoted argument (column 45)"),
    (HEAD + b'"SET" "k" "a\\', "line 9: truncated: the line ends inside a quoted argument"),
    (HEAD + b'"SET" "k" "\\x4', "line 9: truncated: the line ends inside a quoted argument"),
    (HEAD + b'"SET" "k" ', "line 9: truncated: the line ends after a space"),
    (b"1796355203.02", "line 9: not a MONITOR line"),
    (b"1796355203.029456 [0 127.0.0.1:39", "line 9: not a MONITOR line"),
    (b"Error: Server closed the connection", "line 9: not a MONITOR line"),
    (HEAD + b'"SET" "a\\qb"', "line 9: column 47: unknown escape \\q"),
    (HEAD + b'"SET" "a\\x4g"', "line 9: column 47: \\x needs two hex digits"),
    (HEAD + b'"SET" "k"x', "line 9: column 48: expected a space between two arguments"),
    (HEAD + b'"SET" "k""v"', "line 9: column 48: expected a space between two arguments"),
    (HEAD + b'"SET" k "v"', "line 9: column 45: expected a quoted argument, found 'k \"v\"'"),
])
def test_bad_lines_say_where_in_one_line(text, says):
    with pytest.raises(MonitorFormatError) as caught:
        parse_monitor_line(text, 9)
    message = str(caught.value)
    assert message.startswith(says), message
    assert "\n" not in message and caught.value.number == 9


def test_the_reader_numbers_every_line_of_the_file_and_counts_its_bytes():
    data = b"OK\n" + HEAD + b'"GET" "a"\n\n' + HEAD + b'"GET" "b"\r\n' + HEAD + b'"GET" "c"'  # no final newline
    counted = []
    lines = list(read_monitor(io.BytesIO(data), counted.append))
    assert [(line.number, line.argv[1]) for line in lines] == [(2, b"a"), (4, b"b"), (5, b"c")]
    assert sum(counted) == len(data)


def test_the_reader_stops_at_the_first_bad_line_with_its_number():
    data = HEAD + b'"GET" "a"\n' + HEAD + b'"GET" "b\n' + HEAD + b'"GET" "c"\n'
    seen = []
    with pytest.raises(MonitorFormatError, match="^line 2: truncated"):
        for line in read_monitor(io.BytesIO(data)):
            seen.append(line.argv[1])
    assert seen == [b"a"]


def test_a_line_longer_than_a_lesson_may_be_is_refused_without_reading_it_whole(monkeypatch):
    monkeypatch.setattr(monitor_lines, "MAX_LINE_BYTES", 64)
    data = HEAD + b'"GET" "a"\n' + HEAD + b'"SET" "k" "' + b"x" * 500 + b'"\n'
    stream = io.BytesIO(data)
    with pytest.raises(MonitorFormatError, match="^line 2: longer than"):
        list(read_monitor(stream))
    assert stream.tell() < len(HEAD) * 2 + 100
