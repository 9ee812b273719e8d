"""`serve --class` in headless chromium: a teacher's tab and two learners' tabs. The
teacher picks a lesson and every learner's tab opens it; the learners answer the first
step's prediction in their own tabs and the teacher sees their answers as a histogram
before revealing; the teacher steps and the learners follow; the overview lists who is
where, and in "own pace" a learner steps alone; the teacher's restart is a new run, whose
histogram leaves out the answers given before it. The teacher's secret reaches the page
only after a '#' (never in a request)."""

from __future__ import annotations

import asyncio
import re
from itertools import pairwise
from pathlib import Path

import pytest

from browser import _alt, _descendants, _open_tab, _press, _skip_reason, _type_line, _until
from browser import class_serving

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


@pytest.fixture
def class_serve(tmp_path, server_binary):
    with class_serving(tmp_path, server_binary) as serving:
        yield serving


async def _digit(tools, n: int) -> None:
    await _press(tools, str(n), f"Digit{n}", 48 + n, text=str(n))


def _bars(text: str) -> list[tuple]:
    """The histogram: (number, first word of the choice, a bar drawn?, count) per choice."""
    lines, found = text.splitlines(), []
    for line, below in pairwise(lines):
        if choice := re.search(r"█  (\d)\. (\S+)", line):
            bar = re.search(r"█ {2,}(█*) (\d+) +█", below)
            found.append((choice.group(1), choice.group(2), bool(bar and bar.group(1)), bar and bar.group(2)))
    return found


@pytest.mark.slow
def test_a_teacher_leads_two_learners(class_serve, chromium):
    proc, learner_url, teacher_url = class_serve
    assert "#teacher=" not in learner_url

    async def scenario() -> None:
        opened = []
        try:
            http, teacher, _ = await _open_tab(chromium, teacher_url)
            opened.append((http, teacher))
            await teacher.wait_screen(lambda s: "A>" in s and "Alt+C Class" in s,
                                      "the teacher's tab, Alt+C in its footer")
            await teacher.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            requests = [e["params"]["request"]["url"] for e in teacher.events
                        if e["method"] == "Network.requestWillBeSent"]
            assert requests and not [r for r in requests if "teacher=" in r], requests  # the secret: never sent
            learners = []
            for name in ("Ana", "Bo"):
                http, tools, _ = await _open_tab(chromium, learner_url)
                opened.append((http, tools))
                await tools.wait_screen(lambda s: "Your name" in s, f"{name}'s name question")
                await _type_line(tools, name)
                await tools.wait_screen(lambda s: "A>" in s and "Your name" not in s, f"{name}'s playground")
                assert "Alt+C" not in await tools.screen()  # the overview is the teacher's alone
                learners.append(tools)
            ana, bo = learners

            await _alt(teacher, "c")
            await teacher.wait_screen(lambda s: "Class overview" in s and "Ana" in s and "Bo" in s,
                                      "both learners in the overview")
            await _press(teacher, "Escape", "Escape", 27)
            await _press(teacher, "F7", "F7", 118)
            await teacher.wait_screen(lambda s: "Open a scenario" in s, "the lesson picker")
            await teacher.call("Input.insertText", {"text": "pcall"})
            await teacher.wait_screen(lambda s: re.search(r"\bpcall\b", s) and "redis.call aborts" in s, "pcall listed")
            await _press(teacher, "Enter", "Enter", 13, text="\r")
            await teacher.wait_screen(lambda s: "step 1 of 3" in s, "the lesson in the teacher's tab")

            for tools, choice in ((ana, 2), (bo, 1)):  # the first step asks: each answers in their own tab
                await tools.wait_screen(lambda s: "Predict, then see" in s and "What is left on the server?" in s,
                                        "the prediction in a learner's tab")
                await _digit(tools, choice)
                await tools.wait_screen(lambda s: "Predict, then see" not in s, "the answer taken")

            await _press(teacher, " ", "Space", 32, text=" ")  # the teacher's next step: the class's answers first
            text = await teacher.wait_screen(lambda s: "2 of 2 learners answered" in s, "both answers in the histogram")
            assert "The class predicts" in text
            assert _bars(text) == [("1", "Nothing:", True, "1"), ("2", "written", True, "1"),
                                   ("3", "written", False, "0")], text
            await _press(teacher, "Enter", "Enter", 13, text="\r")  # reveal
            await teacher.wait_screen(lambda s: "step 2 of 3" in s, "the teacher's step run")
            await ana.wait_screen(lambda s: "step 2 of 3" in s and "You predicted right" in s, "Ana following, right")
            await bo.wait_screen(lambda s: "step 2 of 3" in s and "You chose 1; the answer is 2" in s,
                                 "Bo following, wrong")

            await _press(ana, " ", "Space", 32, text=" ")  # follow me: a learner's own step is refused
            await ana.wait_screen(lambda s: "teacher leads the class" in s, "Ana told the teacher leads")
            await _press(teacher, " ", "Space", 32, text=" ")
            for tools in (teacher, ana, bo):
                await tools.wait_screen(lambda s: "step 3 of 3" in s, "the second step, everywhere")

            await _alt(teacher, "c")
            await teacher.wait_screen(lambda s: re.search(r"Ana\W+step 3 of 3", s) and re.search(r"Bo\W+step 3 of 3", s)
                                      and "You: step 3 of 3" in s and "follow me" in s,
                                      "the overview: both on step 3 of 3, as their tabs say")
            await teacher.call("Input.insertText", {"text": "m"})  # own pace
            await teacher.wait_screen(lambda s: "own pace" in s, "own pace chosen")
            await ana.wait_screen(lambda s: "own pace" in s, "Ana told")
            await _press(ana, " ", "Space", 32, text=" ")
            await ana.wait_screen(lambda s: "done: 3 steps" in s, "Ana stepping alone")
            await teacher.wait_screen(lambda s: re.search(r"Ana\W+done: 3 steps", s) and re.search(r"Bo\W+step 3 of 3",
                                                                                                   s),
                                      "the overview: Ana ahead")
            await teacher.call("Input.insertText", {"text": "m"})  # follow me again: Ana back on the teacher's step
            await teacher.wait_screen(lambda s: re.search(r"Ana\W+step 3 of 3", s) and "follow me" in s,
                                      "Ana back at step 3 of 3")
            await ana.wait_screen(lambda s: "step 3 of 3" in s, "Ana's lesson rewound to the teacher's step")

            await _press(teacher, "Escape", "Escape", 27)  # back to the lesson: r restarts it, a new run
            await teacher.wait_screen(lambda s: "Class overview" not in s, "the lesson again")
            await teacher.call("Input.insertText", {"text": "r"})
            for tools in (ana, bo):  # every learner's lesson from the top, the question asked again
                await tools.wait_screen(lambda s: "step 1 of 3" in s and "What is left on the server?" in s,
                                        "the lesson restarted in a learner's tab")
            await _press(teacher, " ", "Space", 32, text=" ")
            text = await teacher.wait_screen(lambda s: "0 of 2 learners answered" in s,
                                             "the histogram of the new run: the answers before it left out")
            assert [bar[2:] for bar in _bars(text)] == [(False, "0")] * 3, text
            await _digit(bo, 3)
            text = await teacher.wait_screen(lambda s: "1 of 2 learners answered" in s, "Bo's answer in the new run")
            assert _bars(text)[2][2:] == (True, "1"), text
        finally:
            for http, tools in opened:
                await tools.ws.close()
                await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_the_teachers_secret_leaves_the_address_bar_and_a_reload_keeps_the_teacher(class_serve, chromium):
    """The projector shows the teacher's address bar: once the page has read the secret it is
    gone from there (and from the tab's history), kept in the tab's sessionStorage, so a
    reload is the teacher's tab again, not a learner's. No process under serve has it in its
    command line."""
    proc, learner_url, teacher_url = class_serve
    secret = teacher_url.split("#teacher=", 1)[1]

    async def scenario() -> None:
        http, teacher, _ = await _open_tab(chromium, teacher_url)
        try:
            await teacher.wait_screen(lambda s: "A>" in s and "Alt+C Class" in s, "the teacher's tab")
            shown = await teacher.evaluate("window.location.href")
            assert secret not in shown and "teacher" not in shown and shown.startswith(learner_url), shown
            history = (await teacher.call("Page.getNavigationHistory"))["entries"]
            assert not [entry["url"] for entry in history if secret in entry["url"]], history
            await teacher.evaluate("window.__old = true")
            await teacher.call("Page.reload")
            await _until(teacher, "window.__old === undefined", "the new document")
            text = await teacher.wait_screen(lambda s: "A>" in s or "Your name" in s, "the tab after the reload")
            assert "Alt+C Class" in text and "Your name" not in text, text  # still the teacher's
        finally:
            await teacher.ws.close()
            await http.close()
        for pid in [proc.pid, *_descendants(proc.pid)]:
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()  # noqa: ASYNC240 (procfs or a local path: no wait)
            except OSError:
                continue
            assert secret.encode() not in command, command

    asyncio.run(scenario())
