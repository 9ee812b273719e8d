"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

from playground.scenario.loader import load_scenario


def write(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return load_scenario(path)


LATE_PRODUCER = '''
title = "the producer is late"
lesson = "x"
[[steps]]
client = "A"
command = "BLPOP q 1"
blocking = true
[[steps]]
client = "A"
wait = true
[[steps]]
client = "B"
command = "RPUSH q job"
'''
