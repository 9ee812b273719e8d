"""The one escaping function (playground/visible.py) and the files it guards: every export
goes through `write_private`, so a transcript quoting a status or error reply with OSC 52
in it (which sets the clipboard of whoever `cat`s the file) or a title with ESC in it
reaches the file written out."""

from __future__ import annotations

import json

from playground.history import write_private
from playground.tui.plain_text import visible as widget_visible
from playground.visible import CONTROL, json_text, visible

OSC52 = "\x1b]52;c;ZXZpbA==\x07"


def test_every_control_character_is_written_out_but_those_kept():
    text = "a\x1b[2Jb\x07c\x9bd\x85e\x7ff\tg\nh\r"
    assert visible(text) == r"a\x1b[2Jb\x07c\x9bd\x85e\x7ff\tg\nh\r"
    assert visible(text, "\n\t") == "a\\x1b[2Jb\\x07c\\x9bd\\x85e\\x7ff\tg\nh\\r"
    assert visible("水 ok") == "水 ok"
    assert widget_visible is visible  # the TUI's is the same function


def test_json_text_keeps_the_values_with_no_raw_control_character():
    value = {"reply": f"(error) {OSC52} \x9b2J \x7f 水"}
    text = json_text(value)
    assert not CONTROL.search(text) and "水" in text
    assert json.loads(text) == value


def test_an_export_is_written_with_its_control_characters_written_out(tmp_path):
    from playground.tui.exports import session_markdown

    text = session_markdown([("A", 'EVAL "return redis.status_reply(ARGV[1])" 0 x', OSC52 + " ok\n")],
                            ["A", "B"], "Valkey")
    path = write_private(tmp_path / "session-transcript.md", text)
    written = path.read_text()
    assert not [c for c in CONTROL.findall(written) if c not in "\n\t"]
    assert r"\x1b]52;c;ZXZpbA==\x07 ok" in written
