"""`serve --class` in headless chromium, the class's end: the teacher's Alt+Q asks, then
ends the class for every learner; each learner's tab says the teacher ended the class and
offers no restart (the class is over), the teacher's says they ended it (Restart: a new
teacher's tab); once serve stops, a class's tab says the class is over, not "Session ended"
with a Restart that would find nothing."""

from __future__ import annotations

import asyncio

import pytest

from browser import DEADLINE, _alt, _open_tab, _skip_reason, _type_line, _until
from browser import class_serving

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

SAID = "document.querySelector('.closed-dialog .message').textContent"
BUTTON = "getComputedStyle(document.querySelector('.closed-dialog button')).display !== 'none'"


async def _closed(tools, what: str) -> tuple[str, bool]:
    """Once the tab says its session is over: what it says, and whether it offers a button."""
    await _until(tools, "document.body.classList.contains('-closed')", what)
    return await tools.evaluate(SAID), await tools.evaluate(BUTTON)


@pytest.mark.slow
def test_the_teacher_ends_the_class_and_every_tab_says_so(tmp_path, server_binary, chromium):
    async def scenario(proc, learner_url: str, teacher_url: str) -> None:
        opened = []
        try:
            http, teacher, _ = await _open_tab(chromium, teacher_url)
            opened.append((http, teacher))
            await teacher.wait_screen(lambda s: "A>" in s and "Alt+C Class" in s, "the teacher's tab")
            http, ana, _ = await _open_tab(chromium, learner_url)
            opened.append((http, ana))
            await ana.wait_screen(lambda s: "Your name" in s, "Ana's name question")
            await _type_line(ana, "Ana")
            await ana.wait_screen(lambda s: "A>" in s and "Your name" not in s, "Ana's playground")

            await teacher.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            await _alt(teacher, "q")
            await teacher.wait_screen(lambda s: "End the class for every learner?" in s, "the teacher asked first")
            assert not await ana.evaluate("document.body.classList.contains('-closed')")
            await teacher.call("Input.insertText", {"text": "y"})

            assert await _closed(ana, "Ana's tab to end") == ("Your teacher ended the class: this session is over.",
                                                             False)
            assert await _closed(teacher, "the teacher's tab to end") == (
                "You ended the class: every learner's tab says so.", True)

            http, late, _ = await _open_tab(chromium, learner_url)  # a tab open when serve stops
            opened.append((http, late))
            await late.wait_screen(lambda s: "Your name" in s, "a later tab's name question")
            await _type_line(late, "Cy")
            await late.wait_screen(lambda s: "A>" in s and "Your name" not in s, "Cy's playground")
            proc.terminate()  # as Ctrl+C
            assert await _closed(late, "the later tab to end with serve") == (
                "The class is over: its server (serve) stopped.", False)
            await asyncio.to_thread(proc.wait, DEADLINE)  # its end done (not a second SIGTERM in the middle of it)
        finally:
            for http, tools in opened:
                await tools.ws.close()
                await http.close()

    with class_serving(tmp_path, server_binary, "--ready", "0") as (proc, learner_url, teacher_url):
        asyncio.run(scenario(proc, learner_url, teacher_url))


@pytest.mark.slow
def test_a_tab_open_when_serve_stops_says_serve_stopped(serve, chromium):
    """Outside a class too: "Session ended." with a Restart that found nothing (serve had
    gone) was all a tab said when serve stopped. Now it says serve stopped, and its button
    tries again (a serve started again, by hand or by a service manager, answers it)."""
    proc, url = serve

    async def scenario() -> None:
        http, tab, _ = await _open_tab(chromium, url)
        try:
            await tab.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            proc.terminate()  # as Ctrl+C
            assert await _closed(tab, "the tab to end with serve") == (
                "The playground's server (serve) stopped: this session is over.", True)
            assert await tab.evaluate("document.querySelector('.closed-dialog button').textContent") == "Try again"
            await asyncio.to_thread(proc.wait, DEADLINE)
        finally:
            await tab.ws.close()
            await http.close()

    asyncio.run(scenario())
