"""What serve lets in (cli/serve_guard.py), on a real serve: a websocket from another site's
page is refused before any app starts; the terminal size a tab asks for, in its URL or in
a resize message, is clamped (the next ready app starts at the last size asked: clamped too)."""

from __future__ import annotations

import asyncio
import re
import secrets
import socket

import pytest

from playground.cli.serve_guard import MAX_SIZE, same_origin, terminal_size
from browser import DEADLINE, _skip_reason, _wait_for

pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")

CUP = re.compile(r"\x1b\[(\d+);(\d+)H")


@pytest.mark.parametrize("origin, host, allowed", [
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
    ("http://LOCALHOST:8000", "localhost:8000", True),
    ("https://class.example", "class.example", True),  # default ports on both sides
    ("http://[::1]:8000", "[::1]:8000", True),
    (None, "127.0.0.1:8000", True),  # no browser: it could send any Origin
    ("http://evil.example", "127.0.0.1:8000", False),
    ("http://127.0.0.1:8001", "127.0.0.1:8000", False),  # another local page
    ("https://class.example", "class.example:80", False),
    ("null", "127.0.0.1:8000", False),  # a sandboxed frame or a file:// page
    ("file:///tmp/x.html", "127.0.0.1:8000", False),
    ("http://a b", "a", False),
])
def test_only_the_pages_own_origin_is_let_in(origin, host, allowed):
    assert same_origin(origin, host) is allowed


def test_a_size_is_clamped_and_anything_else_is_the_default():
    assert terminal_size("5000", "3000") == MAX_SIZE
    assert terminal_size(120, 40) == (120, 40)
    assert terminal_size("0", "-4") == (10, 5)
    assert terminal_size("abc", None) == (80, 24)
    assert terminal_size("1e400", {"x": 1}) == (80, 24)


def _listening(url: str) -> None:
    """Until serve accepts connections (it prints its URL just before it listens)."""
    from urllib.parse import urlsplit

    where = urlsplit(url)
    _wait_for(lambda: _connects(where.hostname, where.port), "serve to accept connections")


def _connects(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=DEADLINE).close()
    except ConnectionRefusedError:
        return False
    return True


def test_a_resize_message_is_clamped_before_it_reaches_the_app(tmp_path):
    from playground.cli.served_app import PlaygroundApp

    app = PlaygroundApp(["redis-playground"], set(), 0, tmp_path, write_bytes=None, write_str=None, close=None,
                        download_manager=None)
    told = []

    async def send_meta(data: dict) -> None:  # what would go down the app's stdin
        told.append(data)

    app.send_meta = send_meta
    asyncio.run(app.set_terminal_size(9000, "9000"))
    asyncio.run(app.set_terminal_size(120, 40))
    assert told == [{"type": "resize", "width": MAX_SIZE[0], "height": MAX_SIZE[1]},
                    {"type": "resize", "width": 120, "height": 40}]


async def _drawn_size(ws) -> tuple[int, int]:
    """The farthest row and column the app draws at in its first frame (Textual moves the
    cursor to each line): once it reaches the last row a clamped size has."""
    rows = cols = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while rows < MAX_SIZE[1]:
        message = await asyncio.wait_for(ws.receive(), max(0.1, end - loop.time()))
        if isinstance(message.data, bytes):
            for row, col in CUP.findall(message.data.decode("utf-8", "replace")):
                rows, cols = max(rows, int(row)), max(cols, int(col))
    return rows, cols


def test_another_sites_websocket_is_refused_and_sizes_are_clamped(serve):
    import aiohttp

    proc, url = serve
    _listening(url)
    ws_url = url.replace("http://", "ws://") + f"ws/{secrets.token_hex(16)}"

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(ws_url + "?width=80&height=24", origin="http://evil.example")
            assert refused.value.status == 403  # refused before its handshake: no app is started for it
            async with http.ws_connect(ws_url + "?width=5000&height=3000", origin=url.rstrip("/")) as ws:
                rows, cols = await _drawn_size(ws)
                assert rows == MAX_SIZE[1] and cols <= MAX_SIZE[0], (rows, cols)

    asyncio.run(scenario())


def test_a_message_that_is_not_the_pages_is_ignored(serve):
    """A tab's messages outside textual-serve's page protocol (not JSON, not a list, a key
    that is not text, a resize without sizes) are skipped, not a traceback that drops the
    tab: the websocket stays and the next ping is answered."""
    import json

    import aiohttp

    proc, url = serve
    _listening(url)
    ws_url = url.replace("http://", "ws://") + f"ws/{secrets.token_hex(16)}"

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(ws_url + "?width=80&height=24", origin=url.rstrip("/")) as ws:
                for junk in ("not json", "{}", "[]", "7", '"stdin"', '["stdin", 7]', '["resize", "big"]'):
                    await ws.send_str(junk)
                await ws.send_str('["ping", "after"]')
                end = loop.time() + DEADLINE
                drawn = pong = False
                while not (drawn and pong):  # (the app drawn too: serve then ends a running app)
                    message = await asyncio.wait_for(ws.receive(), max(0.1, end - loop.time()))
                    assert message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY), message
                    drawn = drawn or message.type == aiohttp.WSMsgType.BINARY
                    pong = pong or (message.type == aiohttp.WSMsgType.TEXT
                                    and json.loads(message.data) == ["pong", "after"])

    asyncio.run(scenario())
