"""What serve lets in (cli/serve_guard.py), on a real serve: a websocket from another site's
page is refused before any app starts; the terminal size a tab asks for, in its URL or in
a resize message, is clamped, and so is the size the next ready app starts at."""

from __future__ import annotations

import asyncio
import re
import secrets

import pytest

from playground.cli.serve_guard import MAX_SIZE, same_origin, terminal_size
from test_serve import DEADLINE, _descendants, pytestmark, serve  # noqa: F401 (fixture, skip mark)

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


async def _drawn_size(ws) -> tuple[int, int]:
    """The farthest row and column the app draws at (Textual moves the cursor to each line)."""
    rows = cols = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while rows < MAX_SIZE[1]:
        message = await asyncio.wait_for(ws.receive(), max(0.1, end - loop.time()))
        if isinstance(message.data, bytes):
            for row, col in CUP.findall(message.data.decode("utf-8", "replace")):
                rows, cols = max(rows, int(row)), max(cols, int(col))
    return rows, cols


@pytest.mark.parametrize("serve", [("--ready", "1")], indirect=True)
def test_another_sites_websocket_is_refused_and_sizes_are_clamped(serve):
    import aiohttp

    proc, url = serve
    ws_url = url.replace("http://", "ws://") + f"ws/{secrets.token_hex(16)}"

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            before = _descendants(proc.pid)
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(ws_url + "?width=80&height=24", origin="http://evil.example")
            assert refused.value.status == 403
            assert _descendants(proc.pid) == before  # nothing started for it
            async with http.ws_connect(ws_url + "?width=5000&height=3000", origin=url.rstrip("/")) as ws:
                rows, cols = await _drawn_size(ws)
                assert rows == MAX_SIZE[1] and cols <= MAX_SIZE[0], (rows, cols)
                await ws.send_json(["resize", {"width": 9000, "height": 9000}])
                rows, cols = await _drawn_size(ws)
                assert rows == MAX_SIZE[1] and cols <= MAX_SIZE[0], (rows, cols)

    asyncio.run(scenario())
