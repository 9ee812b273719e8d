"""A lesson's Lua scripts may carry translated comments (`[scripts_zh]`, issue 28): only the
`--` comments may differ from the English script; the language shown picks the script."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.scenario.library import bundled_dir
from playground.scenario.loader import load_scenario
from playground.scenario.model import ScenarioError
from playground.scenario.script_translations import code_of

LESSON = 'title = "t"\nlesson = "l"\n\n[[steps]]\nclient = "A"\ncommand = "EVAL $s 0"\n\n'


def test_the_code_of_a_script_leaves_out_comments_but_not_dashes_in_strings():
    assert code_of("-- note\nreturn '--x' -- why\n\n  \nreturn \"a\\\"--\" --y") == [
        "return '--x'", 'return "a\\"--"']


def test_a_lesson_shows_its_script_with_the_comments_of_its_language():
    path = bundled_dir() / "refresh-double-spend.toml"
    english, chinese = load_scenario(path), load_scenario(path, "zh")
    assert "-- KEYS: old token" in english.scripts["rotate"]
    assert "-- KEYS：旧令牌" in chinese.scripts["rotate"] and "old token" not in chinese.scripts["rotate"]
    assert code_of(english.scripts["rotate"]) == code_of(chinese.scripts["rotate"])


@pytest.mark.parametrize("translated, message", [
    ('s = "return 2 -- 二"', "differs from the English script"),
    ('t = "return 1"', "no such script"),
    ('s = 1', "lua source"),
])
def test_a_translation_that_changes_the_code_is_refused(tmp_path: Path, translated, message):
    path = tmp_path / "x.toml"
    path.write_text(LESSON + '[scripts]\ns = "return 1 -- one"\n\n[scripts_zh]\n' + translated + "\n")
    for lang in ("en", "zh"):  # checked whatever the language shown (check catches it in English)
        with pytest.raises(ScenarioError, match=message) as error:
            load_scenario(path, lang)
        assert "scripts_zh" in str(error.value)


def test_a_good_translation_is_used_only_in_its_language(tmp_path: Path):
    path = tmp_path / "x.toml"
    path.write_text(LESSON + '[scripts]\ns = "return 1 -- one"\n\n[scripts_zh]\ns = "return 1 -- 一"\n')
    assert load_scenario(path).scripts["s"] == "return 1 -- one"
    assert load_scenario(path, "zh").scripts["s"] == "return 1 -- 一"
