"""F7's search looks through titles, tags and the lessons' text (issue 44: `ttl` found
nothing), word by word from the start of a word; and the list is said again in the
language F12 switches to, the search kept."""

import pytest
from pilot import started, wait_until

from playground.scenario.library import bundled_dir, scenarios_in
from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.dialogs.scenario_dialogs import ScenarioPicker, found, search_text

BUNDLED = [load_scenario(path) for path in scenarios_in(bundled_dir())]


def ids(word):
    return {s.id for s in BUNDLED if all(found(w, search_text(s).casefold()) for w in word.casefold().split())}


def test_ttl_finds_the_lessons_about_expiry_by_tag_or_text():
    hits = ids("ttl")
    assert {"set-nx-lock", "setnx-expire-gap", "rate-limit-gap", "rate-limit-lua"} <= hits  # tagged
    assert "session-create" in hits                         # its narration: "both with a TTL"
    assert "stale-read-from-replica" not in hits            # its `settle` holds no word "ttl"
    assert "lost-update" not in hits


def test_lessons_named_by_the_words_come_before_those_whose_text_holds_them():
    from playground.scenario.library import course_order

    lessons = course_order(BUNDLED)
    hits = [s for s in lessons if all(found(w, search_text(s).casefold()) for w in ("lost", "up"))]
    named = [s.id for s in hits if all(found(w, search_text(s, whole=False).casefold()) for w in ("lost", "up"))]
    assert named == ["lost-update", "lost-update-python", "lost-update-node"]
    assert "incr-is-atomic" in [s.id for s in hits]  # its text: "...the lost update"


def test_a_search_reads_narration_commands_and_questions():
    assert "pcall" in ids("what is left")                      # a question's words
    assert "watch-abort" in ids("decrby")                      # a command
    assert ids("lease") >= {"set-nx-lock"}                     # a narration's word
    assert "watch-abort" in ids("abort")                       # the id's second word


def test_chinese_is_found_inside_a_phrase():
    zh = [load_scenario(path, "zh") for path in scenarios_in(bundled_dir())]
    hits = {s.id for s in zh if found("租期", search_text(s).casefold())}
    assert "set-nx-lock" in hits  # "A 拿到锁，租期 30 秒。"


@pytest.mark.tui
@pytest.mark.server
async def test_the_picker_searches_and_says_itself_again_after_f12(server_binary):
    app = make_app(server_binary.path)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        for key in "ttl":
            await pilot.press(key)
        picker = app.screen
        await wait_until(pilot, lambda: "set-nx-lock" in [s.id for s in picker.scenarios])
        shown = [s.id for s in picker.scenarios]
        await pilot.press("f12")
        await wait_until(pilot, lambda: picker.scenarios and picker.scenarios[0].title != BUNDLED_TITLE(shown[0]))
        assert [s.id for s in picker.scenarios] == shown  # the same search, the same lessons
        assert picker.query_one("#search").value == "ttl"
        assert "按 id" in picker.query_one("#search").placeholder


def BUNDLED_TITLE(sid):
    return next(s.title for s in BUNDLED if s.id == sid)
