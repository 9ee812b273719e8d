"""Scenario texts in Chinese beside English: the format, --lang, check --lang zh, and
transcripts laid out in terminal cells (a CJK character takes two)."""

import os
import re
import subprocess
import sys

import pytest

from playground.engine.playground import Playground
from playground.cells import cut, pad, width, wrap
from playground.i18n import LANGUAGES, PAUSE_TEXT, default_language, tr_in
from playground.scenario.library import scenario_files
from playground.scenario.model import ScenarioError
from playground.scenario.loader import load_scenario
from playground.scenario.script_translations import code_of
from playground.scenario.runner import Runner
from playground.scenario.transcript import render_text
from paths import DOCS as DOCS_DIR

FILES = scenario_files()
IDS = [f.stem for f in FILES]
DOCS = DOCS_DIR / "scenarios.md"


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def locale_env(**values):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")}
    env.update(values)
    return env


# -- the user's language --------------------------------------------------------------

@pytest.mark.parametrize("env, expected", [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_TW"}, "zh"),
    ({"LANG": "C"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),         # LC_ALL wins
    ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),  # before LANG
    ({"LC_ALL": "", "LC_MESSAGES": "zh_CN", "LANG": "C"}, "zh"),      # empty means unset
    ({"LANGUAGE": "zh_CN:en"}, "zh"),                                  # only LANGUAGE set
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "zh_CN"}, "en"),
])
def test_default_language_follows_the_locale_variables(env, expected):
    assert default_language(env) == expected


def test_languages_are_defined_once_with_english_first():
    assert LANGUAGES[0] == "en" and "zh" in LANGUAGES
    assert all(tr_in(lang, PAUSE_TEXT) for lang in LANGUAGES)


# -- the format ---------------------------------------------------------------------

PARTLY = """\
title = "Two reads"
title_zh = "两次读取"
lesson = "A lesson."
lesson_zh = "一课。"

[[steps]]
client = "A"
command = "SET 余额 100"
reply = "OK"
narration = "A writes."
narration_zh = "A 写入。"
pause = true

[[steps]]
client = "B"
command = "GET 余额"
reply = '"100"'
narration = "B reads."
pause = "Why?"
pause_zh = "为什么？"

[steps.predict]
question = "What does B read?"
question_zh = "B 读到什么？"
choices = ["(nil)", "\\"100\\""]
choices_zh = ["(nil)", "\\"100\\""]
answer = 2
explain = "A wrote it."
"""


def test_chinese_fills_the_usual_fields_and_english_fills_the_gaps(tmp_path):
    path = write(tmp_path, PARTLY)
    zh = load_scenario(path, "zh")
    assert zh.language == "zh" and zh.title == "两次读取" and zh.lesson == "一课。"
    one, two = zh.steps
    assert one.narration == "A 写入。" and one.pause == tr_in("zh", PAUSE_TEXT)
    assert two.narration == "B reads." and two.pause == "为什么？"      # B's narration: English
    assert two.predict.question == "B 读到什么？" and two.predict.explain == "A wrote it."
    assert zh.missing_translations() == ("step 2 narration", "step 2 predict explain")
    en = load_scenario(path)
    assert en.language == "en" and en.title == "Two reads" and en.steps[0].pause == PAUSE_TEXT
    assert en.steps[1].predict.question == "What does B read?"
    assert en.missing_translations() == () and en.missing_translations("zh") == zh.missing_translations()
    assert [s.argv for s in en.steps] == [s.argv for s in zh.steps]  # commands are not translated


def test_translations_in_parts_and_challenge(tmp_path):
    text = """\
title = "t"
lesson = "l"
[challenge]
goal = "Make it 5."
goal_zh = "让它变成 5。"
[challenge.state]
k = "5"
[[parts]]
name = "first"
name_zh = "第一部分"
[[parts.steps]]
client = "A"
command = "PING"
[[parts]]
name = "second"
[[parts.steps]]
client = "A"
command = "PING"
narration = "again"
"""
    s = load_scenario(write(tmp_path, text), "zh")
    assert s.challenge.goal == "让它变成 5。" and s.parts[0].name == "第一部分" and s.parts[1].name == "second"
    assert s.missing_translations() == ("title", "lesson", "part 2 name", "part 2 step 1 narration")


@pytest.mark.parametrize("change, message", [
    (('choices_zh = ["(nil)", "\\"100\\""]', 'choices_zh = ["(nil)"]'),
     's.toml: step 2: predict.choices_zh: 1 choices, but choices has 2'),
    (('choices_zh = ["(nil)", "\\"100\\""]', 'choices_zh = "(nil)"'),
     's.toml: step 2: predict.choices_zh: a list of non-empty text'),
    (('narration_zh = "A 写入。"', 'narration_fr = "A écrit."'),
     "s.toml: step 1: narration_fr: unknown language 'fr' (known: zh)"),
    (('narration_zh = "A 写入。"', 'narration_zh_CN = "A 写入。"'),
     "s.toml: step 1: narration_zh_CN: unknown language 'zh_CN' (known: zh)"),
    (('narration_zh = "A 写入。"', 'narration_en = "A writes."'),
     "s.toml: step 1: narration_en: the English text is narration itself"),
    (('narration_zh = "A 写入。"', 'narration_zh = 5'), "s.toml: step 1: narration_zh: must be non-empty text"),
    (('title_zh = "两次读取"', 'title_zh = " "'), "s.toml: title_zh: must be non-empty text"),
    (('pause_zh = "为什么？"', 'pause_zh = true'), "s.toml: step 2: pause_zh: must be non-empty text"),
    (('pause = true\n', 'pause_zh = "停"\n'), "s.toml: step 1: pause_zh: translates pause, which is missing"),
    (('explain = "A wrote it."', 'explain = "A wrote it."\nexplain_xx = "?"'),
     "s.toml: step 2: predict.explain_xx: unknown language 'xx' (known: zh)"),
    (('narration = "A writes."\n', ''), "s.toml: step 1: narration_zh: translates narration, which is missing"),
    (('title = "Two reads"', 'title = 3'), "s.toml: title: must be text"),
    (('command = "SET 余额 100"', 'command = "SET 余额 100"\nclient_zh = "甲"'),
     "s.toml: step 1: client_zh: unknown field"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_translation_is_one_line_whatever_the_language(tmp_path, change, message, lang):
    old, new = change
    text = PARTLY.replace(old, new, 1)
    assert text != PARTLY
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, text), lang)
    line = str(info.value)
    assert "\n" not in line and line.startswith(str(tmp_path / "s.toml")) and message in line, line


def test_a_bad_translation_names_the_part(tmp_path):
    text = ('title = "t"\nlesson = "l"\n[[parts]]\nname = "one"\n[[parts.steps]]\nclient = "A"\n'
            'command = "PING"\n[parts.steps.predict]\nquestion = "q"\nchoices = ["a", "b"]\nanswer = 1\n'
            'explain = "e"\nchoices_zh = ["甲"]\n')
    with pytest.raises(ScenarioError, match=r"s\.toml: part 'one': step 1: predict\.choices_zh: 1 choices, "
                                            r"but choices has 2$"):
        load_scenario(write(tmp_path, text), "zh")


def test_the_documented_example_loads(tmp_path):
    docs = DOCS.read_text(encoding="utf-8")
    section = docs.split("## Translations", 1)[1]
    example = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    s = load_scenario(write(tmp_path, example), "zh")
    assert s.title.startswith("WATCH 让") and "\n" not in s.lesson and "Key，EXEC" in s.lesson
    assert s.steps[0].predict.choices == ("1) (integer) 100", "(nil)")
    assert s.missing_translations() == ()


# -- the bundled library ------------------------------------------------------------

CJK = re.compile(r"[\u4e00-\u9fff]")


def _named(argv, scenario):
    """A step's argv with its scripts (and their SHAs) by name: a script's translated comments
    ([scripts_zh]) are the one difference allowed between the languages' commands."""
    names = {source.encode(): f"${name}" for name, source in scenario.scripts.items()}
    names.update({scenario.sha(name).encode(): f"$sha:{name}" for name in scenario.scripts})
    return argv if argv is None else tuple(names.get(arg, arg) for arg in argv)


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_bundled_text_is_translated(path):
    en, zh = load_scenario(path), load_scenario(path, "zh")
    assert {n: code_of(s) for n, s in en.scripts.items()} == {n: code_of(s) for n, s in zh.scripts.items()}
    assert zh.missing_translations() == ()
    texts = [(en.title, zh.title), (en.lesson, zh.lesson)]
    texts += [(p.name, q.name) for p, q in zip(en.parts, zh.parts, strict=True) if p.name]
    if en.challenge:
        texts.append((en.challenge.goal, zh.challenge.goal))
    for s, t in zip(en.steps, zh.steps, strict=True):
        assert _named(s.argv, en) == _named(t.argv, zh) and s.reply == t.reply and s.display == t.display
        texts += [(s.narration, t.narration)] if s.narration else []
        texts += [(s.pause, t.pause)] if s.pause else []
        if s.predict:
            assert s.predict.answer == t.predict.answer
            texts += [(s.predict.question, t.predict.question), (s.predict.explain, t.predict.explain)]
            for a, b in zip(s.predict.choices, t.predict.choices, strict=True):
                reply = re.match(r"^(\d+\) )?\((integer|nil|error)\)[^—:：]*|^[A-Z]+(?=:)", a)
                if reply:  # a choice quoting a reply keeps the reply verbatim
                    assert b.startswith(reply.group(0).rstrip()), (a, b)
    for english, chinese in texts:
        assert CJK.search(chinese) and chinese != english, (path.stem, english, chinese)
        assert "\n" not in chinese, (path.stem, chinese)  # lines joined with TOML's trailing \


@pytest.mark.slow
def test_check_in_chinese_passes_every_bundled_scenario_with_nothing_missing(server_binary):
    result = run_cli("check", "--lang", "zh", "--server", server_binary.path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len([line for line in lines if line.startswith("✓ ")]) + sum(
        line.startswith("– ") for line in lines) == len(FILES)
    assert "missing" not in result.stdout and "缺少" not in result.stdout and "没有翻译" not in result.stdout
    assert re.fullmatch(r"\d+ 个通过，0 个失败(，\d+ 个跳过)?", lines[-1])  # the summary in Chinese too


def test_check_in_chinese_lists_what_is_missing_and_still_passes(tmp_path, server_binary):
    path = write(tmp_path, PARTLY, "partly.toml")
    result = run_cli("check", "--lang", "zh", "--server", server_binary.path, str(path), "incr-is-atomic")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[1:] == [
        "✓ partly: 2 项检查全部通过",
        "  缺少 zh 翻译：step 2 narration, step 2 predict explain",
        "✓ incr-is-atomic: 3 项检查全部通过",
        "2 个通过，0 个失败，2 段文字没有翻译成 zh",
    ]
    english = run_cli("check", "--lang", "en", "--server", server_binary.path, str(path))
    assert english.stdout.splitlines()[1:] == ["✓ partly: 2 checks passed", "1 passed, 0 failed"]


def test_run_in_chinese_shows_the_chinese_narration(server_binary):
    result = run_cli("run", "watch-abort", "--lang", "zh", "--format", "text", "--server", server_binary.path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("━━ watch-abort: WATCH 让过时的判断变成被放弃的 EXEC\n")
    assert "↳ A 准备从余额里扣款。" in out and "⏸ A 甚至还没开始它的事务。" in out
    assert "A> WATCH balance" in out and "A is about to spend" not in out
    assert "   服务器：" in out and "✓ 回复" in out and "项检查通过了" in out  # the transcript's own words too


def test_the_language_comes_from_the_locale_or_the_option_before_the_command(server_binary):
    zh = run_cli("list", env=locale_env(LANG="zh_CN.UTF-8"))
    assert "lost-update              GET、计算、SET：丢失一次增加" in zh.stdout
    c = run_cli("list", env=locale_env(LC_ALL="C", LANG="zh_CN.UTF-8"))
    assert "GET, compute, SET loses an increment" in c.stdout and not CJK.search(c.stdout)
    forced = run_cli("list", "--lang", "en", env=locale_env(LANG="zh_CN.UTF-8"))
    assert not CJK.search(forced.stdout)
    before = run_cli("--lang", "zh", "run", "incr-is-atomic", "--server", server_binary.path,
                     env=locale_env(LANG="C"))
    assert before.returncode == 0 and "同样的两次增加，改用 INCR" in before.stdout
    bad = run_cli("run", "incr-is-atomic", "--lang", "fr")
    assert bad.returncode == 2 and "invalid choice: 'fr'" in bad.stderr


# -- layout in cells ------------------------------------------------------------------

def test_cells_pad_cut_and_wrap_count_wide_characters_twice():
    assert width("SET 余额 100") == 12
    assert pad("余额", 6) == "余额  " and width(pad("余额余额", 5)) == 5
    assert cut("余额余额", 5) == "余额" and cut("abc", 2) == "ab" and cut("余", 1) == ""
    lines = wrap("A 准备从余额里扣款。它先 WATCH 这个 Key，这样在 A 提交之前如果有人动了余额，服务器就会告诉它。", 20)
    assert all(width(line) <= 20 for line in lines) and len(lines) > 3
    assert not any(line[0] in "，。" for line in lines)  # closing punctuation stays with its text
    assert "".join(lines).replace(" ", "") == ("A准备从余额里扣款。它先WATCH这个Key，这样在A提交之前如果有人动了余额，"
                                               "服务器就会告诉它。")
    assert wrap("compare and delete in one script", 12) == ["compare and", "delete in", "one script"]


MIXED = """\
title = "混合宽度"
lesson = "Keys with Chinese names, and Chinese narration."
clients = ["A", "B", "C"]
setup = ["SET 余额 150"]

[[steps]]
client = "B"
command = "GET 余额"
reply = '"150"'
narration = "B 读到 150，判断足够扣 100。这个判断是在客户端、在服务器之外做出的。"

[[steps]]
client = "A"
command = "SET 用户会话:令牌轮换:一个相当长的键名用来测试换行是否按单元格计算 active"
reply = "OK"

[[steps]]
client = "C"
command = "GET 用户会话:令牌轮换:一个相当长的键名用来测试换行是否按单元格计算"
reply = '"active"'

[[steps]]
client = "B"
command = "SET plain ascii"
reply = "OK"
pause = "一个很长的停顿问题，用来测试停顿也会按照终端单元格的宽度换行，而不是按照字符个数来换行。"
"""


async def test_lanes_line_up_in_cells_with_wide_text(tmp_path, private_server):
    pg = Playground(server=private_server, clients=("A", "B", "C"))
    await pg.start()
    try:
        result = await Runner(pg).run(load_scenario(write(tmp_path, MIXED)))
    finally:
        await pg.close()
    assert result.ok, [(s.step.number, c.detail) for s, c in result.failed_checks]
    text = render_text(result)
    lane_lines = [line for line in text.splitlines() if "│" in line]
    assert len(lane_lines) > 8 and any(CJK.search(line) for line in lane_lines)
    # every lane separator on every line (header included) at the same cell column
    columns = {tuple(width(line[:i]) for i, ch in enumerate(line) if ch == "│") for line in lane_lines}
    assert columns == {(6 + 38 + 1, 6 + 38 + 3 + 38 + 1)}, columns
    # the long key was cut into pieces no wider than a lane, and nothing is lost
    lane_a = "".join(line.split("│")[0][6:] for line in lane_lines).replace(" ", "")
    assert "A>SET用户会话:令牌轮换:一个相当长的键名用来测试换行是否按单元格计算active" in lane_a
    prose = [line for line in text.splitlines() if "│" not in line and line.startswith("      ")
             and not line.lstrip().startswith("✓")]
    assert any("⏸" in line for line in prose) and len(prose) >= 4
    assert all(width(line) <= 74 for line in prose), prose
    assert all(width(line) <= 6 + 38 * 3 + 3 * 2 for line in lane_lines)
