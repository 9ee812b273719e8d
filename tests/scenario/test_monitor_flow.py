"""Written values as saved replies (scenario/monitor_flow.py): each guess is one the
runner's own substitution turns back into the captured bytes, or none is made."""

from __future__ import annotations

import pytest

from playground.scenario.monitor_flow import guess, save_name
from playground.scenario.substitution import fill_template


@pytest.mark.parametrize("written, value, template", [
    (b"11", "10", "${v+1}"),            # a bulk string read, an integer written
    (b"11", 10, "${v+1}"),              # an integer reply
    (b"10", "10", "${v}"),
    (b"9", "10", "${v-1}"),
    (b"-40", "10", "${v-50}"),
    (b"1000010", "10", "${v+1000000}"),
    (b"110", "10", "${v+100}"),         # a number read: plus 100, never "10" with "0" after it
    (b"a,b,c", "a,b", "${v},c"),
    (b"ada!", "ada", "${v}!"),
    (b"x$y", "x", "${v}$$y"),           # a $ after the value is written $$
    (b"ada", "ada", "${v}"),
    ("余额+1".encode(), "余额", "${v}+1"),
])
def test_a_guess_gives_back_the_captured_bytes(written, value, template):
    found = guess(written, value, "v")
    assert found is not None and found.template == template
    assert fill_template(found.template.encode(), {"v": value}) == written


@pytest.mark.parametrize("written, value", [
    (b"011", "10"),        # 10 + 1 is sent as 11, not 011
    (b"+11", "10"),
    (b"11.5", "10"),       # not an integer
    (b"105", "10.5"),      # a float read: only the same value
    (b"x", None),          # a nil read
    (b"", ""),
    (b"abc", "xyz"),
    (b"\xff", "\xff"),    # not UTF-8: written as captured
    (b"12345678901234567890", "1"),  # past a 64-bit integer
])
def test_no_guess_where_the_substitution_would_not_give_it_back(written, value):
    assert guess(written, value, "v") is None


def test_save_names_are_names_and_one_per_key():
    taken: dict[str, bytes] = {}
    assert save_name(b"counter", taken) == "counter"
    assert save_name(b"counter", taken) == "counter"
    assert save_name(b"balance:alice", taken) == "balance_alice"
    assert save_name(b"balance_alice", taken) == "balance_alice_2"
    assert save_name(b"123", taken) == "k_123"
    assert save_name(b"::", taken) == "value"
    assert save_name("余额".encode(), taken) == "value_2"
    assert len(save_name(b"x" * 100, taken)) == 32
