"""serve's sessions' directories (cli/serve_home.py), issue 45: a serve whose output is gone
(piped into a command that ended) goes on serving and still removes them when it ends; one
killed outright leaves them, and the next serve removes them and says so; a directory of a
serve that still runs is never touched."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time

import aiohttp
import pytest
from serving import Tab, _lines_until, serving
from browser import DEADLINE, _descendants, _skip_reason

from playground.cli.serve_home import OWNER, PREFIX, ServeHome, sweep

pytestmark = [pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")]


def _dead_pid() -> int:
    """A pid no process has now (one that just ended)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_only_a_serve_that_no_longer_runs_is_swept(tmp_path):
    mine = ServeHome(tmp_path)  # this process's: it runs
    (mine.path / "session-a").mkdir()
    gone = tmp_path / f"{PREFIX}gone"
    (gone / "session-b").mkdir(parents=True)
    (gone / "session-c").mkdir()
    (gone / OWNER).write_text(f"{_dead_pid()} 12345\n")
    taken = tmp_path / f"{PREFIX}taken"  # its pid now another process's, which started at another time
    (taken / "session-d").mkdir(parents=True)
    other_process = subprocess.Popen(["sleep", "60"])
    (taken / OWNER).write_text(f"{other_process.pid} 1\n")
    starting = tmp_path / f"{PREFIX}starting"  # no owner file yet: a serve making it now
    starting.mkdir()
    other = tmp_path / "redis-playground-session-old"  # not serve's directory: not its to judge
    other.mkdir()
    try:
        assert sweep(tmp_path) == (2, 3)
    finally:
        other_process.kill()
        other_process.wait()
    assert not gone.exists() and not taken.exists()
    assert (mine.path / "session-a").is_dir() and starting.is_dir() and other.is_dir()
    mine.remove()
    assert not mine.path.exists()


@pytest.mark.slow
def test_a_serve_killed_outright_is_swept_by_the_next(tmp_path):
    with serving(tmp_path, "--ready", "0") as (proc, url, temp):
        async def a_tab() -> None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open()
                await tab.wait_for(b"Start here")  # a session, its directory made

        asyncio.run(a_tab())
        left = [name for name in os.listdir(temp) if name.startswith(PREFIX)]
        assert len(left) == 1 and any(e.startswith("session-") for e in os.listdir(os.path.join(temp, left[0])))
        apps = list(_descendants(proc.pid))
        proc.kill()
        proc.wait(timeout=DEADLINE)
        _until_gone(apps)  # its apps end with it (PR_SET_PDEATHSIG), and their servers
        assert os.path.isdir(os.path.join(temp, left[0]))  # what it could not remove
        with serving(tmp_path, "--ready", "0", temp=temp) as (second, _, _):
            assert "removed 1 session directory that a serve killed" in second.before, second.before
            assert not os.path.exists(os.path.join(temp, left[0]))
    assert not os.listdir(temp)  # the second serve's own removed as it ended


@pytest.mark.slow
def test_a_serve_whose_output_is_gone_serves_on_and_ends_clean(tmp_path):
    read, write = os.pipe()
    with serving(tmp_path, "--ready", "0", stdout=write) as (proc, url, temp):
        os.close(write)
        with os.fdopen(read) as output:
            _lines_until(output, r"http://127\.0\.0\.1:\d+", "serve's URL")
        # its reader gone: every line serve writes now (each request's) meets a closed pipe

        async def tabs() -> None:
            async with aiohttp.ClientSession() as http:
                for _ in range(2):
                    tab = Tab(http, url)
                    await tab.open()
                    await tab.wait_for(b"Start here")
                    await tab.line("PING", b"PONG")
                    await tab.close()

        asyncio.run(tabs())
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
    assert not os.listdir(temp)


def _until_gone(pids) -> None:
    end = time.monotonic() + DEADLINE
    while any(os.path.exists(f"/proc/{pid}") and _state(pid) != "Z" for pid in pids):
        assert time.monotonic() < end, "serve's apps outlived it"
        time.sleep(0.2)  # polling the processes, bounded


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


@pytest.mark.slow
def test_a_second_sigterm_while_serve_ends_does_not_cut_its_end_short(tmp_path):
    """Ctrl+C twice (or a service manager's second SIGTERM): the second came while serve was
    ending its apps, raised in the middle of that end, and serve left its sessions'
    directories behind. Now serve ends as after one: every directory of its removed."""
    with serving(tmp_path, "--ready", "0") as (proc, url, temp):
        async def a_tab_then_two_sigterms() -> None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open()
                await tab.wait_for(b"Start here")  # a session, its directory made, its app running
                proc.send_signal(signal.SIGTERM)
                assert await tab.closed() == 4009   # serve's end has begun (STOPPED): it closes the tabs first,
                proc.send_signal(signal.SIGTERM)    # then waits for their apps to quit
                await tab.close()

        asyncio.run(a_tab_then_two_sigterms())
        assert proc.wait(timeout=DEADLINE) == 0
        apps = list(_descendants(proc.pid))
        _until_gone(apps)
    assert not os.listdir(temp)


@pytest.mark.slow
def test_a_new_session_starts_in_the_language_its_tab_showed_last(tmp_path):
    """A learner switched to Chinese (F12), then their session ended and Restart gave them a
    fresh one: it came up in serve's language, English. The page says the language it showed
    last (`lang`): a new session's app shows it, the ready one taken too; a session found
    again (a reload) keeps its own."""
    import secrets

    with serving(tmp_path, "--ready", "1") as (proc, url, temp):
        async def tabs() -> None:
            async with aiohttp.ClientSession() as http:
                tab = Tab(http, url)
                await tab.open(query="&lang=zh")   # the ready app, started in English
                await tab.wait_for("客户端 A".encode())
                assert tab.said[0][0] == "playground_session" and tab.said[0][1]["lang"] == "zh"
                assert ["playground_language", {"lang": "zh"}] in tab.said   # as the app says it, after
                await tab.close()

                token = secrets.token_hex(16)
                english = Tab(http, url)
                await english.open(token=token)   # a new session in serve's language ...
                await english.wait_for(b"Client A")
                await english.close()
                again = Tab(http, url)
                await again.open(token=token, query="&lang=zh")   # ... found again by its token: its own
                await again.line("PING", b"PONG")
                assert "客户端".encode() not in again.text and again.said[0][1]["lang"] == "en"
                await again.close()

        asyncio.run(tabs())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DEADLINE) == 0
    assert not os.listdir(temp)
