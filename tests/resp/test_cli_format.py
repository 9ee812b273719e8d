"""Rendering rules of redis-cli's cliFormatReplyTTY/Raw, on hand-built typed replies.

The golden tests check the same rules against the real redis-cli; these pin each rule
down on its own, including types redis-cli 7.0 cannot print (big numbers).
"""

from playground.resp.cli_format import format_raw, format_tty, render, repr_bytes
from playground.resp.replies import (
    Array, BigNumber, Bool, Bulk, Double, Err, Int, Map, Nil, Push, Set, Status, Verbatim,
)


def test_scalars():
    assert format_tty(Status(b"OK")) == b"OK\n"
    assert format_tty(Bulk(b"OK")) == b'"OK"\n'
    assert format_tty(Int(-5)) == b"(integer) -5\n"
    assert format_tty(Nil) == b"(nil)\n"
    assert format_tty(Err(b"ERR boom")) == b"(error) ERR boom\n"
    assert format_tty(Double(b"1.5")) == b"(double) 1.5\n"
    assert format_tty(Double(b"inf")) == b"(double) inf\n"
    assert format_tty(Bool(True)) == b"(true)\n"
    assert format_tty(Bool(False)) == b"(false)\n"
    assert format_tty(BigNumber(b"12345678901234567890")) == b"(big number) 12345678901234567890\n"
    assert format_tty(Verbatim(b"raw\ntext", b"txt")) == b"raw\ntext\n"


def test_repr_escapes_like_sdscatrepr():
    assert repr_bytes(b'\\"\n\r\t\a\b') == b'"\\\\\\"\\n\\r\\t\\a\\b"'
    assert repr_bytes(b"\x00\x1f\x7f\x80\xff") == b'"\\x00\\x1f\\x7f\\x80\\xff"'
    assert repr_bytes(b" ~") == b'" ~"'
    assert repr_bytes("é".encode()) == b'"\\xc3\\xa9"'


def test_empty_aggregates():
    assert format_tty(Array()) == b"(empty array)\n"
    assert format_tty(Map()) == b"(empty hash)\n"
    assert format_tty(Set()) == b"(empty set)\n"
    assert format_tty(Push()) == b"(empty push)\n"


def test_index_width_and_nesting():
    ten = Array(Int(i) for i in range(10))
    out = format_tty(ten).decode()
    assert out.splitlines()[0] == " 1) (integer) 0"
    assert out.splitlines()[9] == "10) (integer) 9"
    nested = Array([Array([Bulk(b"a"), Array([])]), Bulk(b"b")])
    assert format_tty(nested) == b'1) 1) "a"\n   2) (empty array)\n2) "b"\n'
    wide = Array([Array([Int(i) for i in range(10)])])
    lines = format_tty(wide).decode().splitlines()
    assert lines[0] == "1)  1) (integer) 0"
    assert lines[9] == "   10) (integer) 9"


def test_map_and_set_separators():
    m = Map([(Bulk(b"f"), Bulk(b"v")), (Bulk(b"g"), Int(2))])
    assert format_tty(m) == b'1# "f" => "v"\n2# "g" => (integer) 2\n'
    s = Set([Bulk(b"x"), Bulk(b"y")])
    assert format_tty(s) == b'1~ "x"\n2~ "y"\n'


def test_map_multiline_value_starts_on_next_line():
    m = Map([(Bulk(b"a"), Array([Int(1), Int(2)]))])
    assert format_tty(m) == b'1# "a" => \n   1) (integer) 1\n   2) (integer) 2\n'
    single = Map([(Bulk(b"a"), Array([Int(1)]))])
    assert format_tty(single) == b'1# "a" => 1) (integer) 1\n'


def test_error_inside_array():
    assert format_tty(Array([Status(b"OK"), Err(b"WRONGTYPE x")])) == b"1) OK\n2) (error) WRONGTYPE x\n"


def test_raw_commands():
    info = Bulk(b"# Server\r\nredis_version:7.0.15\r\n")
    assert render(info, [b"INFO"]) == bytes(info)
    assert render(info, [b"GET", b"k"]) == b'"# Server\\r\\nredis_version:7.0.15\\r\\n"\n'
    assert render(Bulk(b""), [b"client", b"LIST"]) == b""
    assert format_raw(Array([Bulk(b"a"), Int(1), Nil])) == b"a\n1\n"
    assert format_raw(Map([(Bulk(b"k"), Bulk(b"v"))])) == b"k v"
    assert render(Err(b"ERR x"), [b"INFO"]) == b"ERR x\n"


def test_status_stops_at_nul():
    assert format_tty(Status(b"A\x00B")) == b"A\n"
