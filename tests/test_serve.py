"""`redis-playground serve` in a real headless chromium, driven over the DevTools protocol:
the page loads, `SET k v` typed into pane A answers OK and the key shows in the inspector,
and no app or server outlives its tab, nor the command.

The terminal in the page is xterm.js drawing on a canvas, so the test reads the screen
from the bytes the page receives on its websocket (recorded by a script added before the
page's own) through a small terminal emulator: cursor moves and text, which is all
Textual's renderer sends beside colours."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from playground.cli.app_zygote import NAME as ZYGOTE

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SRC = str(Path(__file__).resolve().parents[1] / "src")
DEADLINE = 90.0  # seconds for anything the test waits for


def _skip_reason() -> str | None:
    if not os.access(CHROMIUM, os.X_OK):
        return "chromium is not installed (apt-get install chromium): the browser test needs it"
    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        return "textual-serve is not installed (pip install -e '.[serve]')"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

RECORDER = """
(() => {
  window.__received = [];
  window.__sockets = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    window.__sockets.push(socket);
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") {
        let text = ""; const bytes = new Uint8Array(event.data);
        for (const b of bytes) text += String.fromCharCode(b);
        window.__received.push(btoa(text));
      }
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();
"""


class Screen:
    """Enough of a terminal for Textual's output: CUP moves, text, CR/LF; the rest ignored."""

    CSI = re.compile(r"\x1b\[([0-9;?<>=]*)([@-~])|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

    def __init__(self, width: int, height: int) -> None:
        self.rows = [[" "] * width for _ in range(height)]
        self.x = self.y = 0

    def feed(self, text: str) -> None:
        pos = 0
        for match in self.CSI.finditer(text):
            self._text(text[pos:match.start()])
            pos = match.end()
            if match.group(2) == "H":
                parts = [int(p) if p.isdigit() else 1 for p in (match.group(1) or "1;1").split(";")]
                self.y, self.x = parts[0] - 1, (parts[1] if len(parts) > 1 else 1) - 1
            elif match.group(2) == "J" and match.group(1) == "2":
                for row in self.rows:
                    row[:] = [" "] * len(row)
        self._text(text[pos:])

    def _text(self, text: str) -> None:
        for char in text:
            if char == "\r":
                self.x = 0
            elif char == "\n":
                self.y += 1
            elif char >= " " and 0 <= self.y < len(self.rows) and 0 <= self.x < len(self.rows[0]):
                self.rows[self.y][self.x] = char
                self.x += 1

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.rows)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _descendants(pid: int) -> dict[int, str]:
    """Every process under `pid`: pid -> command name."""
    children: dict[int, list[int]] = {}
    names = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
        names[int(entry)] = name
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = names[child]
            todo.append(child)
    return found


def _alive(pids) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _wait_for(predicate, what: str):
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)  # polling a condition, bounded by DEADLINE
    raise AssertionError(f"timed out waiting for {what}")


def _readline_matching(stream, pattern: str, what: str) -> re.Match:
    """The first line of `stream` matching `pattern`, read in a thread so it stays bounded."""
    import threading

    found: list = []

    def read() -> None:
        for line in stream:
            if match := re.search(pattern, line):
                found.append(match)
                return

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if not found:
        raise AssertionError(f"timed out waiting for {what}")
    return found[0]


class DevTools:
    """A chromium page over the DevTools protocol (flat sessions)."""

    def __init__(self, ws) -> None:
        self.ws, self.next_id, self.session = ws, 0, None
        self.events: list[dict] = []  # every event chromium sent (Network.enable: each request)

    async def call(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        await self.ws.send_str(json.dumps(message))
        while True:
            reply = json.loads((await asyncio.wait_for(self.ws.receive(), DEADLINE)).data)
            if "method" in reply:
                self.events.append(reply)
                if reply["method"] == "Page.javascriptDialogOpening":  # "Leave site?": leave
                    await self.ws.send_str(json.dumps({"id": 10**9 + len(self.events), "sessionId": self.session,
                                                       "method": "Page.handleJavaScriptDialog",
                                                       "params": {"accept": True}}))
            elif reply.get("id") == self.next_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    async def evaluate(self, expression: str, await_promise: bool = False):
        """The expression's value; None while the page is between two documents (a reload)."""
        try:
            result = await self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                          "awaitPromise": await_promise})
        except AssertionError as error:
            if "navigated or closed" in str(error) or "context was destroyed" in str(error):
                return None
            raise
        return result["result"].get("value")

    async def screen(self, width: int = 250, height: int = 80) -> str:
        chunks = await self.evaluate("window.__received || []") or []
        screen = Screen(width, height)
        screen.feed(b"".join(base64.b64decode(c) for c in chunks).decode("utf-8", "replace"))
        return screen.text()

    async def wait_for_js(self, expression: str, what: str) -> None:
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            if await self.evaluate(expression):
                return
            await asyncio.sleep(0.1)  # polling the page, bounded by DEADLINE
        raise AssertionError(f"timed out waiting for {what}")

    async def wait_screen(self, predicate, what: str) -> str:
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            text = await self.screen()
            if predicate(text):
                return text
            await asyncio.sleep(0.3)  # polling the page, bounded by DEADLINE
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{text}")


@pytest.fixture
def serve(request, tmp_path):
    """serve on a free port (its servers: the test's `server_binary` if it asks for one, else
    the bundled one); indirect parameters: more options for it. Its TMPDIR is a
    directory of its own (short: the private servers' unix sockets are in it), left empty."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="rp-serve-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
           "LANG": "C.UTF-8", "REDIS_PLAYGROUND_STATE_DIR": str(tmp_path / "state"), "TMPDIR": temp}
    server = request.getfixturevalue("server_binary").path if "server_binary" in request.fixturenames else "bundled"
    proc = subprocess.Popen([sys.executable, "-m", "playground", "serve", "--port", str(port), "--server", server,
                             *getattr(request, "param", ())],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    try:
        _readline_matching(proc.stdout, r"http://127\.0\.0\.1:\d+", "serve to listen")
        yield proc, f"http://127.0.0.1:{port}/"
    finally:
        if proc.poll() is None:
            proc.terminate()  # as Ctrl+C: serve ends its sessions and removes their directories
            try:
                proc.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait(timeout=30)
        left = os.listdir(temp)
        shutil.rmtree(temp, ignore_errors=True)
        assert not left, f"serve left {left}"


@pytest.fixture
def chromium(tmp_path):
    proc = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         # no name resolves but 127.0.0.1's: the tests send nothing to any other host
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
         f"--user-data-dir={tmp_path / 'chromium'}", "--remote-debugging-port=0", "--window-size=1400,900",
         "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        match = _readline_matching(proc.stderr, r"DevTools listening on (ws://\S+)", "chromium's DevTools")
        yield match.group(1)
    finally:
        proc.kill()
        proc.wait(timeout=30)


async def _press(tools: DevTools, key: str, code: str, vk: int, modifiers: int = 0, text: str = "") -> None:
    """A key pressed and released (modifiers: 1 Alt, 2 Ctrl, 8 Shift)."""
    down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
            "windowsVirtualKeyCode": vk, "modifiers": modifiers}
    if text:
        down["text"] = text
    await tools.call("Input.dispatchKeyEvent", down)
    await tools.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                                "windowsVirtualKeyCode": vk, "modifiers": modifiers})


async def _alt(tools: DevTools, letter: str) -> None:
    await _press(tools, letter, f"Key{letter.upper()}", ord(letter.upper()), modifiers=1)


async def _type_line(tools: DevTools, text: str, enter: bool = True) -> None:
    await tools.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
    await tools.call("Input.insertText", {"text": text})
    if enter:
        await _press(tools, "Enter", "Enter", 13, text="\r")


async def _open_tab(browser_ws, url: str):
    import aiohttp

    http = aiohttp.ClientSession()
    ws = await http.ws_connect(browser_ws, max_msg_size=0)
    tools = DevTools(ws)
    target = (await tools.call("Target.createTarget", {"url": "about:blank"}))["targetId"]
    tools.session = (await tools.call("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
    await tools.call("Page.enable")
    await tools.call("Network.enable")
    await tools.call("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    await tools.call("Page.navigate", {"url": url})
    return http, tools, target


def _servers(pid: int) -> dict[int, str]:
    return {p: name for p, name in _descendants(pid).items() if "server" in name}


def _settled(pid: int, servers: int) -> dict[int, str] | None:
    """Every process under `pid` once `servers` servers run, each with its watchdog started
    (server/children.py): a watchdog just forked still bears its parent's name until it
    execs `sh`, so a tree taken then names it differently a moment later."""
    tree = _descendants(pid)
    names = list(tree.values())
    return tree if sum("server" in name for name in names) == servers == names.count("sh") else None


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


async def _until(tools: DevTools, expression: str, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while await tools.evaluate(expression) is not True:
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)  # polling the page, bounded by DEADLINE


def _dialogs(tools: DevTools) -> list[str]:
    return [e["params"]["type"] for e in tools.events if e["method"] == "Page.javascriptDialogOpening"]


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
            shown = lambda s: (re.search(r"^│ A> SET k v\s", s, re.M) and re.search(r"^│ OK\s", s, re.M)
                               and re.search(r'^│ k +string +\S+ +"v"', s, re.M))  # noqa: E731
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
