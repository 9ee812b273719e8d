"""`redis-playground serve` in a real headless chromium, driven over the DevTools protocol:
the page loads, `SET k v` typed into pane A answers OK and the key shows in the inspector,
and no app or server outlives its tab, nor the command.

The terminal in the page is xterm.js drawing on a canvas, so the test reads the screen
from the bytes the page receives on its websocket (recorded by a script added before the
page's own) through a small terminal emulator: cursor moves and text, which is all
Textual's renderer sends beside colours."""

from __future__ import annotations

import asyncio
import re
import signal

import pytest

from playground.cli.app_zygote import NAME as ZYGOTE
from browser import (DEADLINE, _alive, _alt, _descendants, _dialogs, _open_tab, _press, _servers, _settled,
                     _skip_reason, _type_line, _until, _wait_for)


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--session-grace", "0.02", "--ready", "1")], indirect=True)  # 1.2 s
def test_a_tab_gets_its_own_playground_and_leaves_nothing(serve, chromium):
    """The tab attaches to the app serve started before it came (--ready 1), and serve starts
    the next one; the tab's app and server end when the tab closes, the others with serve."""
    proc, url = serve
    ready = _wait_for(lambda: _settled(proc.pid, 1), "the ready app's server")

    async def scenario() -> None:
        http, tools, target = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            started = _descendants(proc.pid)
            assert ready.items() <= started.items(), (ready, started)
            _wait_for(lambda: len(_servers(proc.pid)) == 2, "the pool to start the next ready app")
            await tools.wait_for_js("document.activeElement === document.querySelector('.xterm-helper-textarea')",
                                    "the terminal to take the keys (nobody clicked)")
            await tools.call("Input.insertText", {"text": "SET k v"})
            await tools.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                                        "windowsVirtualKeyCode": 13, "text": "\r"})
            await tools.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter",
                                                        "windowsVirtualKeyCode": 13})
            text = await tools.wait_screen(
                lambda s: re.search(r"^│ OK\s", s, re.M) and re.search(r'^│ k +string +\S+ +"v"', s, re.M),
                "OK in pane A and the key k in the inspector")
            assert re.search(r"^│ A> SET k v\s", text, re.M), text
            await tools.call("Target.closeTarget", {"targetId": target}, session=False)
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())
    took = {pid: name for pid, name in ready.items() if name != ZYGOTE}  # the zygote forks the next apps
    _wait_for(lambda: not _alive(took), f"the tab's app and server (the ready ones it took) to end: {took}")
    assert proc.poll() is None  # serve itself goes on
    assert len(_servers(proc.pid)) == 1  # the next ready app

    async def second_tab() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt in a second tab")
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(second_tab())
    processes = _descendants(proc.pid)
    assert processes
    proc.send_signal(signal.SIGINT)  # Ctrl+C: serve ends, with every app and server
    proc.wait(timeout=DEADLINE)
    _wait_for(lambda: not _alive(processes), f"every app and server to end with serve: {processes}")
    said = proc.stdout.read()
    assert "Unknown child process" not in said and "Traceback" not in said, said


@pytest.mark.slow
def test_the_page_needs_nothing_but_serve(serve, chromium):
    """A class may have no internet: every request the page makes (page, script, styles,
    fonts, websocket) goes to serve itself, on 127.0.0.1."""
    _, url = serve

    async def scenario() -> list[str]:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            await tools.evaluate("document.fonts.ready.then(() => true)", await_promise=True)
            return [e["params"]["request"]["url"] for e in tools.events
                    if e["method"] == "Network.requestWillBeSent"] + [
                e["params"]["url"] for e in tools.events if e["method"] == "Network.webSocketCreated"]
        finally:
            await tools.ws.close()
            await http.close()

    requests = asyncio.run(scenario())
    assert any("/static/js/textual.js" in r for r in requests), requests
    assert any("/static/fonts/RobotoMono" in r for r in requests), requests  # serve's own font
    assert any(r.startswith("ws://127.0.0.1:") for r in requests), requests
    elsewhere = [r for r in requests if not re.match(r"(https?|wss?)://127\.0\.0\.1:\d+/|data:|about:", r)]
    assert not elsewhere, elsewhere


@pytest.mark.slow
def test_served_keys_reach_the_app_and_are_the_ones_shown(serve, chromium):
    """A browser keeps Ctrl+T, Ctrl+N, Ctrl+W and Ctrl+Q (Firefox) for itself: under serve
    Alt+T, Alt+N, Alt+W and Alt+Q do what they do, and the footer, F1 and the texts say so."""
    proc, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            text = await tools.wait_screen(lambda s: "A>" in s and "Alt+T" in s, "pane A and Alt+T in the footer")
            assert "Alt+Q" in text and "^t" not in text and "^q" not in text, text
            await _type_line(tools, "SET k v", enter=False)
            await tools.wait_screen(lambda s: re.search(r"A> SET k v\b", s), "the line typed")
            await _alt(tools, "w")  # Ctrl+W in a terminal: the word to the left goes
            await tools.wait_screen(lambda s: re.search(r"A> SET k +│", s), "Alt+W to delete the word v")
            await _alt(tools, "t")
            await tools.wait_screen(lambda s: "Server order (Alt+T hides)" in s, "Alt+T to show the server order")
            await _press(tools, "F1", "F1", 112)
            await tools.wait_screen(lambda s: re.search(r"Alt\+Q +quit", s), "F1 to name Alt+Q")
            await _press(tools, "End", "End", 35)  # the typing keys are at F1's end
            await tools.wait_screen(lambda s: re.search(r"Alt\+W +delete", s), "F1 to name Alt+W")
            await _press(tools, "Escape", "Escape", 27)
            await _press(tools, "F7", "F7", 118)
            await tools.wait_screen(lambda s: "Open a scenario" in s, "the lesson picker")
            await _press(tools, "Enter", "Enter", 13, text="\r")
            await tools.wait_screen(lambda s: "step 1 of" in s and "Space/Alt+N next" in s, "a lesson, naming Alt+N")
            await _press(tools, "F2", "F2", 113)  # in a pane, where Space types: Alt+N steps
            await _alt(tools, "n")
            await tools.wait_screen(lambda s: "step 2 of" in s, "Alt+N to step the lesson")
            await _alt(tools, "q")
            await _until(tools, "document.body.classList.contains('-closed')", "Alt+Q to end the app")
            assert await tools.evaluate("document.querySelector('.closed-dialog .message').textContent") \
                == "Session ended."
            assert not await tools.evaluate("document.getElementById('session-line').textContent")  # no dead code
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--ready", "1", "--max-tabs", "1")], indirect=True)  # no app starts after it
def test_a_reload_or_a_lost_connection_finds_the_same_session(serve, chromium):
    """The page keeps its session's token: after a reload (which asks "Leave site?" first)
    and after its connection drops, the tab shows its own app again, on the same server."""
    proc, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            await _type_line(tools, "SET k v")

            def shown(s: str) -> bool:
                return bool(re.search(r"^│ A> SET k v\s", s, re.M) and re.search(r"^│ OK\s", s, re.M)
                            and re.search(r'^│ k +string +\S+ +"v"', s, re.M))

            await tools.wait_screen(shown, "OK in pane A and the key k in the inspector")
            before = _descendants(proc.pid)
            await tools.evaluate("window.__old = true")
            await tools.call("Page.reload")
            await _until(tools, "window.__old === undefined", "the new document")
            await tools.wait_screen(shown, "the same pane and key after the reload")
            assert _dialogs(tools) == ["beforeunload"], tools.events  # "Leave site?" was asked
            assert _descendants(proc.pid) == before  # the same app and server, no other
            await _until(tools, "window.__sockets.length === 1 && window.__sockets[0].readyState === 1", "the socket")
            await tools.evaluate("window.__old = true; window.__sockets[0].close(4100, 'drop')")  # a drop
            await _until(tools, "window.__old === undefined", "the page to reload itself and reconnect")
            await tools.wait_screen(shown, "the same pane and key after the connection dropped")
            assert _dialogs(tools) == ["beforeunload"]  # a reconnect does not ask
            assert _descendants(proc.pid) == before
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--max-tabs", "1")], indirect=True)
def test_max_tabs_one_more_tab_is_told_the_class_is_full(serve, chromium):
    proc, url = serve

    async def scenario() -> None:
        http, first, _ = await _open_tab(chromium, url)
        try:
            await first.wait_screen(lambda s: "A>" in s, "the first tab's pane A")
            started = _descendants(proc.pid)
            http2, second, _ = await _open_tab(chromium, url)
            try:
                await _until(second, "document.body.classList.contains('-closed')", "the second tab to be refused")
                message = await second.evaluate("document.querySelector('.closed-dialog .message').textContent")
                assert message.startswith("The class is full"), message
                assert await second.evaluate("getComputedStyle(document.querySelector('.closed-dialog')).display") \
                    == "flex"  # on screen
                assert _descendants(proc.pid) == started  # no app started for it
            finally:
                await second.ws.close()
                await http2.close()
            await first.evaluate("window.__old = true")
            await first.call("Page.reload")  # the first learner's own session still comes back
            await _until(first, "window.__old === undefined", "the new document")
            await first.wait_screen(lambda s: "A>" in s, "the first tab's pane A after a reload")
        finally:
            await first.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_exports_are_downloads_and_history_is_per_learner(serve, chromium, tmp_path):
    """An export goes to the learner's browser as a download, never to a shared file in
    serve's directory; a second learner's Up arrow does not show the first one's command."""
    proc, url = serve
    downloads = tmp_path / "downloads"
    downloads.mkdir()

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)},
                             session=False)
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt")
            await _type_line(tools, "SET k v")
            await tools.wait_screen(lambda s: re.search(r"^│ OK\s", s, re.M), "OK in pane A")
            await _press(tools, "p", "KeyP", 80, modifiers=2)  # Ctrl+P: the command palette
            await tools.call("Input.insertText", {"text": "Export transcript"})
            await tools.wait_screen(lambda s: "For lesson notes" in s, "the palette's export entry")
            await _press(tools, "Enter", "Enter", 13, text="\r")
            await tools.wait_screen(lambda s: "sent to your browser" in s, "the app to say it sent the file")
        finally:
            await tools.ws.close()
            await http.close()
        exported = downloads / "session-transcript.md"
        _wait_for(lambda: exported.exists() and "SET k v" in exported.read_text(), "the download")
        assert not list(tmp_path.glob("*.md")), list(tmp_path.glob("*.md"))  # nothing in serve's directory

        http, tools, _ = await _open_tab(chromium, url)  # a second learner
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A's prompt in a second tab")
            await tools.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
            await _press(tools, "ArrowUp", "ArrowUp", 38)  # another learner's history would fill the line
            await _type_line(tools, "PING")
            text = await tools.wait_screen(lambda s: re.search(r"^│ PONG\s", s, re.M) or "ERR" in s, "PING's reply")
            assert re.search(r"^│ A> PING\s", text, re.M), text
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("serve", [("--ready", "1", "--max-tabs", "2")], indirect=True)
def test_a_ready_app_is_fresh_refilled_and_bounded(server_binary, serve, chromium):
    """A second learner's tab attaches to a ready app that serve started while the first
    learner worked: it has never seen them (no history, no key on its server). --max-tabs 2
    bounds the pool: once two tabs hold their apps, serve starts no other."""
    proc, url = serve

    async def scenario() -> None:
        http, first, _ = await _open_tab(chromium, url)
        try:
            await first.wait_screen(lambda s: "A>" in s, "the first tab's pane A")
            await _type_line(first, "SET secret-of-the-first v")
            await first.wait_screen(lambda s: re.search(r"^│ OK\s", s, re.M), "OK in the first tab")
            held = _wait_for(lambda: _settled(proc.pid, 2), "the first tab's server and the next ready app's")
            http2, second, _ = await _open_tab(chromium, url)
            try:
                await second.wait_screen(lambda s: "A>" in s, "the second tab's pane A")
                assert _descendants(proc.pid) == held  # it took the ready app; no other started (the bound)
                await second.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
                await _press(second, "ArrowUp", "ArrowUp", 38)  # the first learner's history would fill the line
                await _type_line(second, "DBSIZE")
                text = await second.wait_screen(lambda s: re.search(r"^│ \(integer\) \d+\s", s, re.M),
                                                "DBSIZE's reply in the second tab")
                assert re.search(r"^│ A> DBSIZE\s", text, re.M), text
                assert re.search(r"^│ \(integer\) 0\s", text, re.M), text
                assert "secret-of-the-first" not in text, text
                assert _descendants(proc.pid) == held
            finally:
                await second.ws.close()
                await http2.close()
        finally:
            await first.ws.close()
            await http.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_on_a_mac_option_with_a_letter_is_the_alt_key_the_page_names(serve, chromium):
    """macOS types "†" for Option+T (and starts an accent for Option+N): on a Mac the page
    sends Option with a letter to the app as Alt with that letter, so the Alt+T the footer
    names works there too (issue 36)."""
    proc, url = serve

    async def scenario() -> None:
        http, tools, _ = await _open_tab(chromium, url)
        try:
            await tools.wait_screen(lambda s: "A>" in s, "pane A")
            await tools.call("Emulation.setUserAgentOverride", {   # a Mac's browser, from here on
                "userAgent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                             "Chrome/120.0 Safari/537.36", "platform": "MacIntel"})
            await tools.evaluate("window.__old = true")
            await tools.call("Page.reload")   # the same session (the tab keeps its token)
            await _until(tools, "window.__old === undefined", "the new document")
            assert await tools.evaluate("navigator.platform") == "MacIntel"
            await tools.wait_screen(lambda s: "A>" in s and "Alt+T" in s, "pane A and Alt+T in the footer")
            await _press(tools, "†", "KeyT", ord("T"), modifiers=1, text="†")   # what a Mac sends for Option+T
            text = await tools.wait_screen(lambda s: "Server order (Alt+T hides)" in s, "Option+T to show the order")
            assert "†" not in text
        finally:
            await tools.ws.close()
            await http.close()

    asyncio.run(scenario())
