"""A lesson made in the app reaches each learner in the learner's own language: the texts
a scenario file gives in every language stay sayable in each (i18n.Translated), the
explorer's schedule of a lesson is written (scenario/writer.py) in every language, and
a class's copy of it opens, and opens again after F12, in the learner's. Real servers."""

from __future__ import annotations

import copy
import pickle
from dataclasses import replace

import pytest

from playground.classroom.lesson_source import file_name, learner_scenario, shareable_source
from playground.explore import schedules as sch
from playground.explore.explorer import explore
from playground.explore.schedule_replay import schedule_scenario
from playground.i18n import again, current_language, set_language, tr_in
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario, parse_scenario
from playground.scenario.writer import scenario_toml
from servers import shared

BASE_EN = load_scenario(resolve("lost-update"), "en")
BASE_ZH = load_scenario(resolve("lost-update"), "zh")


def _expected(cls, lang: str) -> tuple[str, list[str]]:
    """The schedule's title and its first narration in `lang`, as the explorer says them."""
    label = sch.label(cls.first_run.schedule)
    title = tr_in(lang, "{title} · schedule {label}", title=(BASE_ZH if lang == "zh" else BASE_EN).title,
                  label=label)
    total = len(sch.moves(cls.first_run.schedule))
    first = cls.first_run.moves[0][0]
    return title, tr_in(lang, "Move {n} of {total} in {label}: {move}.", n=1, total=total, label=label,
                        move=f"{first}1")


def test_a_lesson_files_texts_can_be_said_in_its_other_languages():
    zh = BASE_ZH
    assert zh.title == "GET、计算、SET：丢失一次增加" and again(zh.title, "en") == BASE_EN.title
    assert again(zh.lesson, "en") == BASE_EN.lesson and again(BASE_EN.lesson, "zh") == zh.lesson
    assert again(zh.challenge.goal, "en") == BASE_EN.challenge.goal
    for mine, english in zip(zh.steps, BASE_EN.steps, strict=True):
        assert again(mine.narration, "en") == english.narration and again(english.narration, "zh") == mine.narration
        if mine.predict:
            assert [again(c, "en") for c in mine.predict.choices] == list(english.predict.choices)
            assert again(mine.predict.explain, "en") == english.predict.explain
            assert again(english.predict.question, "zh") == mine.predict.question
    assert zh == load_scenario(resolve("lost-update"), "zh")  # compared as the texts they are
    assert pickle.loads(pickle.dumps(zh)) == zh and copy.deepcopy(zh) == zh  # sent or copied: as said


def test_a_missing_translation_is_said_in_english_as_before(tmp_path):
    path = tmp_path / "half.toml"
    path.write_text('title = "Half"\ntitle_zh = "一半"\nlesson = "Only English."\n'
                    '[[steps]]\nclient = "A"\ncommand = "PING"\npause = true\n')
    zh = load_scenario(path, "zh")
    assert zh.missing["zh"] == ("lesson",) and again(zh.lesson, "zh") == "Only English."
    assert again(zh.title, "en") == "Half" and again(load_scenario(path).title, "zh") == "一半"
    pause = load_scenario(path).steps[0].pause
    assert pause == "Pause here to discuss." and again(pause, "zh") == tr_in("zh", "Pause here to discuss.")


@pytest.mark.asyncio
async def test_a_schedule_of_a_chinese_lesson_is_written_in_every_language(pg, tmp_path):
    result, before = await explore(pg, BASE_ZH), current_language()
    for cls in result.classes:
        try:
            set_language("zh")
            ordered = schedule_scenario(result, cls)
        finally:
            set_language(before)
        text = scenario_toml(ordered)
        path = tmp_path / "schedule.toml"
        path.write_text(text)
        for lang in ("en", "zh"):
            read = load_scenario(path, lang)
            title, first = _expected(cls, lang)
            assert read.title == title and read.lesson == (BASE_ZH if lang == "zh" else BASE_EN).lesson
            assert read.steps[0].narration == first
            assert [s.narration for s in read.steps] == [again(s.narration, lang) for s in ordered.steps]
            assert [replace(s, narration="") for s in read.steps] == [replace(s, narration="") for s in ordered.steps]
            assert not read.missing["zh"]
        assert load_scenario(path, "zh").parts == ordered.parts
        assert load_scenario(path, "en").title != ordered.title  # the English learner's is English


@pytest.mark.asyncio
async def test_a_chinese_teachers_schedule_reaches_an_english_learner_in_english(pg, tmp_path):
    before = current_language()
    try:
        set_language("zh")
        result = await explore(pg, load_scenario(resolve("lost-update"), "zh"))
        cls = result.classes[-1]
        ordered = schedule_scenario(result, cls)
        source = shareable_source(ordered)
    finally:
        set_language(before)
    assert ordered.title == _expected(cls, "zh")[0]  # the teacher reads it in Chinese
    opened = learner_scenario(ordered.id, source, "en", [], tmp_path)
    title, first = _expected(cls, "en")
    assert opened.title == title and opened.steps[0].narration == first
    assert opened.lesson == BASE_EN.lesson
    assert [s.narration for s in opened.steps] == [again(s.narration, "en") for s in ordered.steps]
    assert [replace(s, narration="") for s in opened.steps] == [replace(s, narration="") for s in ordered.steps]
    # The learner's F12 reads the class's copy again in the other language (tui/language.py).
    again_zh = load_scenario(tmp_path / file_name(ordered.id), "zh")
    assert (again_zh.title, again_zh.steps[0].narration) == _expected(cls, "zh")


def test_a_scenario_typed_in_one_language_is_written_as_it_was(tmp_path):
    typed = ('title = "我自己的竞争"\nlesson = "在老师的标签页里录下的。"\ntags = []\nclients = ["A", "B"]\n\n'
             '[[parts]]\nname = ""\nsetup = []\n\n[[parts.steps]]\nclient = "A"\ncommand = "SET k 1"\n'
             'reply = "OK"\nnarration = "A 写下 1。"\n')
    for lang in ("en", "zh"):
        scenario = parse_scenario(__import__("tomllib").loads(typed), tmp_path / "mine.toml", lang)
        assert scenario_toml(scenario) == typed


def test_commands_typed_in_free_play_keep_their_words_and_get_the_explorers_in_each_language(server_binary,
                                                                                          tmp_path):
    import asyncio

    from playground.explore.free_play import explore_apart, typed_scenario
    from playground.server import choose_binary

    typed = [("A", "GET k"), ("B", "SET k 1"), ("A", "SET k 2")]
    scenario = typed_scenario(typed, ("A", "B"), title="我的命令")  # a plain text: as typed, in every language
    before = current_language()
    try:
        set_language("zh")
        result = asyncio.run(explore_apart(scenario, 1, choose_binary(server_binary.path)))
        ordered = schedule_scenario(result, result.classes[0])
    finally:
        set_language(before)
    label = sch.label(result.classes[0].first_run.schedule)
    (tmp_path / "typed.toml").write_text(scenario_toml(ordered))
    for lang in ("en", "zh"):
        read = load_scenario(tmp_path / "typed.toml", lang)
        assert read.title == tr_in(lang, "{title} · schedule {label}", title="我的命令", label=label)
        assert [s.display for s in read.steps] == [s.display for s in ordered.steps]


def test_a_lessons_scripts_are_written_with_their_translated_comments(tmp_path):
    path = tmp_path / "scripted.toml"
    path.write_text('title = "Scripted"\ntitle_zh = "脚本"\nlesson = "One script."\n'
                    '[scripts]\ns = "return 1 -- one"\n\n[scripts_zh]\ns = "return 1 -- 一"\n\n'
                    '[[steps]]\nclient = "A"\ncommand = "GET k"\nnarration = "A reads."\nnarration_zh = "A 读取。"\n')
    (tmp_path / "written.toml").write_text(scenario_toml(load_scenario(path, "zh")))
    for lang in ("en", "zh"):
        written, file = load_scenario(tmp_path / "written.toml", lang), load_scenario(path, lang)
        assert (written.title, written.scripts, written.steps) == (file.title, file.scripts, file.steps)
    assert load_scenario(tmp_path / "written.toml").scripts == {"s": "return 1 -- one"}


@pytest.mark.asyncio
async def test_f12_says_a_schedule_made_in_the_app_in_the_other_language_and_back(pg, server_binary):
    """The teacher's own F12 on a schedule the explorer made (no file of its own to read again):
    its title and the step shown are said in the new language, then in the first again."""
    from playground.tui.app import make_app
    from pilot import opened, press_and_wait

    result = await explore(pg, BASE_EN)
    cls = result.classes[-1]
    made = schedule_scenario(result, cls)
    app = make_app(server=shared(server_binary), open_scenario=made)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, app)
        await press_and_wait(pilot, app, "space")
        assert app.scenario_run.stepper.cursor == 1
        for lang in ("zh", "en"):
            app.action_switch_language()
            await pilot.pause()
            title, first = _expected(cls, lang)
            body = app.narration.body.plain
            assert app.scenario_run.scenario.title == title and title in body and first in body, body
        await press_and_wait(pilot, app, "space")  # the next step runs on
        assert app.scenario_run.stepper.cursor == 2
