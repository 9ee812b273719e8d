"""`list`, `run` and `check` write a scenario's words and the server's replies with their
control characters written out (playground/visible.py, the one escaping function): a
title, lesson, tag or narration with ESC, BEL or C1 in it, or a status or error reply
carrying OSC 52 (which writes the clipboard), no longer drives the terminal. JSON keeps
the values as they are, with no raw control character."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from playground.visible import CONTROL

pytestmark = [pytest.mark.server]

SRC = str(Path(__file__).resolve().parents[2] / "src")

EVIL = r'''
title = "evil \u001b]0;pwned\u0007 title \u009b2J"
lesson = "lesson \u001b[2J cleared"
tags = ["race", "x\u001b[31mred"]
setup = ["SET k 1"]

[[steps]]
client = "A"
command = "GET k"
reply = '"1"'
narration = "narration \u001b]52;c;ZXZpbA==\u0007 \u0085 next"

[[steps]]
client = "B"
command = "EVAL \"return redis.error_reply('\\x1b]52;c;ZXZpbA==\\x07 boom')\" 0"

[[steps]]
client = "B"
command = "EVAL \"return redis.status_reply('\\x1b]0;title\\x07 ok')\" 0"
reply = "OK"
'''


@pytest.fixture
def evil(tmp_path) -> Path:
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "evil.toml").write_text(EVIL)
    return folder


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC, LANG="C.UTF-8")
    env.pop("REDIS_PLAYGROUND_SERVER", None)
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=120, env=env, check=False)


def _raw_controls(text: str) -> list[str]:
    return [c for c in CONTROL.findall(text) if c not in "\n"]


def test_list_writes_out_the_control_characters_of_titles_and_tags(evil):
    proc = _cli("--scenarios", str(evil), "list")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("evil"))
    assert _raw_controls(proc.stdout) == []
    assert r"evil \x1b]0;pwned\x07 title \x9b2J" in line and r"x\x1b[31mred" in line


def test_run_writes_out_the_control_characters_of_texts_and_replies(evil, server_binary):
    proc = _cli("run", str(evil / "evil.toml"), "--server", server_binary.path)
    assert proc.returncode == 1, proc.stderr  # the status reply is not OK: one check fails
    assert _raw_controls(proc.stdout + proc.stderr) == []
    out = proc.stdout
    assert r"evil \x1b]0;pwned\x07 title \x9b2J" in out and r"lesson \x1b[2J cleared" in out
    assert r"narration \x1b]52;c;ZXZpbA==\x07 \x85 next" in out
    assert r"(error) \x1b]52;c;ZXZpbA==\x07 boom" in out and r"\x1b]0;title\x07 ok" in out


def test_run_markdown_writes_them_out_and_json_keeps_the_values(evil, server_binary):
    proc = _cli("run", str(evil / "evil.toml"), "--server", server_binary.path, "--format", "markdown")
    assert _raw_controls(proc.stdout) == [] and r"\x1b]52;c;ZXZpbA==\x07 boom" in proc.stdout
    proc = _cli("run", str(evil / "evil.toml"), "--server", server_binary.path, "--format", "json")
    assert _raw_controls(proc.stdout) == []
    steps = [json.loads(line) for line in proc.stdout.splitlines()]
    assert steps[1]["reply"] == "(error) \x1b]52;c;ZXZpbA==\x07 boom\n"  # the value, as the server sent it
    assert steps[2]["reply"] == "\x1b]0;title\x07 ok\n"


def test_check_writes_out_the_control_characters_of_a_failed_reply(evil, server_binary):
    proc = _cli("check", str(evil), "--server", server_binary.path)
    assert proc.returncode == 1
    assert _raw_controls(proc.stdout + proc.stderr) == []
    assert r"\x1b]0;title\x07 ok" in proc.stdout
