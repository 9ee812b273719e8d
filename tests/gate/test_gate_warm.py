"""The explorer's warm interpreter (gate/warm.py): each schedule forks its Python programs
from one interpreter that imported redis already, and a forked program behaves as
`python SCRIPT` would: its exit status, its traceback's last line, its time limit, its
working directory and environment; none outlives the search. On both real servers."""

from __future__ import annotations

import asyncio
import os
import select
import textwrap
from pathlib import Path

import pytest

from playground.explore.explorer import ExploreError, explore
from playground.scenario.programs.lesson import LessonPrograms
from playground.scenario.loader import load_scenario

pytest.importorskip("redis")


def lesson(tmp_path: Path, program: str, extra: str = "") -> Path:
    (tmp_path / "prog.py").write_text(textwrap.dedent(program))
    path = tmp_path / "lesson.toml"
    path.write_text('title = "t"\nlesson = "l"\nsetup = ["SET counter 4"]\n' + extra +
                    '[programs]\nA = ["python", "prog.py", "counter"]\n'
                    '[[steps]]\nclient = "A"\n[[steps]]\nclient = "B"\ncommand = "INCR counter"\n')
    return path


async def test_a_forked_program_runs_as_its_own_script(pg, tmp_path):
    """sys.argv, __name__, its directory on sys.path, cwd and REDIS_URL as for `python
    prog.py counter`; what it writes reaches the outcome."""
    (tmp_path / "helper.py").write_text("NAME = 'seen'\n")
    path = lesson(tmp_path, '''
        import os, sys, redis, helper
        assert __name__ == "__main__" and sys.argv == ["prog.py", "counter"], (__name__, sys.argv)
        assert os.getcwd() == os.path.dirname(os.path.abspath(__file__))
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        value = r.get(sys.argv[1])
        r.set(helper.NAME, value)
        ''')
    result = await explore(pg, load_scenario(path))
    assert sorted(c.snapshot.describe("seen") for c in result.classes) == ['"4"', '"5"']  # A first, B first


@pytest.mark.parametrize("body, message", [
    ('raise SystemExit(3)', "exited with status 3"),
    ('raise ValueError("no funds")', "exited with status 1: ValueError: no funds"),
])
async def test_a_forked_program_that_ends_badly_is_named(pg, tmp_path, body, message):
    path = lesson(tmp_path, f'''
        import os, sys, redis
        redis.Redis.from_url(os.environ["REDIS_URL"]).get(sys.argv[1])
        {body}
        ''')
    with pytest.raises(ExploreError) as caught:
        await explore(pg, load_scenario(path))
    assert str(caught.value) == f"lesson: program A (python prog.py counter) {message}"


async def test_a_forked_program_past_its_time_limit_is_stopped_and_none_outlives(pg, tmp_path):
    path = lesson(tmp_path, '''
        import os, sys, time, redis
        redis.Redis.from_url(os.environ["REDIS_URL"]).get(sys.argv[1])
        with open("pids", "a") as f:
            f.write(f"{os.getpid()}\\n")
        time.sleep(60)
        ''', extra="program_time_limit = 1\n")
    with pytest.raises(ExploreError) as caught:
        await explore(pg, load_scenario(path))
    assert str(caught.value) == "lesson: program A (python prog.py counter) ran past its time limit (1 s): stopped"
    for pid in (tmp_path / "pids").read_text().split():
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)


async def test_the_warm_interpreter_is_the_playgrounds(private_server, tmp_path):
    """Started at the first need, kept for the next search (its start is paid once), and
    gone with the playground."""
    from playground.engine.playground import Playground
    from playground.scenario.programs import lesson as lesson_programs

    scenario = load_scenario(lesson(tmp_path,
                                    'import os, redis\nredis.Redis.from_url(os.environ["REDIS_URL"]).ping()\n'))
    own = Playground(server=private_server)
    await own.start()
    pids = []
    try:
        for _ in range(2):
            programs = LessonPrograms(own)
            programs.warm = True
            assert await programs.start(scenario) is None
            pids.append(lesson_programs._WARM[own].process.pid)
            assert await programs.finish() is None
            await programs.close()
            os.kill(pids[-1], 0)   # (still there: the playground keeps it)
    finally:
        own.server = None   # (the server is the test's, shared)
        await own.close()
    assert pids[0] == pids[1]
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)


async def test_a_forked_program_ends_as_the_interpreter_ends_it(pg, tmp_path):
    """A forked program leaves without the interpreter's teardown (warm_python._quick_end),
    but only after what `python prog.py` does at its end: its non-daemon threads joined,
    then its atexit handlers run; a file it left open is written out. Each of its runs (the
    search runs A's program more than once) leaves both lines."""
    path = lesson(tmp_path, '''
        import atexit, os, sys, threading, time, redis
        redis.Redis.from_url(os.environ["REDIS_URL"]).get(sys.argv[1])
        log = open("unclosed", "a")
        log.write("written\\n")
        worker = threading.Thread(target=time.sleep, args=(0.2,))  # (joined at the end, however long)
        worker.start()
        atexit.register(lambda: open("atexit", "a").write(f"thread alive: {worker.is_alive()}\\n"))
        sys.exit(0)
        ''')
    result = await explore(pg, load_scenario(path))
    assert sorted(c.snapshot.describe("counter") for c in result.classes) == ['"5"']
    written, ended = ((tmp_path / name).read_text().splitlines() for name in ("unclosed", "atexit"))
    assert len(written) >= 2 and written == ["written"] * len(written)
    assert ended == ["thread alive: False"] * len(written)


async def test_a_program_taken_by_the_spare_has_nothing_of_its_warm_up(tmp_path):
    """Each program after the first is forked ahead (warm_python._spare) and warmed on a
    socket pair of its own: the program still sees only its standard streams, and no
    client or connection of that warm-up."""
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text(textwrap.dedent('''
        import gc, os, redis
        fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
        left = [type(o).__name__ for o in gc.get_objects()
                if isinstance(o, (redis.Redis, redis.connection.AbstractConnection))]
        print(fds[:3], len(fds), left)
        '''))
    warm = await WarmInterpreter().start()
    try:
        for _ in range(3):   # (each forked ahead of its request)
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ))
            said = (await child.stdout.read()).decode()
            assert await child.wait() == 0
            assert said == "[0, 1, 2] 4 []\n"   # (the 4th: listdir's own)
    finally:
        await warm.stop()


async def test_redis_pys_version_is_read_once_and_is_the_installed_one(tmp_path):
    """redis-py reads its version from its package's metadata at every client (several
    parses a program): the warm interpreter memoizes that read, and what it answers is
    still the installed package's version, the one a cold interpreter reads."""
    import sys
    from importlib import metadata

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text(textwrap.dedent('''
        import redis, redis.utils
        redis.Redis.from_url("redis://127.0.0.1:1")   # (a client: it reads the version; connects to nothing)
        read = redis.utils.get_lib_version
        print(read(), read.cache_info().hits > 0)
        '''))
    warm = await WarmInterpreter().start()
    try:
        for _ in range(2):   # (the spare's warm-up read it too)
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ))
            said = (await child.stdout.read()).decode()
            assert await child.wait() == 0
            assert said == f"{metadata.version('redis')} True\n"
    finally:
        await warm.stop()


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()


async def test_the_spare_goes_with_the_warm_interpreter(tmp_path):
    """The child forked ahead of a request that never comes ends with the interpreter."""
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text("pass\n")
    warm = await WarmInterpreter().start()
    child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ))
    assert await child.wait() == 0
    assert warm.process is not None
    pid = warm.process.pid
    spares: list[int] = []
    for _ in range(1000):   # (forked as the request was answered: it may come just after the exit is told)
        spares = [int(p) for p in _children(pid) if int(p) != child.pid]   # (told its exit: it may
        # still be going, warm_python._told_exit)
        if spares:
            break
        await asyncio.sleep(0.01)
    assert len(spares) == 1   # (the next request's)
    ends = [os.pidfd_open(spare) for spare in spares]   # (readable once it has ended)
    await warm.stop()
    try:
        for spare, end in zip(spares, ends, strict=True):
            readable, _, _ = select.select([end], [], [], 30)   # (its death signal, as the interpreter died)
            assert readable, f"the spare {spare} outlived the warm interpreter"
    finally:
        for end in ends:
            os.close(end)


async def test_a_spare_that_died_before_its_request_is_not_missed(tmp_path):
    """A spare killed while it waits (the OOM killer, a learner's `pkill python`): the
    next program is forked on request instead, and runs."""
    import signal
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text("print('ran')\n")
    warm = await WarmInterpreter().start()
    try:
        assert warm.process is not None
        pid = warm.process.pid
        spares: list[str] = []
        for _ in range(1000):   # (forked at the interpreter's start, after its imports)
            spares = _children(pid)
            if spares:
                break
            await asyncio.sleep(0.01)
        assert len(spares) == 1
        ended = os.pidfd_open(int(spares[0]))
        try:
            os.kill(int(spares[0]), signal.SIGKILL)
            readable, _, _ = select.select([ended], [], [], 30)
            assert readable
        finally:
            os.close(ended)
        child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ))
        assert (await child.stdout.read()) == b"ran\n"
        assert await child.wait() == 0
    finally:
        await warm.stop()


@pytest.mark.parametrize("body, code", [
    ("raise SystemExit(3)", 3),
    ("raise SystemExit(256)", 0),            # (the exit status is its low byte, as for `python`)
    ("raise SystemExit(-1)", 255),
    ("raise ValueError('x')", 1),
    ("os._exit(7)", 7),                      # (no teardown of the interpreter's at all)
    ("os.closerange(0, 1 << 16)", 0),        # (its standard streams and every other descriptor closed)
    ("os.close(0); open(__file__)", 0),      # (a file of its own where its stdin was)
    ("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
     " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)", 0),  # (a child left)
])
@pytest.mark.parametrize("reuse", [None, "p"])
async def test_a_forked_programs_exit_is_told_once_with_its_status(tmp_path, body, code, reuse):
    """A program that ends alone tells its exit itself as it goes (warm_python._told_exit):
    the status is what `python prog.py` exits with, its output ends first, it is told once
    (a second report would stay in `_early`), and a program that leaves a child is told
    only after that child is ended (as it always was, by the warm interpreter). So too for
    a program run again by the child that ran it (`reuse`), or by a new one when it left
    what cannot be put back (every descriptor closed, a child)."""
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text(f"import os\nprint('ran', flush=True)\n{body}\n")
    warm = await WarmInterpreter().start()
    try:
        for _ in range(3):   # (the first forked on request, the next ones by the spare)
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ),
                                     reuse=reuse)
            assert await child.wait() == code
            assert await child.stdout.read() == b"ran\n"   # (its end: nothing holds its stdout)
            try:   # (told as it goes: it may still be there a moment, but with no child of its own)
                assert _children(child.pid) == []
            except OSError:
                pass   # (gone)
        assert warm.process is not None
        await warm.stop()
        assert warm._early == {} and warm._exits == {}
    finally:
        await warm.stop()


KEPT_PROGRAM = """
import os, random, socket, sys, warnings
import helper
fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
print(sys.argv, os.getcwd() == os.path.dirname(__file__), os.environ.get("LEFT"),
      helper.VALUE, random.random(), socket.getdefaulttimeout(), len(warnings.filters), os.umask(0o077),
      sys.path[0] == os.path.dirname(__file__), len(fds), sys.getrecursionlimit())
os.environ["LEFT"] = "by the run before"
os.chdir("/")
sys.argv.append("left")
sys.path.insert(0, "/nowhere")
socket.setdefaulttimeout(3)
sys.setrecursionlimit(500)
log = open(os.path.join(os.path.dirname(__file__), "out.txt"), "a")   # (left open: written at its end)
log.write("run\\n")
if os.environ["RUN"] == "2":
    raise SystemExit(4)
"""


async def test_a_kept_child_runs_its_program_again_as_a_fresh_one(tmp_path):
    """A program run again by the child that ran it (spawn's `reuse`: no fork, no warm-up)
    starts as a fresh one would: what its run before changed (environment, working
    directory, argv, sys.path, a module it imported, random's state, the socket timeout,
    umask, recursion limit) is put back, a module it imports is imported again
    (its file changed meanwhile: the new one), and each run's exit status and output
    are its own."""
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text(KEPT_PROGRAM)
    warm = await WarmInterpreter().start()
    try:
        said, pids = [], []
        for run in range(4):
            (tmp_path / "helper.py").write_text(f"VALUE = {run // 3}\n")   # (changed before the last run)
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py"), "arg"], tmp_path,
                                     dict(os.environ, RUN=str(run)), reuse="p")
            out = (await child.stdout.read()).decode()
            assert await child.wait() == (4 if run == 2 else 0), (await child.stderr.read()).decode()
            assert child.again == (run > 0)
            said.append(out)
            pids.append(child.pid)
        assert len(set(pids)) == 1   # (one child ran them all)
        assert said[0] == said[1] == said[2] != said[3]   # (the last: helper.VALUE 1)
        assert said[3] == said[0].replace(" 0 ", " 1 ", 1)
        assert said[0].startswith(f"[{str(tmp_path / 'p.py')!r}, 'arg'] True None 0 ")
        assert (tmp_path / "out.txt").read_text() == "run\n" * 4   # (each run's file closed, written)
    finally:
        await warm.stop()


@pytest.mark.parametrize("left", [
    "import threading, time; threading.Thread(target=time.sleep, args=(60,), daemon=True).start()",
    "import signal; signal.signal(signal.SIGUSR1, lambda *a: None)",
    "import atexit; atexit.register(print, 'at exit')",
    "import socket; os.kept = socket.socket()",   # (a descriptor held by a module the run did not import)
    "import sys, io; sys.stdout = io.StringIO()",
    "import warnings; warnings.simplefilter('error')",
    "import subprocess; subprocess.Popen(['sleep', '60'])",
])
async def test_a_run_that_leaves_what_cannot_be_put_back_ends_its_child(tmp_path, left):
    """A thread, a signal handler, an atexit handler, a descriptor, its standard stream
    replaced, a warnings filter, a child left: the child that ran it ends as a forked program's always did,
    and the next run is a new child's, as fresh as the first."""
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text(f"import os\nprint('ran', flush=True)\n{left}\n")
    warm = await WarmInterpreter().start()
    try:
        children = []
        for _ in range(2):
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ),
                                     reuse="p")
            assert (await child.stdout.read()).startswith(b"ran\n")   # (then the atexit handler's line)
            assert await child.wait() == 0
            children.append(child)
        assert [c.again for c in children] == [False, False]
        assert children[0].pid != children[1].pid
    finally:
        await warm.stop()


async def test_stopping_a_run_that_is_over_leaves_its_kept_childs_next_run_be(tmp_path):
    """A stop names the run, not the pid: a kept child that told one run's end may run
    its key's next one already (the same pid), and a stop of the run before, late (its
    time limit, as its end was on its way), leaves that one running; a stop of the run
    that runs ends it (SIGKILL to its process group)."""
    import signal
    import sys

    from playground.gate.warm import WarmInterpreter

    (tmp_path / "p.py").write_text("import sys\nprint(sys.stdin.readline().strip(), flush=True)\n")
    warm = await WarmInterpreter().start()
    try:
        runs = []
        for line in (b"first\n", b"second\n", None):
            child = await warm.spawn([sys.executable, str(tmp_path / "p.py")], tmp_path, dict(os.environ),
                                     stdin=True, reuse="p")
            for before in runs:
                assert await warm.end_run(before.pid, before.run)   # (over: nothing to end; answered)
            runs.append(child)
            if line is None:
                await child.kill()
                assert await child.wait() == -signal.SIGKILL
                break
            assert child.stdin is not None
            child.stdin.write(line)
            assert await child.stdout.readline() == line   # (running still: not ended by the stops before)
            assert await child.wait() == 0
        assert len({c.pid for c in runs}) == 1 and [c.again for c in runs] == [False, True, True]
        assert len({c.run for c in runs}) == 3
    finally:
        await warm.stop()
