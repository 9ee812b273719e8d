"""serve's page in headless chromium: its own texts (the resume code's line, why a session
closed, the refusal of a code) are in the language its tab's app shows, also after F12
switched it, after a reload and in the tab a resume code opens (serve's page_texts,
cli/web_server.py; the app says its language: tui/served_driver.py); and the box that
refuses an unknown code is laid out as the page's other boxes, at a desktop's and a small
window's size, in English and in Chinese."""

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


BOX = """(() => {
  const box = document.querySelector('.closed-dialog .intro').getBoundingClientRect();
  const parts = [...document.querySelectorAll('.closed-dialog .intro .message, .closed-dialog .intro button,'
                                             + ' .closed-dialog .intro input')]
    .filter((part) => part.offsetParent !== null).map((part) => part.getBoundingClientRect());
  return {box: [box.left, box.top, box.width, box.height], parts: parts.map((p) => [p.left, p.top, p.width, p.height]),
          width: window.innerWidth};
})()"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("serve", [("--ready", "0")], indirect=True)
def test_the_box_for_an_unknown_code_is_laid_out_as_the_others(serve, chromium, lang):
    """640 pixels wide as every box of the page (less in a narrow window), everything in it
    centred and at least 16 pixels from its edges: its message, its button, the code's
    field and the button that sends it."""
    _, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url + "static/css/xterm.css")  # this origin, no session
        try:
            await tools.evaluate(f"sessionStorage.setItem('redis-playground-language', {lang!r})")
            for width, height in ((1280, 900), (800, 600)):
                await tools.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                                        "deviceScaleFactor": 1, "mobile": False})
                await _load(tools, url, url + "#resume=ABCD-EFGH")
                said = await _closed_saying(tools)
                assert said[0] == tr_in(lang, "No session has this code (it may have ended)."), said
                laid = await tools.evaluate(BOX)
                assert laid["width"] == width
                (left, top, box_width, box_height), parts = laid["box"], laid["parts"]
                assert box_width == 640, laid
                assert len(parts) == 4, laid  # the message, its button, the field, the button that sends it
                for x, y, w, h in parts:
                    assert x >= left + 16 and x + w <= left + box_width - 16, (width, laid)
                    assert y >= top + 16 and y + h <= top + box_height - 16, (width, laid)
                for x, _, w, _ in parts[1:]:  # (the message: a block as wide as the text's column)
                    assert abs((x + w / 2) - (left + box_width / 2)) <= 1, (width, laid)
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--ready", "1")], indirect=True)
def test_restart_after_f12_gives_a_playground_in_the_tabs_language(serve, chromium):
    """A learner switched to Chinese, quit (Alt+Q), and pressed Restart: the new playground
    came up in English, serve's language. The page asks for the language it showed last."""
    from browser import _alt

    _, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            await _press(tools, "F12", "F12", 123)
            await tools.wait_screen(lambda s: "界面语言" in s, "the app in Chinese")
            await tools.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            await _alt(tools, "q")
            said = await _closed_saying(tools)
            assert said == (tr_in("zh", "Session ended."), tr_in("zh", "Restart")), said
            await tools.evaluate("window.__old = true")
            await tools.evaluate("document.querySelector('.closed-dialog button').click()")
            await _until(tools, "window.__old === undefined", "the new document")
            await tools.wait_screen(lambda s: "客户端 A" in s, "a new playground, in Chinese")
            await _line_says(tools, "zh", "the code's line in Chinese")
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())
