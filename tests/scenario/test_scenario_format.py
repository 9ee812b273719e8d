"""Every kind of mistake in a scenario file gives one line naming the file, the step
and the field (and TOML's line); never a traceback."""

import subprocess
import sys
from pathlib import Path

import pytest

from playground.scenario.model import ScenarioError, script_sha
from playground.scenario.loader import load_scenario

GOOD = '''
title = "t"
lesson = "l"
[[steps]]
client = "A"
command = "PING"
reply = "PONG"
'''


def write(tmp_path: Path, text: str, name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(tmp_path, text) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(tmp_path / "bad.toml") + ": ")
    return message


def test_good_file_loads(tmp_path):
    s = load_scenario(write(tmp_path, GOOD, "mine.toml"))
    assert s.id == "mine" and s.steps[0].argv == (b"PING",) and s.steps[0].reply == "PONG"


@pytest.mark.parametrize("text, expected", [
    ("title = \n", "not valid TOML"),
    (GOOD.replace('reply = "PONG"', 'reply = "PONG"\nexpect = "x"'), "step 1: expect: unknown field"),
    (GOOD.replace('title = "t"', ""), "title: missing"),
    (GOOD.replace('client = "A"', 'client = "C"'), "step 1: client: unknown client 'C'"),
    (GOOD.replace('client = "A"\n', ""), "step 1: client: missing"),
    (GOOD.replace('command = "PING"', 'command = "EVAL $nope 0"'), "step 1: command: unknown script $nope"),
    (GOOD.replace('command = "PING"', 'command = "SET k \\"x"'), "step 1: command: 'SET k \"x': Invalid argument(s)"),
    (GOOD.replace('command = "PING"', "command = 5"), "step 1: command: text, or a list of arguments"),
    (GOOD + '[steps.state]\nk = { ttl = "soon" }\n', "step 1: state.k: ttl: seconds"),
    (GOOD + '[steps.state]\nk = { colour = "red" }\n', "step 1: state.k.colour: unknown field"),
    (GOOD + '[steps.state]\nk = 5\n', "step 1: state.k: text (the string value) or a table"),
    (GOOD + '[steps.state]\nk = { absent = true, value = "x" }\n', "absent = true cannot be combined"),
    (GOOD + '[steps.predict]\nquestion = "q"\nchoices = ["a", "b"]\nanswer = 3\nexplain = "e"\n',
     "step 1: predict.answer: answer 3"),
    (GOOD + '[steps.predict]\nquestion = "q"\nchoices = ["a"]\nanswer = 1\nexplain = "e"\n',
     "predict.choices: at least two"),
    (GOOD.replace('reply = "PONG"', 'reply = "PONG"\nmatch = "P"'),
     "reply is the whole reply: use it alone, or error and/or match"),
    (GOOD.replace('reply = "PONG"', 'match = "("'), "match: bad regular expression"),
    (GOOD + '[[steps]]\nclient = "A"\nwait = true\n', "step 2: wait: client A has no blocking step"),
    (GOOD.replace('reply = "PONG"', 'blocking = true') + '[[steps]]\nclient = "A"\ncommand = "PING"\n',
     "step 2: client: client A is still blocked"),
    (GOOD + '[requires]\nflavour = "keydb"\n', "requires: flavour"),
    ('title = "t"\nlesson = "l"\n', "steps: at least one"),
    (GOOD.replace('command = "PING"', 'command = "3 INCR n"'), "repeat counts are not for scenarios"),
    (GOOD.replace('reply = "PONG"', 'sleep = 99'), "sleep: seconds to wait"),
])
def test_mistakes(tmp_path, text, expected):
    assert expected in error_of(tmp_path, text)


def test_toml_error_names_the_line(tmp_path):
    message = error_of(tmp_path, GOOD + "\n[[steps]\n")
    assert "line 9" in message


def test_parts_name_the_part(tmp_path):
    text = '''title = "t"
lesson = "l"
[[parts]]
name = "naive"
[[parts.steps]]
client = "Z"
command = "PING"
'''
    assert "part 'naive': step 1: client" in error_of(tmp_path, text)


def test_not_utf8_and_missing(tmp_path):
    (tmp_path / "bad.toml").write_bytes(b"title = \"\xff\"\n")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_scenario(tmp_path / "bad.toml")
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "missing.toml")


def test_scripts_are_substituted_by_name(tmp_path):
    text = '''title = "t"
lesson = "l"
[scripts]
one = """
return 1
"""
[[steps]]
client = "A"
command = "EVAL $one 0"
[[steps]]
client = "A"
command = ["EVALSHA", "$one.sha", "0"]
reply = "(integer) 1"
'''
    s = load_scenario(write(tmp_path, text))
    assert s.steps[0].argv == (b"EVAL", b"return 1\n", b"0")
    assert s.steps[1].argv == (b"EVALSHA", script_sha(s.scripts["one"]).encode(), b"0")


def test_cli_reports_bad_file_in_one_line(tmp_path):
    path = write(tmp_path, GOOD.replace('client = "A"', 'client = "Q"'))
    result = subprocess.run([sys.executable, "-m", "playground", "run", str(path), "--server", "bundled"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "step 1: client" in lines[0] and "Traceback" not in result.stderr


@pytest.mark.parametrize("text, expected", [
    (GOOD.replace('reply = "PONG"', 'when = "n > 0"'),
     "step 1: when: column 1: 'n' is not saved by an earlier step of client A"),
    (GOOD.replace('reply = "PONG"', 'save = "a b"'), "step 1: save: a name"),
    (GOOD + '[[steps]]\nclient = "A"\ncommand = "PING"\nwhen = "n >> 0"\n',
     "step 2: when: column 4: expected a value after '>' (a saved name, nil, a number or \"text\"), found '>'"),
    (GOOD + '[challenge]\ngoal = "g"\n', "challenge.state: missing"),
    (GOOD + '[challenge]\ngoal = "g"\npart = 3\n[challenge.state]\nk = "v"\n', "challenge.part: part 3"),
])
def test_challenge_and_template_mistakes(tmp_path, text, expected):
    assert expected in error_of(tmp_path, text)


def test_saved_names_are_per_client(tmp_path):
    text = GOOD.replace('reply = "PONG"', 'save = "n"') + '[[steps]]\nclient = "B"\ncommand = "SET k {n}"\n'
    s = load_scenario(write(tmp_path, text))
    assert not s.steps[1].template  # B saved nothing called n: the braces are a hash tag
    assert s.steps[1].argv == (b"SET", b"k", b"{n}")
    text = GOOD.replace('reply = "PONG"', 'save = "n"') + '[[steps]]\nclient = "A"\ncommand = "SET k ${n+1}"\n'
    assert load_scenario(write(tmp_path, text)).steps[1].template
