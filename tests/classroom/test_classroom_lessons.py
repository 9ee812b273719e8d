"""The lesson a class carries (classroom/lesson_source.py): the teacher's lesson travels as
its TOML text, so a learner opens exactly it (a recording, a lesson outside the learner's
library, a schedule the explorer made), checked with the usual one-line error; and each
lesson opened or restarted is a new run whose answers alone count. Real servers."""

from __future__ import annotations

import asyncio

import pytest

from playground.classroom import class_server
from playground.classroom.lesson_source import learner_scenario, shareable_source
from playground.classroom.protocol import MAX_LESSON_BYTES, ClassLink, Learner
from playground.errors import ScenarioError
from playground.explore.explorer import explore
from playground.i18n import again
from playground.scenario.library import bundled_dir, resolve
from playground.scenario.loader import load_scenario
from playground.scenario.writer import scenario_toml
from servers import shared

RECORDED = '''title = "My own race"
lesson = "Recorded in the teacher's tab."
tags = ["recorded"]

[[steps]]
client = "A"
command = "SET k 1"
reply = "OK"

[[steps]]
client = "B"
command = "GET k"
reply = '"1"'
narration = "B sees A's write."
narration_zh = "B 看到 A 写的值。"
'''


def _link(private_server) -> ClassLink:
    return ClassLink(class_server.address(class_server.private_url(private_server)))


def test_a_lesson_outside_the_learners_library_opens_from_its_text(tmp_path):
    teacher_dir, learner_dir = tmp_path / "teacher", tmp_path / "learner"
    teacher_dir.mkdir()
    path = teacher_dir / "my-race.toml"
    path.write_text(RECORDED)
    taught = load_scenario(path)
    source = shareable_source(taught)
    assert source == RECORDED
    with pytest.raises(ScenarioError, match="no such scenario"):
        resolve("my-race")  # the learner's own library has no such lesson
    opened = learner_scenario(taught.id, source, "zh", [], learner_dir)
    assert opened.id == "my-race" and opened.steps == load_scenario(path, "zh").steps
    assert opened.steps[1].narration == "B 看到 A 写的值。"  # in the learner's own language
    assert opened.path.parent == learner_dir and opened.path.read_text() == RECORDED
    assert opened.path.stat().st_mode & 0o077 == 0


def test_a_library_lesson_opens_from_the_learners_own_identical_file(tmp_path):
    taught = load_scenario(resolve("incr-python"))  # its clients are programs
    source = shareable_source(taught)
    opened = learner_scenario(taught.id, source, "en", [], tmp_path)
    assert opened.path == bundled_dir() / "incr-python.toml"  # its programs start from beside it
    changed = source.replace("r.incr", "r.incr ")
    with pytest.raises(ScenarioError, match="programs"):  # a program is never started from what was sent
        learner_scenario(taught.id, changed, "en", [], tmp_path)


def test_a_lesson_with_programs_goes_to_the_class_only_from_the_shared_library(tmp_path):
    (tmp_path / "incr-copy.toml").write_text((bundled_dir() / "incr-python.toml").read_text())
    copy = load_scenario(tmp_path / "incr-copy.toml")
    with pytest.raises(ScenarioError, match="programs"):  # the learners' library has no such file
        shareable_source(copy, [])
    assert shareable_source(copy, [str(tmp_path)]) == (tmp_path / "incr-copy.toml").read_text()  # serve's --scenarios


@pytest.mark.parametrize("text, said", [
    ("title = \"x\"\nlesson = \"y\"\n[[steps]]\nclient = \"C\"\ncommand = \"GET k\"\n", "unknown client 'C'"),
    ("title = [", "not valid TOML"),
    ("", "carries no text"),
    ("# " + "x" * MAX_LESSON_BYTES, "too big for a class"),
])
def test_a_broken_lesson_is_one_line(tmp_path, text, said):
    with pytest.raises(ScenarioError, match=said) as caught:
        learner_scenario("broken", text, "en", [], tmp_path)
    assert "\n" not in str(caught.value)


@pytest.mark.asyncio
async def test_a_schedule_the_explorer_made_travels_as_toml(pg, tmp_path):
    from playground.explore.schedule_replay import schedule_scenario
    from playground.scenario.runner import Runner

    base = load_scenario(resolve("lost-update"))
    result = await explore(pg, base)
    for cls in result.classes:
        ordered = schedule_scenario(result, cls)
        source = shareable_source(ordered)  # not the lesson's file: the schedule's own text
        assert source != (bundled_dir() / "lost-update.toml").read_text()
        opened = learner_scenario(ordered.id, source, "en", [], tmp_path)
        assert opened.id == ordered.id and opened.parts == ordered.parts
        assert (await Runner(pg).run(opened)).ok


def test_a_schedule_of_commands_typed_in_free_play_travels_too(server_binary, tmp_path):
    from playground.explore.free_play import explore_typed
    from playground.explore.schedule_replay import schedule_scenario
    from playground.server import choose_binary

    typed = [("A", "GET k"), ("B", "SET k 1"), ("A", "SET k 2"), ("B", "INCR k")]
    result = asyncio.run(explore_typed(typed, ("A", "B"), choose_binary(server_binary.path)))
    assert len(result.classes) > 1
    for cls in result.classes:
        ordered = schedule_scenario(result, cls)
        opened = learner_scenario(ordered.id, shareable_source(ordered), "en", [], tmp_path)
        assert opened.id == ordered.id and opened.parts == ordered.parts


def test_what_the_writer_cannot_write_it_refuses():
    with pytest.raises(ScenarioError, match="programs"):
        scenario_toml(load_scenario(resolve("incr-python")))
    with pytest.raises(ScenarioError, match="challenge"):
        scenario_toml(load_scenario(resolve("refresh-double-spend")))


def test_a_new_run_clears_the_answers_and_the_learners_places(private_server):
    async def scenario() -> None:
        teacher, learner = _link(private_server), _link(private_server)
        try:
            first = await teacher.open_lesson("my-race", False, RECORDED)
            await learner.answer("a1", first, 0, 2)
            await learner.progress(Learner("a1", "Ana", first, "my-race", step=1, total=2, right=1, answered=1))
            assert await teacher.answers(first, 0) == {2: 1}
            again = await teacher.open_lesson("my-race", False, RECORDED)  # a restart: a new run
            assert again != first
            assert await teacher.answers(again, 0) == {}  # the last run's answer is not this one's
            state = await teacher.lesson()
            assert (state.epoch, state.lesson, state.step, state.source) == (again, "my-race", 0, RECORDED)
            assert (await teacher.state()).source == ""  # the text is read when a lesson opens only
            [ana] = await teacher.learners()
            assert ana.epoch != state.epoch  # the overview shows no place of hers in this run
        finally:
            await teacher.close()
            await learner.close()

    asyncio.run(scenario())


async def test_f12_keeps_a_schedule_the_explorer_made(server_binary, pg):
    """F12 reads the open scenario's file again in the other language; a schedule's file is
    its lesson's, a scenario of its own order: the schedule stays, its order and steps as
    they were, its texts said in the new language (scenario_in)."""
    from playground.explore.schedule_replay import schedule_scenario
    from playground.tui.app import make_app
    from pilot import wait_until
    from pilot import opened

    base = load_scenario(resolve("lost-update"))
    result = await explore(pg, base)
    ordered = schedule_scenario(result, result.classes[-1])
    app = make_app(server=shared(server_binary), open_scenario=ordered)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        steps = app.scenario_run.stepper.flat
        await pilot.press("f12")
        await wait_until(pilot, lambda: app.lang == "zh")
        await pilot.pause()
        now = app.scenario_run.scenario
        assert now.id == ordered.id and now.title == again(ordered.title, "zh") != ordered.title
        assert [(i, s.client, s.display, s.blocking) for i, s in app.scenario_run.stepper.flat] == [
            (i, s.client, s.display, s.blocking) for i, s in steps]
