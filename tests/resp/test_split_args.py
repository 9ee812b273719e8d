"""Command-line splitting, rule by rule as redis-cli's sdssplitargs does it."""

import pytest

from playground.resp.cli_lines import (
    CommandLine, RepeatError, SplitError, format_argv, parse_line, split_args,
)


@pytest.mark.parametrize("line, expected", [
    ("SET a b", [b"SET", b"a", b"b"]),
    ("  SET   a\tb  ", [b"SET", b"a", b"b"]),
    ('SET k "a b"', [b"SET", b"k", b"a b"]),
    ('"\\x41\\x4a\\x7e"', [b"AJ~"]),
    ('"\\x4"', [b"x4"]),                      # not two hex digits: \x is just x
    ('"\\xzz"', [b"xzz"]),
    ('"\\n\\r\\t\\b\\a\\\\\\"\\q"', [b"\n\r\t\b\a\\\"q"]),
    ("'it\\'s'", [b"it's"]),
    ("'a\\nb'", [b"a\\nb"]),                   # single quotes: only \' is special
    ('foo"bar baz"', [b"foobar baz"]),         # a quoted part inside a token
    ("foo'bar baz' x", [b"foobar baz", b"x"]),
    ('""', [b""]),
    ("''", [b""]),
    ('GET ""', [b"GET", b""]),
    ("", []),
    ("   \t ", []),
    ("h\xe9llo", ["h\xe9llo".encode()]),
    ("a\x0bb", [b"a\x0bb"]),                  # \v separates only between tokens
    ("\x0bGET", [b"GET"]),
])
def test_split(line, expected):
    assert split_args(line) == expected


@pytest.mark.parametrize("line", ['"a"b', "'a'b", '"abc', "'abc", 'SET k "x', '"a\\"'])
def test_invalid(line):
    with pytest.raises(SplitError):
        split_args(line)


def test_bytes_in_quotes_are_kept():
    assert split_args(b'SET k "\\x00\\xff"') == [b"SET", b"k", b"\x00\xff"]


def test_line_stops_at_nul_like_a_c_string():
    assert split_args(b"GET a\x00 b") == [b"GET", b"a"]


@pytest.mark.parametrize("line, repeat, argv", [
    ("3 INCR n", 3, [b"INCR", b"n"]),
    ("+2 INCR n", 2, [b"INCR", b"n"]),
    ('" 2" INCR n', 2, [b"INCR", b"n"]),
    ("3", 1, [b"3"]),                      # a lone number is a command
    ("2x INCR n", 1, [b"2x", b"INCR", b"n"]),
])
def test_repeat(line, repeat, argv):
    # `counted`: the line had a count, so redis-cli's own words (help, clear, quit) go to the server
    assert parse_line(line) == CommandLine(argv, repeat, counted=len(line.split()) > len(argv))


@pytest.mark.parametrize("line", ["0 INCR n", "-1 INCR n", '"" INCR n', "99999999999999999999 PING"])
def test_bad_repeat(line):
    with pytest.raises(RepeatError):
        parse_line(line)


def test_blank_line_is_none():
    assert parse_line("   ") is None


@pytest.mark.parametrize("argv", [
    [b"SET", b"k", b"a b"], [b"SET", b""], [b"x\x00\xff\"'\\"], [b"GET", b"caf\xc3\xa9"],
])
def test_format_argv_round_trips(argv):
    assert split_args(format_argv(argv)) == argv


def test_utf8_arguments_are_shown_bare_and_split_back_the_same():
    argv = [b"SET", "余额".encode(), "😀".encode(), "a b".encode(), b"\xff"]
    line = format_argv(argv)
    assert line.startswith("SET 余额 😀 ") and '"a b"' in line and '"\\xff"' in line
    assert split_args(line) == argv
