"""serve's zygote (cli/app_zygote.py, on gate/warm_python.py): a warm process that has
imported the app forks each tab's app. A forked child gets its stdin, stdout and stderr
(passed over the socket), its environment, argv and working directory, leads a session
of its own, and reports its exit code; a zygote that dies or cannot start makes serve
start its apps as new processes, said in one line; and killing serve leaves nothing:
not the zygote, not an app, not a private server."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from playground.cli.app_zygote import NAME, AppZygote
from playground.gate.warm import WarmInterpreter
from browser import DEADLINE, _alive, _descendants, _free_port, _wait_for
from paths import SRC as SRC_DIR

SRC = str(SRC_DIR)

CHILD = """
    import os, sys
    print("textual" in sys.modules, "playground.tui.app" in sys.modules, flush=True)  # imported before the fork
    print(os.getsid(0) == os.getpid(), os.getpgrp() == os.getpid(), flush=True)
    print(os.getcwd(), os.environ.get("ZYGOTE_TEST"), sys.argv[1:], flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    print("read", line.strip(), flush=True)
    raise SystemExit(int(sys.argv[1]))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")]))}


@pytest.fixture
def child_module(tmp_path):
    (tmp_path / "zygote_child.py").write_text(textwrap.dedent(CHILD))
    return tmp_path


async def _zygote() -> AppZygote:
    zygote = AppZygote(_env())
    await zygote.start()
    return zygote


async def test_a_forked_app_gets_its_fds_env_argv_cwd_and_session_and_its_exit_code_is_reported(child_module):
    zygote = await _zygote()
    try:
        argv = [sys.executable, "-m", "zygote_child", "3", "more"]
        child = await zygote.spawn(argv, {**_env(), "ZYGOTE_TEST": "yes"}, cwd=child_module)
        assert child is not None
        assert await asyncio.wait_for(child.stdout.readline(), DEADLINE) == b"True True\n"
        assert await child.stdout.readline() == b"True True\n"
        assert (await child.stdout.readline()).decode() == f"{child_module} yes ['3', 'more']\n"
        assert await child.stderr.readline() == b"to stderr\n"
        child.stdin.write(b"hello\n")
        await child.stdin.drain()
        assert await child.stdout.readline() == b"read hello\n"
        assert await asyncio.wait_for(child.wait(), DEADLINE) == 3
        assert child.returncode == 3
    finally:
        await zygote.stop()


async def test_a_forked_app_can_be_signalled_and_its_death_is_reported(child_module):
    zygote = await _zygote()
    try:
        child = await zygote.spawn([sys.executable, "-m", "zygote_child", "0"], _env(), cwd=child_module)
        await asyncio.wait_for(child.stdout.readline(), DEADLINE)
        os.kill(child.pid, signal.SIGTERM)
        assert await asyncio.wait_for(child.wait(), DEADLINE) == -signal.SIGTERM
    finally:
        await zygote.stop()


async def test_a_forked_app_ends_when_the_zygote_dies(child_module):
    zygote = await _zygote()
    try:
        child = await zygote.spawn([sys.executable, "-m", "zygote_child", "0"], _env(), cwd=child_module)
        await asyncio.wait_for(child.stdout.readline(), DEADLINE)
        os.kill(zygote.warm.process.pid, signal.SIGKILL)
        assert await asyncio.wait_for(child.wait(), DEADLINE) < 0  # reported as killed with it
        _wait_for(lambda: not _alive({child.pid}), "the app to get SIGTERM from the zygote's death")
    finally:
        await zygote.stop()


async def test_a_dead_zygote_means_new_processes_said_once(child_module, caplog):
    zygote = await _zygote()
    try:
        os.kill(zygote.warm.process.pid, signal.SIGKILL)
        await zygote.warm.process.wait()
        with caplog.at_level(logging.ERROR, logger="textual-serve"):
            assert await zygote.spawn([sys.executable, "-m", "zygote_child", "0"], _env(), cwd=child_module) is None
            assert await zygote.spawn([sys.executable, "-m", "zygote_child", "0"], _env(), cwd=child_module) is None
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "zygote" in said[0] and "\n" not in said[0], said
    finally:
        await zygote.stop()


async def test_a_zygote_that_cannot_preload_forks_nothing():
    warm = WarmInterpreter(preload="playground.no_such_module:preload", env=_env())
    await warm.start()
    try:
        with pytest.raises(OSError):
            await warm.spawn([sys.executable, "-m", "json.tool"], Path.cwd(), _env())
    finally:
        await warm.stop()


async def test_the_zygote_forks_only_this_pythons_modules():
    zygote = AppZygote(_env())  # not started: nothing asked of it
    assert await zygote.spawn(["/bin/true"], _env()) is None
    assert await zygote.spawn([sys.executable, "script.py"], _env()) is None
    assert not zygote.failed


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[1])


@pytest.mark.parametrize("fork", [True, False], ids=["zygote", "no-fork"])
def test_serve_killed_outright_leaves_no_zygote_app_or_server(fork, server_binary, tmp_path):
    pytest.importorskip("textual_serve")
    temp = tempfile.mkdtemp(prefix="rp-zyg-")
    env = {**_env(), "LANG": "C.UTF-8", "REDIS_PLAYGROUND_STATE_DIR": str(tmp_path / "state"), "TMPDIR": temp}
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "playground", "serve", "--port", str(port),
                             "--server", str(server_binary.path),
                             "--ready", "2", *([] if fork else ["--no-fork"])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    try:
        def started() -> dict[int, str] | None:
            found = _descendants(proc.pid)
            if sum("server" in name for name in found.values()) != 2:
                return None
            try:  # not while an app's child is between its fork and its exec (still named python)
                if any(found.get(_parent(pid)) == "python" for pid, name in found.items() if name == "python"):
                    return None
            except OSError:  # (that child gone meanwhile)
                return None
            return found

        processes = _wait_for(started, "serve's two ready apps and their servers")
        assert (NAME in processes.values()) == fork, processes
        apps = [pid for pid, name in processes.items() if "server" not in name and name not in (NAME, "sh")]
        assert len(apps) == 2, processes
        zygote = [pid for pid, name in processes.items() if name == NAME]
        assert {_parent(pid) for pid in apps} == set(zygote or [proc.pid])  # forked there, or serve's own
        proc.kill()
        proc.wait(timeout=DEADLINE)
        _wait_for(lambda: not _alive(processes), f"every process under serve to end with it: {processes}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        import shutil

        shutil.rmtree(temp, ignore_errors=True)


def test_the_preload_imports_the_app_and_starts_no_thread_and_no_process():
    """What the zygote calls before it forks: the app's modules imported, those of its first
    lesson too (a class's lesson push opens one in every learner's app at once: each imported
    them then, ~55 ms of CPU), and nothing a fork would break: no thread (not even one of
    C's), no child process."""
    code = ("import os, sys; from playground.cli.app_preload import preload; preload(); "
            "children = open(f'/proc/self/task/{os.getpid()}/children').read().split(); "
            "print(len(os.listdir('/proc/self/task')), len(children), "
            "'playground.tui.app' in sys.modules, 'textual.app' in sys.modules, "
            "'playground.tui.screens.lesson_screen' in sys.modules, 'playground.scenario.programs.lesson' in sys.modules, "
            "'playground.classroom.lesson_source' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=DEADLINE)
    assert out.stdout.split() == ["1", "0", "True", "True", "True", "True", "True"], out.stdout + out.stderr


async def test_a_spawn_given_up_midway_takes_its_child_along_and_the_next_gets_its_own(child_module):
    """A tab closed while its app is being forked: that app is killed, and the next app's
    pid is its own (the answers never shift by one)."""
    zygote = await _zygote()
    try:
        argv = [sys.executable, "-m", "zygote_child", "0"]
        first = asyncio.ensure_future(zygote.spawn(argv, _env(), cwd=child_module))
        await asyncio.sleep(0)  # (its request is on its way)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        (child_module / "zygote_pid.py").write_text("import os\nprint(os.getpid(), flush=True)\n")
        child = await zygote.spawn([sys.executable, "-m", "zygote_pid"], _env(), cwd=child_module)
        assert child is not None and not zygote.failed
        assert int(await asyncio.wait_for(child.stdout.readline(), DEADLINE)) == child.pid
        assert await asyncio.wait_for(child.wait(), DEADLINE) == 0
        own = [p for p, name in _descendants(zygote.warm.process.pid).items()]
        _wait_for(lambda: not _alive(own), f"the given-up child to be killed: {own}")
    finally:
        await zygote.stop()
