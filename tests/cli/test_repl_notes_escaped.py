"""`repl`'s notes on stderr are the app's own words and may quote a line typed or a
server's error: their control characters are written out (playground/visible.py), while
stdout stays what redis-cli prints, byte for byte (an error reply's raw ESC included, as
redis-cli --no-raw prints it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.visible import CONTROL

pytestmark = [pytest.mark.server]

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_a_refusal_quoting_a_typed_escape_is_written_out_and_replies_stay_raw(private_server):
    lines = (b"A> CONFIG \x1b[2Jset x y\n"
             b"A> EVAL_RO \"return redis.error_reply('\\x1b]52;c;ZXZpbA==\\x07 boom')\" 0\n")
    env = dict(os.environ, PYTHONPATH=SRC)
    proc = subprocess.run([sys.executable, "-m", "playground", "--url", f"unix://{private_server.socket_path}",
                           "repl"], input=lines, capture_output=True, timeout=60, env=env, check=False)
    err = proc.stderr.decode()
    assert "refused: CONFIG \\x1b[2JSET" in err
    assert not [c for c in CONTROL.findall(err) if c != "\n"]
    assert b"(error) \x1b]52;c;ZXZpbA==\x07 boom\n" in proc.stdout  # as redis-cli prints it
