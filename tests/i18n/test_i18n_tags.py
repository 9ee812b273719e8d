"""Lesson tags are shown in the interface's language (issue 28): a vocabulary in the
catalogue (context "lesson tag"), every tag of the bundled lessons in it, a teacher's own
tag shown as written; `list` shows them, the lesson list's search finds either name."""

from __future__ import annotations

import os
import subprocess
import sys

from playground.i18n import set_language, trp_in
from playground.scenario.library import scenario_files
from playground.scenario.loader import load_scenario
from playground.scenario.tags import VOCABULARY, tag_name, tag_names


def test_every_tag_of_the_bundled_lessons_is_in_the_vocabulary():
    used = {tag for path in scenario_files() for tag in load_scenario(path).tags} | {"recorded"}
    assert used and not used - set(VOCABULARY), sorted(used - set(VOCABULARY))


def test_a_tag_is_named_in_the_current_language_and_an_unknown_one_as_written():
    assert tag_names(["race", "lua"]) == "race, lua"
    try:
        set_language("zh")
        assert tag_name("race") == trp_in("zh", "lesson tag", "race") == "竞态"
        assert tag_names(["transactions", "my-own-tag"]) == "事务, my-own-tag"
    finally:
        set_language("en")


def test_list_shows_the_tags_in_chinese():
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")}
    run = [sys.executable, "-m", "playground", "--lang", "{}", "list"]
    zh = subprocess.run([a.format("zh") for a in run], capture_output=True, text=True, timeout=120, env=env,
                        stdin=subprocess.DEVNULL)
    en = subprocess.run([a.format("en") for a in run], capture_output=True, text=True, timeout=120, env=env,
                        stdin=subprocess.DEVNULL)
    assert zh.returncode == en.returncode == 0, zh.stderr + en.stderr
    assert "竞态" in zh.stdout and "[race" not in zh.stdout
    assert "[race" in en.stdout or ", race" in en.stdout
