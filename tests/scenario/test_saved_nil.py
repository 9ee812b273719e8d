"""A saved nil stays nil: sent as nothing, alone or inside a saved array (an MGET of a
key that does not exist), never as Python's `None`. Checked on the server's own state."""

from __future__ import annotations

import pytest

from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.scenario.substitution import fill_template


def test_a_nil_inside_a_saved_array_is_sent_as_nothing():
    assert fill_template(b"${m}", {"m": ("1", None, "3")}) == b"1  3"
    assert fill_template(b"<${m}>", {"m": None}) == b"<>"
    assert b"None" not in fill_template(b"${m}", {"m": (None,)})


@pytest.mark.server
async def test_a_saved_mget_with_a_missing_key_writes_no_none(pg, tmp_path):
    path = tmp_path / "saved-nil.toml"
    path.write_text('title = "t"\nlesson = "x"\nsetup = ["SET a 1"]\n'
                    '[[steps]]\nclient = "A"\ncommand = "MGET a gone"\nsave = "m"\n'
                    '[[steps]]\nclient = "A"\ncommand = "SET seen ${m}"\n'
                    '[[steps]]\nclient = "A"\ncommand = "GET gone"\nsave = "g"\n'
                    '[[steps]]\nclient = "A"\ncommand = "SET alone x${g}x"\n')
    result = await Runner(pg).run(load_scenario(path))
    assert result.ok, result.error
    seen, alone = await pg.reader.run([[b"GET", b"seen"], [b"GET", b"alone"]])
    assert bytes(seen) == b"1 " and bytes(alone) == b"xx"
