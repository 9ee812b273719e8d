"""serve's page in headless chromium: its own texts (the resume code's line, why a session
closed, the refusal of a code) are in the language its tab's app shows, also after F12
switched it, after a reload and in the tab a resume code opens (serve's page_texts,
cli/web_server.py; the app says its language: tui/served_driver.py)."""

from __future__ import annotations

import asyncio

import pytest

from playground.i18n import tr_in

from browser import _open_tab, _press, _skip_reason, _until

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

CODE_LINE = "To come back to this session (another tab, or after closing this one):"


async def _line_says(tools, lang: str, what: str) -> None:
    """The session line says the resume code's text in `lang`."""
    text = tr_in(lang, CODE_LINE)
    await _until(tools, f"(document.getElementById('session-line').textContent || '').startsWith({text!r})", what)


async def _load(tools, url: str, address: str) -> None:
    """`address` (of serve at `url`) loaded anew in the tab: another page of serve's first
    (to the same page with only another #fragment, a browser stays on the document)."""
    await tools.call("Page.navigate", {"url": url + "static/css/xterm.css"})
    await _until(tools, "document.readyState === 'complete' && location.pathname.startsWith('/static/')",
                 "serve's stylesheet")
    await tools.call("Page.navigate", {"url": address})
    await _until(tools, "document.readyState === 'complete' && !location.pathname.startsWith('/static/')",
                 "the page")


async def _closed_saying(tools) -> tuple[str, str]:
    await _until(tools, "document.body.classList.contains('-closed')", "the tab's box")
    return (await tools.evaluate("document.querySelector('.closed-dialog .message').textContent"),
            await tools.evaluate("document.querySelector('.closed-dialog button').textContent"))


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--ready", "0")], indirect=True)
def test_the_pages_texts_follow_the_language_of_its_app(serve, chromium):
    _, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        opened = [(http, tools)]
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            await _line_says(tools, "en", "the code's line in English (serve's language)")
            await _press(tools, "F12", "F12", 123)  # the app in Chinese: the page's texts too
            await tools.wait_screen(lambda s: "界面语言" in s, "the app in Chinese")
            await _line_says(tools, "zh", "the code's line in Chinese after F12")
            assert await tools.evaluate("document.documentElement.lang") == "zh"
            code = await tools.evaluate("document.getElementById('session-code').textContent")

            await tools.evaluate("window.__old = true")
            await tools.call("Page.reload")
            await _until(tools, "window.__old === undefined", "the new document")
            await tools.wait_screen(lambda s: "A>" in s, "the session after the reload")
            await _line_says(tools, "zh", "the code's line still in Chinese after a reload")

            http, other, _ = await _open_tab(chromium, url + "#resume=" + code)  # a tab of its own: nothing kept
            opened.append((http, other))
            await other.wait_screen(lambda s: "A>" in s, "the session, in the tab its code opened")
            await _line_says(other, "zh", "the code's line in Chinese in the tab the code opened")
            said = await _closed_saying(tools)  # the first tab: its session went to the other
            assert said[0] == tr_in("zh", "This session is open in another tab."), said

            await _load(tools, url, url + "#resume=ABCDEFGH")  # in the first tab, a code of no session
            said = await _closed_saying(tools)
            assert said == (tr_in("zh", "No session has this code (it may have ended)."),
                            tr_in("zh", "New playground")), said
            assert await tools.evaluate("document.querySelector('.resume-form input').placeholder") == tr_in(
                "zh", "Your code")

            await _press(other, "F12", "F12", 123)  # and back: English again
            await _line_says(other, "en", "the code's line in English after F12 again")
        finally:
            for http, tab in opened:
                await tab.ws.close()
                await http.close()

    asyncio.run(scenario())

