"""A real serve against what no page of its own sends (issues 45, 46): a request for
another host name (DNS rebinding) is refused, whatever Origin it brings; a binary frame, a
deeply nested JSON, an oversized message and a flood each close the websocket with a code
that says so, and serve goes on serving the next tab, with no traceback; a flood of keys
does not grow the app (its pane still answers, the tab is told its keys were dropped); Alt
keys in a burst are keys; an app past --app-memory is ended and its tab told."""

from __future__ import annotations

import asyncio
import json
import re

import aiohttp
import pytest
from serving import Tab, serving
from browser import DEADLINE, _descendants, _skip_reason

from playground.cli.serve_guard import MAX_DEPTH, NOT_JSON, NOT_TEXT
from playground.cli.tab_input import FLOOD_BURST, FLOODED
from playground.cli.tab_session import TOO_BIG
from playground.cli.web_server import MAX_FRAME

pytestmark = [pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or ""), pytest.mark.slow]


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].strip("/"))


def _said(proc) -> str:
    proc.terminate()
    proc.wait(timeout=DEADLINE)
    return proc.stdout.read()


def test_a_page_of_another_name_is_refused_whatever_its_origin(tmp_path):
    """DNS rebinding: evil.example made to point at 127.0.0.1; its page's requests carry
    Host: evil.example and a matching Origin. Refused (403), page and websocket, before any
    app starts; the names serve answers as, and a --public-name, are let in."""
    with serving(tmp_path, "--ready", "0", "--public-name", "class.example") as (proc, url, _):
        port = _port(url)

        async def scenario() -> None:
            async with aiohttp.ClientSession() as http:
                evil = f"evil.example:{port}"
                async with http.get(url, headers={"Host": evil}) as page:
                    assert page.status == 403
                tab = Tab(http, url, host=evil, origin=f"http://{evil}")
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await tab.open()
                assert refused.value.status == 403
                assert not [name for name in _descendants(proc.pid).values() if "server" in name]  # no app
                for name in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", f"class.example:{port}"):
                    async with http.get(url, headers={"Host": name}) as page:
                        assert page.status == 200, name
                tab = Tab(http, url, host=f"class.example:{port}", origin=f"http://class.example:{port}")
                await tab.open()
                await tab.wait_for(b"Start here")
                await tab.close()

        asyncio.run(scenario())
        said = _said(proc)
    assert "refused a request for host 'evil.example" in said and "Traceback" not in said


def test_frames_no_page_sends_close_the_websocket_and_serve_goes_on(tmp_path):
    with serving(tmp_path, "--ready", "1", "--class") as (proc, url, _):

        hello = json.dumps(["class", {"teacher": ""}])

        async def bad(first: str | None, send) -> int | None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open(first)
                if first == hello:  # a learner's tab, its app asking the name
                    await tab.wait_for(b"Your name")
                await send(tab.ws)
                return await tab.closed()

        async def scenario() -> None:
            deep = "[" * 100_000 + "]" * 100_000  # json.loads: RecursionError
            assert await bad(deep, lambda ws: asyncio.sleep(0)) == NOT_JSON  # the class's first message
            assert await bad(hello, lambda ws: ws.send_bytes(b"\x00\x01")) == NOT_TEXT
            nested = '["stdin", ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "]"
            assert await bad(hello, lambda ws: ws.send_str(nested)) == NOT_JSON
            assert await bad(hello, lambda ws: ws.send_str(json.dumps(["stdin", "x" * MAX_FRAME]))) == 1009

            async def flood(ws) -> None:  # past the burst and faster than its refill, until serve closes
                for _ in range(FLOOD_BURST * 50):  # (FLOOD_BURST + 100 flaked: on a busy machine serve read
                    if ws.closed:                  # them over more than the 0.2 s that refill 100)
                        return
                    try:
                        await ws.send_str('["ping", 1]')
                    except ConnectionError:  # (closed under the send)
                        return

            assert await bad(hello, flood) == FLOODED
            async with aiohttp.ClientSession() as http:  # serve goes on: the next tab works
                tab = Tab(http, url)
                await tab.open(hello)
                await tab.wait_for(b"Your name")
                await tab.close()

        asyncio.run(scenario())
        said = _said(proc)
    assert not re.search(r"Traceback|RecursionError", said), said


def test_a_flood_of_keys_is_capped_and_the_pane_still_answers(tmp_path):
    """125 frames of 4,000 characters, one after the other (issue 46: the app grew to 1.85 GB
    and its pane never answered): the tab is told its keys were dropped, the app stays
    small, and a command typed after it answers. And Alt+W three times in a burst deletes
    three words (it typed "^w" before)."""
    with serving(tmp_path, "--ready", "1") as (proc, url, _):

        async def scenario() -> None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open()
                await tab.wait_for(b"Start here")
                for _ in range(125):
                    await tab.keys("a" * 4000)
                async with tab.changed:
                    await asyncio.wait_for(tab.changed.wait_for(
                        lambda: any(said[0] == "playground_notice" for said in tab.said)), DEADLINE)
                assert "keys were dropped" in next(s[1]["text"] for s in tab.said if s[0] == "playground_notice")
                await tab.line("", b"ERR unknown command")  # the line the 256 KB let through made (pastes)
                await tab.line("ECHO after", b'"after"')
                resident = max(_resident_mb(pid) for pid, name in _descendants(proc.pid).items()
                               if name == "python")
                assert resident < 400, resident
                await tab.keys("SET k1 v1 v2")
                for _ in range(3):  # Alt+W, Alt+W, Alt+W as the page sends each: ESC w
                    await tab.keys("\x1bw")
                await tab.keys("k2 v")
                await tab.line("", b"OK")  # SET k2 v: three words went, none typed as "^w"
                await tab.line("GET k2", b'"v"')
                await tab.close()

        asyncio.run(scenario())


def _resident_mb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return 0


def test_an_app_past_its_memory_is_ended_and_its_tab_told(tmp_path):
    with serving(tmp_path, "--ready", "0", "--app-memory", "16") as (proc, url, _):  # (an app: ~45 MB)

        async def scenario() -> int | None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open()
                return await tab.closed()

        assert asyncio.run(scenario()) == TOO_BIG
        said = _said(proc)
    assert "more than 16 MB" in said


def test_a_tab_that_never_saw_a_frame_gets_no_grace(tmp_path):
    """Its session ends at once when it closes (not after the 10-minute grace): its app
    and its server go."""
    with serving(tmp_path, "--ready", "0") as (proc, url, _):

        async def scenario() -> None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open()
                await tab.ws.close()  # before the app has drawn to it (it takes a few hundred ms to)
                tab.reader.cancel()
                if tab.text:
                    pytest.skip("the app drew before the tab could close")

        asyncio.run(scenario())
        end = asyncio.run(_gone(proc.pid))
        assert end, _descendants(proc.pid)


async def _gone(pid: int) -> bool:
    """Until no app (nor its server) runs under serve, bounded."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while loop.time() < end:
        names = list(_descendants(pid).values())
        if not [name for name in names if "server" in name] and names.count("python") == 0:
            return True
        await asyncio.sleep(0.2)  # polling the process tree, bounded
    return False


def test_serve_says_no_line_per_request(tmp_path):
    """A class's tabs make hundreds of requests in its first minutes; serve printed each
    (aiohttp's access log at INFO), and the teacher's URL scrolled out of the terminal."""
    import urllib.request

    with serving(tmp_path, "--ready", "0") as (proc, url, _):
        for _ in range(3):
            with urllib.request.urlopen(url, timeout=DEADLINE) as page:
                assert page.status == 200
        said = _said(proc)
    assert "HTTP/1.1" not in said and "GET /" not in said, said
