"""`serve --class` in headless chromium, the class's places and periods: the teacher frees
the place of a learner who closed their tab (Alt+C, d), so that another tab gets in where
--max-tabs had it refused, and the teacher's URL opened again finds the teacher's session;
`--new-period` starts the class afresh on a shared class Redis (--class-url): the last
period's teacher URL leads no more, its lesson is not opened."""

from __future__ import annotations

import asyncio

import pytest

from playground.classroom import class_server
from playground.classroom.protocol import ClassLink
from browser import DEADLINE, _alt, _open_tab, _press, _skip_reason, _type_line, _until
from browser import class_serving
from paths import SCENARIOS as SCENARIOS_DIR

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


async def _learner(chromium, url: str, name: str, opened: list):
    http, tools, target = await _open_tab(chromium, url)
    opened.append((http, tools))
    await tools.wait_screen(lambda s: "Your name" in s, f"{name}'s name question")
    await _type_line(tools, name)
    await tools.wait_screen(lambda s: "A>" in s and "Your name" not in s, f"{name}'s playground")
    return tools, target


@pytest.mark.slow
def test_the_teacher_frees_the_place_of_a_learner_who_closed_the_tab(tmp_path, server_binary, chromium):
    async def scenario(learner_url: str, teacher_url: str) -> None:
        opened = []
        try:
            http, teacher, teacher_target = await _open_tab(chromium, teacher_url)
            opened.append((http, teacher))
            await teacher.wait_screen(lambda s: "A>" in s and "Alt+C Class" in s, "the teacher's tab")
            ana, target = await _learner(chromium, learner_url, "Ana", opened)
            await ana.call("Target.closeTarget", {"targetId": target}, session=False)  # by accident
            bo, _ = await _learner(chromium, learner_url, "Bo", opened)

            http, late, _ = await _open_tab(chromium, learner_url)  # the teacher's, Ana's and Bo's: --max-tabs 3
            opened.append((http, late))
            await _until(late, "document.body.classList.contains('-closed')", "the late tab to be refused")
            assert (await late.evaluate("document.querySelector('.closed-dialog .message').textContent")
                    ).startswith("The class is full")

            await teacher.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            await _alt(teacher, "c")
            await teacher.wait_screen(lambda s: "Class overview" in s and "Ana" in s and "Bo" in s, "the overview")
            await teacher.call("Input.insertText", {"text": "d"})
            await teacher.wait_screen(lambda s: "Release a place" in s and "Whose place?" in s, "the picker")
            await _press(teacher, "Enter", "Enter", 13, text="\r")  # the first: Ana
            await teacher.wait_screen(lambda s: "Ana's place is free" in s, "Ana's place freed")

            for _ in range(int(DEADLINE)):  # until Ana's session has ended (her app quits on the release)
                await late.evaluate("window.__old = true")
                await late.call("Page.reload")
                await _until(late, "window.__old === undefined", "the new document")
                await _until(late, "document.body.classList.contains('-closed') || "
                                   "!!document.getElementById('session-code')", "a place or a refusal")
                if not await late.evaluate("document.body.classList.contains('-closed')"):
                    break
                await asyncio.sleep(1)  # the next try, bounded by the loop
            await late.wait_screen(lambda s: "Your name" in s, "the late learner in Ana's freed place")

            await teacher.call("Input.insertText", {"text": "d"})  # Bo's place too: Bo's open tab says why
            await teacher.wait_screen(lambda s: "Whose place?" in s and "Ana  (" not in s, "the picker, Bo alone")
            await _press(teacher, "Enter", "Enter", 13, text="\r")
            await _until(bo, "document.body.classList.contains('-closed')", "Bo's session to end")
            assert await bo.evaluate("document.querySelector('.closed-dialog .message').textContent") \
                == "Your teacher freed your place in the class: this session is over."
            await teacher.wait_screen(lambda s: "no learner yet" in s, "nobody left in the overview")

            await teacher.call("Target.closeTarget", {"targetId": teacher_target}, session=False)
            http, again, _ = await _open_tab(chromium, teacher_url)  # the teacher's URL again: the same session
            opened.append((http, again))
            await again.wait_screen(lambda s: "Class overview" in s, "the teacher's own app, still on the overview")
            assert not await again.evaluate("document.getElementById('session-line').textContent")  # no code

            http, third, _ = await _open_tab(chromium, teacher_url)  # again, while that tab is still open:
            opened.append((http, third))  # the one teacher's session moves to it, never a second teacher's app
            await third.wait_screen(lambda s: "Class overview" in s, "the teacher's own app in the newest tab")
            await _until(again, "document.body.classList.contains('-closed')", "the earlier teacher tab to be told")
            assert await again.evaluate("document.querySelector('.closed-dialog .message').textContent") \
                == "This session is open in another tab."
        finally:
            for http, tools in opened:
                await tools.ws.close()
                await http.close()

    with class_serving(tmp_path, server_binary, "--ready", "0", "--max-tabs", "3") as (_, learner_url, teacher_url):
        asyncio.run(scenario(learner_url, teacher_url))


@pytest.mark.slow
def test_a_new_period_leaves_the_last_ones_lesson_and_teacher_behind(tmp_path, server_binary, private_server,
                                                                     chromium):
    url = class_server.private_url(private_server)  # a shared class Redis (--class-url-file: never in argv)
    url_file = tmp_path / "class-url"
    url_file.write_text(url + "\n")
    url_file.chmod(0o600)

    async def lead_last_period() -> None:  # what the last period's teacher left: a lesson on its step 2
        link = ClassLink(class_server.address(url))
        try:
            epoch = await link.open_lesson("pcall", False, _pcall())
            await link.set_step(epoch, 2)
        finally:
            await link.close()

    with class_serving(tmp_path, server_binary, "--ready", "0", "--class-url-file", str(url_file)) as (_, _,
                                                                                                       old_teacher):
        asyncio.run(lead_last_period())
    with class_serving(tmp_path, server_binary, "--ready", "0", "--class-url-file", str(url_file),
                       "--new-period") as (_, learner_url, teacher_url):
        assert teacher_url != old_teacher

        async def scenario() -> None:
            opened = []
            try:
                old, _ = await _learner(chromium, learner_url + old_teacher.split("/", 3)[3], "Old", opened)
                text = await old.screen()  # the old teacher's URL: a learner's tab, the name asked
                assert "Alt+C Class" not in text, text
                http, teacher, _ = await _open_tab(chromium, teacher_url)
                opened.append((http, teacher))
                await teacher.wait_screen(lambda s: "A>" in s and "Alt+C Class" in s, "the new teacher's tab")
                await teacher.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
                await _alt(teacher, "c")
                text = await teacher.wait_screen(lambda s: "Class overview" in s and "Old" in s, "the overview")
                assert "Lesson: none yet" in text and "You: –" in text, text  # nothing inherited
                assert "step 1 of" not in await old.screen()  # the old lesson is not opened for a learner
            finally:
                for http, tools in opened:
                    await tools.ws.close()
                    await http.close()

        asyncio.run(scenario())


def _pcall() -> str:

    return (SCENARIOS_DIR / "pcall.toml").read_text()
