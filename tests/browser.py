"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

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


async def _until(tools: DevTools, expression: str, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while await tools.evaluate(expression) is not True:
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)  # polling the page, bounded by DEADLINE


def _dialogs(tools: DevTools) -> list[str]:
    return [e["params"]["type"] for e in tools.events if e["method"] == "Page.javascriptDialogOpening"]


@contextmanager
def class_serving(tmp_path, server_binary, *options):
    """serve --class with `options` on a free port, every server (the tabs', the class's) of
    `server_binary`: (process, the learners' URL, the teacher's URL)."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="rp-class-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
           "LANG": "C.UTF-8", "REDIS_PLAYGROUND_STATE_DIR": str(tmp_path / "state"), "TMPDIR": temp}
    proc = subprocess.Popen([sys.executable, "-m", "playground", "--lang", "en", "serve", "--port", str(port),
                             "--server", server_binary.path, "--class", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    try:
        learners = _readline_matching(proc.stdout, r"learners: (http://127\.0\.0\.1:\d+/)", "the learners' URL")
        teacher = _readline_matching(proc.stdout, r"teacher .*: (http://127\.0\.0\.1:\d+/#teacher=\S+)",
                                     "the teacher's URL")
        yield proc, learners.group(1), teacher.group(1)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait(timeout=30)
        said = proc.stdout.read()
        assert not re.search(r"Traceback|WARNING|ERROR|Unknown child process", said), said  # tabs closed quietly
        left = os.listdir(temp)
        shutil.rmtree(temp, ignore_errors=True)
        assert not left, f"serve left {left}"  # the class's private server too
