"""Helpers for the tests of a real `redis-playground serve` (tests/cli/test_serve_*.py): a
serve of the test's own, and a tab played by a websocket client speaking the page's protocol
(as textual.js does), reading what the app draws."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
from contextlib import contextmanager

from browser import DEADLINE, SRC, _free_port, _wait_for

ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


@contextmanager
def serving(tmp_path, *options: str, temp: str | None = None, stdout=subprocess.PIPE):
    """`serve` on a free port with `options` (its servers the bundled one), its TMPDIR a
    directory of the test's: (process, URL, TMPDIR). Ended as Ctrl+C ends it."""
    port = _free_port()
    temp = temp or tempfile.mkdtemp(prefix="rp-serve-")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
           "LANG": "C.UTF-8", "REDIS_PLAYGROUND_STATE_DIR": str(tmp_path / "state"), "TMPDIR": temp}
    proc = subprocess.Popen([sys.executable, "-m", "playground", "--lang", "en", "serve", "--port", str(port),
                             "--server", "bundled", *options],
                            stdout=stdout, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path)
    try:
        proc.before = ""  # what serve said before its URL
        if stdout is subprocess.PIPE:
            proc.before = _lines_until(proc.stdout, r"http://127\.0\.0\.1:\d+", "serve to listen")
        _wait_for(lambda: _connects(port), "serve to accept connections")  # (it says its URL, then listens)
        yield proc, f"http://127.0.0.1:{port}/", temp
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait(timeout=30)


def _lines_until(stream, pattern: str, what: str) -> str:
    """The lines of `stream` up to the first matching `pattern` (read in a thread, bounded)."""
    import threading

    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in stream:
            lines.append(line)
            if re.search(pattern, line):
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(DEADLINE):
        raise AssertionError(f"timed out waiting for {what}: {''.join(lines)}")
    return "".join(lines)


def _connects(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=DEADLINE).close()
    except ConnectionRefusedError:
        return False
    return True


class Tab:
    """A tab of serve's page, as textual.js speaks: keys in, the app's output read back."""

    def __init__(self, http, url: str, host: str | None = None, origin: str | None = None) -> None:
        self.http, self.url = http, url
        self.host = host
        self.origin = origin if origin is not None else url.rstrip("/")
        self.text = bytearray()  # what the app drew, escape sequences left out
        self.said: list = []  # serve's own messages to the page (JSON), in order
        self.changed = asyncio.Condition()
        self.ws = None
        self.reader: asyncio.Task | None = None

    async def open(self, first: str | None = None, token: str | None = None, query: str = "") -> None:
        """The websocket; `first`: a first message (class mode's), sent before the size;
        `token`: the session's (default: a new one); `query`: more of the URL's query."""
        headers = {"Host": self.host} if self.host else {}
        self.ws = await self.http.ws_connect(self.url.replace("http://", "ws://")
                                             + f"ws/{token or secrets.token_hex(16)}?width=120&height=40{query}",
                                             origin=self.origin, headers=headers, max_msg_size=0)
        if first is not None:
            await self.ws.send_str(first)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if isinstance(message.data, bytes):
                self.text += ESCAPES.sub(b"", message.data)
            elif isinstance(message.data, str):
                self.said.append(json.loads(message.data))
            async with self.changed:
                self.changed.notify_all()
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, needle: bytes, after: int = 0) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: needle in self.text[after:]), DEADLINE)

    async def closed(self) -> int | None:
        """Until serve closes the websocket: its close code."""
        await asyncio.wait_for(self.reader, DEADLINE)
        return self.ws.close_code

    async def keys(self, text: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", text]))

    async def line(self, text: str, reply: bytes) -> None:
        """A line typed and Enter, until `reply` is drawn after it."""
        after = len(self.text)
        await self.keys(text + "\r")
        await self.wait_for(reply, after)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
