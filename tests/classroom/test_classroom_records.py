"""The class's records on a real class Redis, both servers: the teacher's overview frees a
learner's place (`d`: the learner is told on the channel and leaves the overview) and takes
the class's answers as CSV (`e`: every run of every lesson, with the learners' names, also
of those who left, and whether each answer was right); `serve --new-period` wipes the class
(its lesson, learners, answers and teachers' secrets) and no other class's keys."""

from __future__ import annotations

import asyncio
import csv
import io
import time

import pytest
from textual.app import App
from textual.widgets import OptionList

from playground.classroom import class_server
from playground.classroom.answers_csv import answers_csv, questions
from playground.classroom.protocol import ClassLink, Learner, secret_digest
from playground.i18n import current_language, set_language, tr_in
from playground.scenario.loader import load_scenario
from playground.tui.class_mode.class_places import ReleasePlaceScreen
from playground.tui.class_mode.class_screens import ClassOverviewScreen
from playground.tui.class_mode.class_member import ClassMember
from playground.tui.class_mode.class_mode import ClassMode
from class_app import _until
from paths import SCENARIOS as SCENARIOS_DIR

DEADLINE = 20.0
PCALL = SCENARIOS_DIR / "pcall.toml"
HEADER = ["lesson", "run", "step", "question", "learner", "answer", "right answer", "right"]


def _link(private_server, name="class") -> ClassLink:
    return ClassLink(class_server.address(class_server.private_url(private_server)), name)


async def _a_class(link: ClassLink, lang: str = "en") -> tuple[int, int, dict[str, str]]:
    """Two runs: pcall (Ana right, Bo wrong, =cmd right; Bo has left since), opened by a
    teacher whose tab showed `lang`, then lost-update with no question recorded (an answer
    there has no right answer to compare)."""
    scenario = load_scenario(PCALL, lang)
    asked = questions(scenario)
    (step, (question, right)), = list(asked.items())[:1]
    first = await link.open_lesson("pcall", False, "", asked)
    for learner_id, name, choice in (("a1", "Ana", right), ("b2", "Bo", right % 3 + 1), ("c3", "=cmd", right)):
        await link.progress(Learner(learner_id, name, first, "pcall"))
        await link.answer(learner_id, first, step, choice)
    await link.leave("b2")
    second = await link.open_lesson("lost-update", False, "")
    await link.answer("a1", second, 0, 1)
    return first, second, question


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_the_answers_as_csv_name_every_run_learner_and_whether_they_were_right(private_server):
    async def scenario() -> None:
        link = _link(private_server)
        try:
            first, second, asked = await _a_class(link)
            question = asked["en"]  # (kept in every language)
            step = next(iter(questions(load_scenario(PCALL))))
            rows = _rows(answers_csv(*await link.records()))
        finally:
            await link.close()
        right = str(questions(load_scenario(PCALL))[step][1])
        wrong = str(int(right) % 3 + 1)
        assert rows[0] == HEADER
        assert rows[1:] == [
            ["pcall", str(first), str(step + 1), question, "'=cmd", right, right, "yes"],  # never a formula
            ["pcall", str(first), str(step + 1), question, "Ana", right, right, "yes"],
            ["pcall", str(first), str(step + 1), question, "Bo", wrong, right, "no"],  # left: still named
            ["lost-update", str(second), "1", "", "Ana", "1", "", ""],
        ], rows

    asyncio.run(scenario())


@pytest.mark.parametrize(("opened_in", "exported_in"), [("en", "zh"), ("zh", "en")])
def test_the_answers_as_csv_are_in_one_language_the_teachers_tab_shows(private_server, opened_in, exported_in):
    """The teacher opened the lesson in one language and switched (F12) before `e`: the
    header, the questions and yes/no, all in the language shown at `e`."""
    async def scenario() -> list[list[str]]:
        link, before = _link(private_server), current_language()
        try:
            set_language(opened_in)
            await _a_class(link, opened_in)
            set_language(exported_in)
            return _rows(answers_csv(*await link.records()))
        finally:
            set_language(before)
            await link.close()

    rows = asyncio.run(scenario())
    asked = next(step.predict.question for part in load_scenario(PCALL, exported_in).parts for step in part.steps
                 if step.predict)
    assert rows[0] == [tr_in(exported_in, word) for word in HEADER], rows
    assert [row[3] for row in rows[1:4]] == [asked] * 3, rows
    assert [row[7] for row in rows[1:4]] == [tr_in(exported_in, word) for word in ("yes", "yes", "no")], rows


def test_a_new_period_wipes_the_class_and_no_other(private_server):
    async def scenario() -> None:
        link, other = _link(private_server), _link(private_server, "other")
        try:
            await _a_class(link)
            await link.set_step(1, 2)
            await link.add_teacher_key(secret_digest("old-secret"))
            await other.open_lesson("lost-update", False, "")
            await other.add_teacher_key(secret_digest("others-secret"))
            await link.new_period()
            state = await link.state()
            assert (state.lesson, state.step, state.epoch) == ("", 0, 0)
            assert not await link.is_teacher_key(secret_digest("old-secret"))  # the old teacher's URL: no more
            assert await link.learners() == []
            assert await link.records() == ({}, {}, {})
            keys = (await link.conn.run([[b"KEYS", b"redis-playground:class:class:*"]]))[0]
            assert list(keys) == [], keys
            assert (await other.state()).lesson == "lost-update"  # another class on the same Redis: untouched
            assert await other.is_teacher_key(secret_digest("others-secret"))
            assert await link.open_lesson("pcall", False, "") == 1  # a new period's first run
        finally:
            await link.close()
            await other.close()

    asyncio.run(scenario())


@pytest.mark.asyncio
async def test_the_overview_releases_a_place_and_sends_the_answers(private_server, tmp_path, monkeypatch):
    monkeypatch.setenv("REDIS_PLAYGROUND_EXPORT_DIR", str(tmp_path / "exports"))
    link, learner = _link(private_server), _link(private_server)
    await _a_class(link)
    heard: list[dict] = []

    async def listen() -> None:
        async for message in learner.listen():
            heard.append(message)

    listening = asyncio.ensure_future(listen())

    class Host(App):
        pass

    app = Host()
    async with app.run_test(size=(120, 30)) as pilot:
        classroom = ClassMember(app, ClassMode(app), _link(private_server), teacher=True)
        app.run_worker(classroom.run(), group="classroom", exit_on_error=False)
        await app.push_screen(ClassOverviewScreen(classroom))
        await pilot.press("e")
        exports = tmp_path / "exports"
        await _until(pilot, lambda: exports.is_dir() and list(exports.glob("class-answers-*.csv")), "the CSV")
        written = next((tmp_path / "exports").glob("class-answers-*.csv")).read_text()
        assert _rows(written)[0] == HEADER and len(_rows(written)) == 5, written
        await _until_subscribed(pilot, link)  # the learner hears the channel before the release is sent
        await pilot.press("d")
        await _until(pilot, lambda: isinstance(app.screen, ReleasePlaceScreen), "the learners to pick from")
        options = app.screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == ["c3", "a1"]
        await pilot.press("down", "enter")  # Ana
        await _until(pilot, lambda: any(m["type"] == "release" for m in heard), "the release on the channel")
        assert [m for m in heard if m["type"] == "release"] == [{"v": 1, "type": "release", "id": "a1"}]
        assert [learner.id for learner in await link.learners()] == ["c3"]
        await classroom.close()
    listening.cancel()
    await learner.close()
    await link.close()


async def _until_subscribed(pilot, link: ClassLink) -> None:
    end = time.monotonic() + DEADLINE
    while (await link.conn.run([[b"PUBSUB", b"NUMSUB", link.channel]]))[0][1] < 2:  # the learner and the teacher
        assert time.monotonic() < end, "the learner never subscribed"
        await pilot.pause(0.05)  # polling a condition, bounded

