"""serve's resume codes in headless chromium (cli/resume_codes.py): a tab's page shows its
session's code; a learner who closed the tab comes back into the same session with it,
even when the class is full (their own place is the one taken); a code whose session's
grace ran out opens a fresh playground that says why; a code of no session is refused
in one line."""

from __future__ import annotations

import asyncio
import re

import pytest

from playground.cli.app_zygote import NAME as ZYGOTE

from browser import _alive, _descendants, _open_tab, _press, _skip_reason, _type_line, _until, _wait_for

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

SHOWN = lambda s: (re.search(r"^│ A> SET k v\s", s, re.M) and re.search(r"^│ OK\s", s, re.M)  # noqa: E731
                   and re.search(r'^│ k +string +\S+ +"v"', s, re.M))


async def _code(tools) -> str:
    await _until(tools, "!!document.getElementById('session-code')", "the session's code in the page")
    code = await tools.evaluate("document.getElementById('session-code').textContent")
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code), code
    return code


async def _a_key_then_the_tab_closed(chromium, proc, url: str) -> tuple[str, str, dict[int, str]]:
    """A tab that set k, then was closed (by accident): its code and token, and serve's processes then."""
    http, tools, target = await _open_tab(chromium, url)
    try:
        await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
        await _type_line(tools, "SET k v")
        await tools.wait_screen(SHOWN, "OK in pane A and the key k in the inspector")
        code = await _code(tools)
        link = await tools.evaluate("document.querySelector('#session-line a').href")
        assert link == url + "#resume=" + code.replace("-", ""), link
        assert not await tools.evaluate("document.getElementById('session-notice').textContent")
        processes = _descendants(proc.pid)
        token = await tools.evaluate("sessionStorage.getItem('redis-playground-session')")
        await tools.call("Target.closeTarget", {"targetId": target}, session=False)
    finally:
        await tools.ws.close()
        await http.close()
    return code, token, processes


async def _resume_in_the_box(tools, code: str) -> None:
    await tools.evaluate("window.__old = true; document.querySelector('.resume-form input').focus()")
    await tools.call("Input.insertText", {"text": code.lower()})  # as typed: case and dash do not matter
    await _press(tools, "Enter", "Enter", 13, text="\r")
    await _until(tools, "window.__old === undefined", "the page to open the code's session")


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--max-tabs", "1", "--ready", "0")], indirect=True)
def test_a_closed_tab_comes_back_into_its_session_with_its_code_even_when_full(serve, chromium):
    proc, url = serve

    async def scenario() -> None:
        code, _, before = await _a_key_then_the_tab_closed(chromium, proc, url)  # closed by accident

        http, tools, _ = await _open_tab(chromium, url)  # a new tab: the one place is theirs, still taken
        try:
            await _until(tools, "document.body.classList.contains('-closed')", "the new tab to be refused")
            message = await tools.evaluate("document.querySelector('.closed-dialog .message').textContent")
            assert message.startswith("The class is full"), message
            await _resume_in_the_box(tools, code)
            await tools.wait_screen(SHOWN, "the same pane and key, from the code")
            assert _descendants(proc.pid) == before  # the same app and server, no other
            assert await _code(tools) == code
            assert "resume" not in await tools.evaluate("window.location.href")  # a reload uses the token
            await tools.evaluate("window.__old = true")
            await tools.call("Page.reload")
            await _until(tools, "window.__old === undefined", "the new document")
            await tools.wait_screen(SHOWN, "the same session after a reload")
            assert _descendants(proc.pid) == before
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--session-grace", "0.02", "--ready", "0")], indirect=True)  # 1.2 s
def test_a_session_ended_by_grace_says_so_and_an_unknown_code_is_refused(serve, chromium):
    proc, url = serve

    async def scenario() -> None:
        code, token, processes = await _a_key_then_the_tab_closed(chromium, proc, url)
        first = {pid: name for pid, name in processes.items() if name != ZYGOTE}
        _wait_for(lambda: not _alive(first), f"the closed tab's app and server to end after the grace: {first}")

        http, tools, _ = await _open_tab(chromium, url + "static/css/xterm.css")  # this origin, no session
        try:  # the tab's own token, as a tab that comes back (a laptop asleep past the grace) reloads with it
            await tools.evaluate(f"sessionStorage.setItem('redis-playground-session', '{token}')")
            await tools.call("Page.navigate", {"url": url})
            await tools.wait_screen(lambda s: "A>" in s, "a playground for the token")
            await _until(tools, "document.getElementById('session-notice').textContent.includes('0.02 minutes')",
                         "the notice, for the token")
        finally:
            await tools.ws.close()
            await http.close()

        http, tools, _ = await _open_tab(chromium, url + "#resume=" + code)
        try:
            text = await tools.wait_screen(lambda s: "A>" in s, "a playground")
            await _until(tools, "document.getElementById('session-notice').classList.contains('-shown')",
                         "the notice")
            notice = await tools.evaluate("document.getElementById('session-notice').textContent")
            assert notice == "Your session ended after 0.02 minutes away; this is a fresh playground.", notice
            assert "SET k v" not in text and '"v"' not in text, text  # fresh: nothing of the old session
            assert await _code(tools) != code
        finally:
            await tools.ws.close()
            await http.close()

        http, tools, _ = await _open_tab(chromium, url + "#resume=ABCD-EFGH")
        try:
            await _until(tools, "document.body.classList.contains('-closed')", "an unknown code to be refused")
            message = await tools.evaluate("document.querySelector('.closed-dialog .message').textContent")
            assert message == "No session has this code (it may have ended).", message
            assert "resume" not in await tools.evaluate("window.location.href")  # its button: a new playground
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())
