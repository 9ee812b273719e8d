"""A warm interpreter: it imports once what its programs need, then forks a child for
each of them, so that none pays an interpreter's start and its imports. Two users:
- gate/warm.py, for a lesson's Python programs (`python SCRIPT ARGS...`): it imports
  redis, and nothing of the playground's;
- serve's zygote (cli/app_zygote.py), for its tabs' apps (`python -m playground ...`):
  `--preload MODULE:FUNCTION` calls that function first (it imports the app's start).

    python warm_python.py FD [--preload MODULE:FUNCTION] [--name NAME]

FD is a SOCK_SEQPACKET socket: each message is a JSON request {argv, cwd, env,
deathsig?, reuse?} with the child's stdin, stdout and stderr as passed descriptors; it is
answered "PID RUN AGAIN" (the child's pid, the run's number, 1 if that child ran its
program before) once the child leads a session of its own. When a run ends, "PID RUN
CODE" (as os.waitstatus_to_exitcode) goes to this process's stdout. A child runs
`python SCRIPT ARGS...` or `python -m MODULE ARGS...` as the interpreter would (sys.argv,
sys.path[0], __main__, exit status, traceback on stderr); it gets `deathsig` (default
SIGKILL) when this process dies, and this process SIGKILL when the one that started it
does. --name: this process's name in ps (its children take the interpreter's back).
A request {kill: [PID, RUN]} ends that run (SIGKILL to its child's process group) if it
still runs, answered "1", else "0" (_end_run).

A gate's warm interpreter forks each child ahead of its request (`_spare`): the spare
detaches and warms up (`_pretouch`: redis's first steps, on a socket pair of its own, so
the pages they write are copied before the program needs them), then waits for the next
request, which it runs at once; this process then says its pid and forks the next spare.

Nothing a gate's child starts outlives it: the child is a child subreaper, so whatever it
starts stays its descendant however it detaches (`setsid`, a double fork), and this
process is one too, so when the child ends they become this process's children: it ends
them (SIGKILL) and reaps them before it reports the child's exit, so its output pipes are
closed by then.

A gate's request may say `reuse` (a key naming its program: the explorer runs the same
program again and again): the spare that takes it is kept (`_KEPT`), and when the program
is over and left nothing that cannot be put back (no thread, child, atexit or signal
handler, descriptor, standard stream of its own; then its environment, working directory,
argv, sys.path, the modules it imported, random's state ... are set back: `_Before`), the
child tells its exit and waits for the next request of that key (`_run_again`) instead of
ending: no fork, no copy of this process's pages, no warm-up. Each run has a number, told
with its pid (a kept child's pid is told again); at most `_IDLE_LIMIT` kept children wait.

A gate's child that ends alone (one thread, no child of its own left) closes its
descriptors and says its exit status itself before it exits, in a datagram to a socket of
this process's with an abstract name (`_TOLD`: no descriptor of the program's while it
runs; the kernel says the sender's pid). Its sockets and output pipes close, and its exit
is reported, before the kernel tears down its memory (~1 ms a program, forked from this
process's); this process then reaps it without a second report.
"""

import atexit
import ctypes
import gc
import importlib
import json
import os
import runpy
import select
import signal
import socket
import struct
import sys
import traceback
from typing import NoReturn

_OWN_FRAMES = {__file__, os.path.abspath(__file__), runpy.__file__}
_PR_SET_PDEATHSIG, _PR_SET_NAME, _PR_SET_CHILD_SUBREAPER = 1, 15, 36
_ENDING: dict = {}  # a gate's child, its program over: {"code": its exit status}
_SPAWNED: dict[int, int] = {}  # the children running a request -> that run's number (_RUNS)
_SPARE: set[int] = set()  # the child forked ahead of the next request (_spare)
_KEPT: dict[int, tuple[socket.socket, str]] = {}  # a child whose request said `reuse` -> (the socket
# it takes its next request on, that key), while it runs or waits for one (_run_again)
_IDLE: dict[int, str] = {}  # the kept children waiting for a request of their key, oldest first
_IDLE_LIMIT = 8   # kept waiting at most; past that the oldest ends (two lessons explored in turn
# keep theirs: two programs each, and a run again while they run)
_RUNS = [0]   # the number of the last run asked for: a kept child's pid is told again for its next run
_WAKE: list[int] = []  # a pipe the C signal handler writes to (signal.set_wakeup_fd): _wait_for_request
_TOLD: list = []  # where a gate's child tells its exit as it ends alone (_told_exit): this process's
# datagram socket (its children close it), and its abstract name
_GATE = "--preload" not in sys.argv  # a gate's: its children's orphans end with them


def _quick_end() -> None:
    """A gate's child ends without the interpreter's teardown, which frees every module's
    objects: after a fork that writes to every page the child shares with this process
    (~13 ms of CPU a program, half of what a schedule's program costs). Registered first, so
    it runs last: the program's non-daemon threads have been joined and its own atexit
    handlers (and logging's) have run. Then what the teardown would do for the program's
    own objects: its script's namespace cleared (a file it left open is written out, even
    when one of its functions outlives it), its garbage in cycles collected, the standard
    streams flushed. A daemon thread still running would see its globals go: then the
    interpreter ends it as always."""
    if "code" not in _ENDING:  # this process itself
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    _clear_script()
    _flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
    code = _ENDING["code"] & 0xFF   # (what the exit status is: os._exit takes its low byte)
    if _TOLD and _children() == []:   # (None: the kernel cannot say; the reap reports it)
        _told_exit(code)
    os._exit(code)


def _clear_script() -> None:
    """What the interpreter's teardown does for the program's own objects: its script's
    namespace cleared (a file it left open is written out, a connection closed, even when
    one of its functions outlives it), then its garbage in cycles collected."""
    namespace = _ENDING.pop("namespace", None)
    if namespace is not None:
        namespace.clear()
    gc.collect()


def _flush(*streams) -> None:
    for stream in streams:
        if stream is None:  # (no such stream: started without it)
            continue
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass


def _children() -> list[int] | None:
    """This process's children (None: the kernel cannot say)."""
    found: list[int] = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as f:
                found += [int(pid) for pid in f.read().split()]
    except OSError:  # (a kernel without CONFIG_PROC_CHILDREN)
        return None
    return found


def _told_exit(code: int, again: bool = False) -> None:
    """A gate's child ending alone (no thread, no child left: nothing else holds its
    descriptors): every descriptor closed (its sockets, its output pipes: their ends are
    seen at once), then its exit status to this process's parent (`_TOLD`), which reports
    it. Both come before the kernel tears its memory down. `again`: a kept child's run is
    over (_run_again), the child ready for the next."""
    if not again:
        os.closerange(0, 1 << 20)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as tell:
            tell.sendto(b"%d%s" % (code, b" again" if again else b""), _TOLD[1])
    except OSError:
        if again:   # (nobody would know it is over)
            os._exit(code)


def _namespace_of(main) -> None:
    """An audit hook: the script's namespace, runpy's __main__ module when it runs the
    script's code (the first `exec` with another __main__ than this process's `main`).
    Added once: a kept child's next run is seen by the same hook."""
    if _ENDING.get("hooked"):
        return
    _ENDING["hooked"] = True

    def hook(event: str, args) -> None:
        if event == "exec" and "namespace" not in _ENDING and sys.modules.get("__main__") is not main:
            _ENDING["namespace"] = vars(sys.modules["__main__"])
    sys.addaudithook(hook)


_LIBC: list = []  # the C library, once loaded (each child's prctl calls: no dlopen each)


def _prctl(option: int, value) -> None:
    try:
        if not _LIBC:
            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        _LIBC[0].prctl(option, value)
    except (OSError, AttributeError):
        pass


def _reap(*_) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _let_go(pid)
        if pid not in _SPAWNED:
            continue  # an orphan of a child (_end_orphans), or a kept child ended: nobody waits for it
        run = _SPAWNED.pop(pid)
        if _GATE:
            _end_orphans()
        os.write(1, b"%d %d %d\n" % (pid, run, os.waitstatus_to_exitcode(status)))


def _let_go(pid: int) -> None:
    """A kept child ended (or is to end): its socket closed, no more requests for it."""
    kept = _KEPT.pop(pid, None)
    _IDLE.pop(pid, None)
    if kept is not None:
        kept[0].close()


def _orphans() -> list[int]:
    """This process's children it did not fork for a request: what a child that ended
    left running (children subreap: a running child's orphans are its own). Read from
    the kernel's list of this process's children (/proc/self/task/*/children), else
    found among every process's parent in /proc."""
    me, children = os.getpid(), _children()
    if children is not None:
        return [pid for pid in children if pid not in _SPAWNED and pid not in _SPARE and pid not in _KEPT]
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and all(int(name) not in known for known in (_SPAWNED, _SPARE, _KEPT)):
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rpartition(b")")[2].split()
            except OSError:
                continue
            if len(fields) > 1 and fields[1] == b"%d" % me:
                found.append(int(name))
    return found


def _end_orphans() -> None:
    """SIGKILL and reap the orphans, again until none is left (their own children come
    to this process as they go)."""
    for _ in range(1000):
        orphans = _orphans()
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # (reaped meanwhile)
                pass


def _detach(parent: int, deathsig: int) -> None:
    """A child's own session, `deathsig` when this process dies, its orphans its own
    (and nothing of this process's wait for its children: _wait_for_request)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)
    for fd in _WAKE:
        os.close(fd)
    _WAKE.clear()
    if _TOLD:
        _TOLD[0].close()   # (only this process reads what children tell: _told_exit)
    os.setsid()
    _prctl(_PR_SET_PDEATHSIG, deathsig)
    if _GATE:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # what it starts stays its own, however detached
    if os.getppid() != parent:  # it died before the line above: nobody would end this child
        os._exit(1)
    _prctl(_PR_SET_NAME, os.path.basename(sys.executable).encode()[:15])


def _child(sock: socket.socket | None, request: dict, fds: list[int], parent: int) -> int:
    """Run the request's program in this child (detached already when `sock` is None: a
    spare, whose pid this process told); its exit status."""
    deathsig = int(request.get("deathsig", signal.SIGKILL))
    if sock is None:
        _prctl(_PR_SET_PDEATHSIG, deathsig)
        if os.getppid() != parent:
            os._exit(1)
    else:
        _detach(parent, deathsig)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    if sock is not None:
        sock.send(b"%d %d 0" % (os.getpid(), _RUNS[0]))   # (its run's number: set before the fork)
        sock.close()
    os.chdir(request["cwd"])
    _set_environ(request["env"])
    argv = request["argv"]
    try:
        if argv[1] == "-m":  # as `python -m MODULE`: sys.path[0] is the working directory
            sys.argv = argv[2:]
            sys.path[0] = os.getcwd()
            runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv[1:]
            sys.path[0] = os.path.dirname(os.path.abspath(argv[1]))
            _namespace_of(sys.modules["__main__"])
            runpy.run_path(argv[1], run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:  # noqa: BLE001 (as the interpreter: the traceback, status 1)
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in _OWN_FRAMES:
            tb = tb.tb_next  # from the program's own frames on, as the interpreter shows it
        traceback.print_exception(type(exc), exc, tb)
        return 1
    return 0


def _set_environ(env: dict[str, str]) -> None:
    """os.environ becomes `env`: only what differs is set or unset (a kept child's next
    run: most of it is the same)."""
    for name in [name for name in os.environ if name not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _preload(argv: list[str]) -> None:
    """--preload MODULE:FUNCTION (the zygote's), else redis (the gate's); --name NAME."""
    options = dict(zip(argv[::2], argv[1::2], strict=True))  # (option, value) pairs
    if "--name" in options:
        _prctl(_PR_SET_NAME, options["--name"].encode()[:15])
    if "--preload" in options:
        sys.path[0] = os.getcwd()  # as the children's `python -m`: not this file's folder
        module, _, function = options["--preload"].partition(":")
        getattr(importlib.import_module(module), function)()
    else:
        atexit.register(_quick_end)  # before redis's imports register theirs: it runs last
        from importlib import metadata

        import pkgutil  # noqa: F401 (runpy.run_path imports it at each program's start: ~1 ms a program)

        import redis  # noqa: F401 (the point: imported once, before the forks)

        try:  # redis-py reads its version at every connection: the first read imports and caches
            metadata.version("redis")  # what the others need (~4 ms a program)
        except metadata.PackageNotFoundError:
            pass
        _keep_lib_version()
    gc.collect()
    gc.freeze()  # the children's collections leave the preloaded objects' pages shared


def _keep_lib_version() -> None:
    """redis-py's version, read once: each of its clients reads it again from the installed
    package's metadata (a parse of its METADATA file, ~0.1 ms, several times a program),
    and the answer cannot change while this process runs: the redis it imported is that
    version. Its function is memoized (what it returns is the same)."""
    try:
        import functools

        import redis.utils
    except ImportError:
        return
    read = getattr(redis.utils, "get_lib_version", None)
    if callable(read) and not hasattr(read, "cache_info"):
        redis.utils.get_lib_version = functools.cache(read)


def _run_child(sock: socket.socket | None, message: bytes, fds: list[int], parent: int) -> NoReturn:
    """A child (forked on request, or a spare) runs the request's program, then ends
    with its exit status."""
    code = _child(sock, json.loads(message), fds, parent)
    sys.stdout.flush()
    sys.stderr.flush()
    _end(code)


def _end(code: int) -> NoReturn:
    """A child's program is over: it ends with the program's exit status."""
    if _GATE:
        _ENDING["code"] = code  # (_quick_end, after the threads and the atexit handlers)
        threading = sys.modules.get("threading")
        if threading is None or threading.active_count() == 1:
            atexit._run_exitfuncs()  # no thread to wait for: the atexit handlers now, _quick_end last
            # (raising SystemExit first costs ~0.7 ms a program on the interpreter's way there)
    raise SystemExit(code)  # through the interpreter's own ending: atexit, threads


def _pretouch() -> None:
    """A spare child, before its request: what every program does first with redis (a
    URL parsed, a client, its connection's handshake, commands sent and their replies
    read, a script compiled), done once on a socket pair with each reply written just
    before its command, so the pages that writes are copied from this process's now, off
    the program's way. Nothing of it stays: its objects go, no connection is left."""
    try:
        import redis
        from redis.connection import ConnectionPool, UnixDomainSocketConnection, parse_url
    except ImportError:
        return
    ours, theirs = socket.socketpair()
    try:
        class _Paired(UnixDomainSocketConnection):
            def _connect(self):
                return ours

        parse_url("unix:///pretouch?socket_timeout=86400")
        theirs.sendall(b"%1\r\n$5\r\nproto\r\n:3\r\n" + b"+OK\r\n" * 2)   # (HELLO 3, CLIENT SETINFO × 2)
        client = redis.Redis(connection_pool=ConnectionPool(connection_class=_Paired, path="/pretouch"),
                             single_connection_client=True)
        for reply, command in ((b"+PONG\r\n", ("PING",)), (b"$1\r\n4\r\n", ("GET", "k")),
                               (b"+OK\r\n", ("SET", "k", 5)), (b":5\r\n", ("INCR", "k"))):
            theirs.sendall(reply)
            client.execute_command(*command)
        compile("value = int(1)\n", "<pretouch>", "exec")
        client.close()
    except Exception:  # noqa: BLE001 (a warm-up only: the program goes on without it)
        pass
    finally:
        ours.close()
        theirs.close()


def _spare(parent: int, requests: socket.socket) -> tuple[int, socket.socket]:
    """A child forked ahead of its request: detached, warmed (_pretouch), then waiting on
    a socket pair of its own for the request (not on `requests`, this process's, which
    it closes); (its pid, this process's end)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid:
        theirs.close()
        return pid, ours
    ours.close()
    requests.close()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
    _detach(parent, signal.SIGKILL)
    null = os.open(os.devnull, os.O_RDWR)   # (this process's stdout says its children's exits: not a spare's)
    for target in (0, 1):
        os.dup2(null, target)
    os.close(null)
    _pretouch()
    before: _Before | None = None   # (as it is before its first run: each run leaves it so, or ends it)
    while True:
        message, fds, _, _ = socket.recv_fds(theirs, 1 << 20, 3)
        if not message:
            os._exit(0)
        request = json.loads(message)
        if not (_GATE and _TOLD and request.get("reuse")):
            theirs.close()
            _run_child(None, message, fds, parent)
        before = before or _Before(fds)
        _run_again(before, request, fds, parent)   # (back here only when its next request may come)


def _run_again(before: "_Before", request: dict, fds: list[int], parent: int) -> None:
    """A request that said `reuse` (its program's key): the program runs in this child as
    in any other, and when it is over the child is put back as it was before it (_Before).
    Then the child closes the run's standard streams, tells its exit status with its
    readiness for the next run of that key (_told_exit), and returns: its next request
    comes on the socket it took this one on. A program that left something that cannot
    be put back (a thread, a child, a descriptor, a handler, its standard streams
    replaced) ends its child as always (_end)."""
    code = _child(None, request, fds, parent) & 0xFF
    _flush(sys.stdout, sys.stderr)
    if not before.alone():   # (its threads, its atexit handlers: the script's namespace still theirs)
        _end(code)
    _clear_script()
    if not before.restore():
        _end(code)
    null = os.open(os.devnull, os.O_RDWR)   # (the run's pipes closed: their ends are seen at once)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    _told_exit(code, again=True)


_INSTALLED = tuple({os.path.join(os.path.realpath(prefix), "") for prefix in
                    (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)})


def _installed(module) -> bool:
    """A module of the interpreter's own installation (built in, frozen, the standard
    library, a package installed in its prefix), not a file of the learner's."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None) if spec is not None else getattr(module, "__file__", None)
    if origin in ("built-in", "frozen"):
        return True
    if not isinstance(origin, str):   # (a namespace package: wherever its folders are)
        return False
    return os.path.realpath(origin).startswith(_INSTALLED)


class _Before:
    """What a kept child is like before a run, and whether the run left it so (`restore`:
    what a run may change and this can set back is set back; False where it cannot)."""

    def __init__(self, passed: list[int]) -> None:
        """`passed`: the run's descriptors, passed with its request (on 0, 1, 2 in the run)."""
        self.cwd = os.getcwd()
        self.argv, self.path = list(sys.argv), list(sys.path)
        self.modules = dict(sys.modules)
        self.streams = (sys.stdin, sys.stdout, sys.stderr, sys.displayhook, sys.excepthook)
        self.fds = self._fds() - set(passed)
        self.signals = self._signals()
        self.atexit = atexit._ncallbacks()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        random = sys.modules.get("random")
        self.random = random.getstate() if random is not None else None
        self.timeout = socket.getdefaulttimeout()
        self.limits = (sys.getrecursionlimit(), sys.getswitchinterval(), gc.get_threshold(), gc.isenabled())
        warnings = sys.modules.get("warnings")
        self.warnings = list(warnings.filters) if warnings is not None else None

    @staticmethod
    def _fds() -> set[int]:
        """The descriptors open (not the one that read them)."""
        found = set()
        for name in os.listdir("/proc/self/fd"):
            try:
                os.fstat(int(name))
            except OSError:
                continue
            found.add(int(name))
        return found

    @staticmethod
    def _signals() -> dict:
        return {number: signal.getsignal(number) for number in signal.Signals
                if number not in (signal.SIGKILL, signal.SIGSTOP)}

    def alone(self) -> bool:
        """No thread, child or atexit handler of the run's left: what the interpreter's own
        ending waits for or runs (they may need the script's namespace)."""
        threading = sys.modules.get("threading")
        if threading is not None and threading.active_count() > 1:
            return False
        return _children() == [] and atexit._ncallbacks() == self.atexit

    def restore(self) -> bool:
        """After `alone()` and the script's namespace cleared: put back what the run changed."""
        warnings = sys.modules.get("warnings")
        if (self._signals() != self.signals or warnings is not None and warnings.filters != self.warnings
                or (sys.stdin, sys.stdout, sys.stderr, sys.displayhook, sys.excepthook) != self.streams
                or self._fds() != self.fds or signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0)):
            return False
        for name in [name for name in sys.modules if name not in self.modules]:
            if _installed(sys.modules[name]):   # (the standard library's, an installed package's: kept
                self.modules[name] = sys.modules[name]   # imported, as redis is; a C extension is never
            else:                                        # imported twice)
                del sys.modules[name]   # (the learner's own: imported again by the next run, as it is then)
        sys.modules.update(self.modules)
        sys.argv[:], sys.path[:] = self.argv, self.path
        os.chdir(self.cwd)
        os.umask(self.umask)
        random = sys.modules.get("random")
        if random is not None and self.random is not None:
            random.setstate(self.random)   # (as a fresh fork's: the same numbers again)
        socket.setdefaulttimeout(self.timeout)
        recursion, interval, threshold, enabled = self.limits
        sys.setrecursionlimit(recursion)
        sys.setswitchinterval(interval)
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()
        return True


def _to_spare(spare: tuple[int, socket.socket], requests: socket.socket, message: bytes, fds: list[int],
              key: str | None, again: bool = False) -> bool:
    """The request to the spare (or, `again`, to a kept child waiting for its key's next
    run), and "PID RUN AGAIN" to whoever asked: True. False when that child died before
    (killed while it waited): then another takes it. With a `key` (the request's
    `reuse`) the child is kept, its socket with it, for that key's next request."""
    pid, channel = spare
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    _SPARE.discard(pid)
    _IDLE.pop(pid, None)
    try:
        socket.send_fds(channel, [message], fds)
    except OSError:
        _let_go(pid)
        channel.close()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        return False
    if key is None:
        channel.close()
    else:
        _KEPT[pid] = (channel, key)
    _RUNS[0] += 1
    _SPAWNED[pid] = _RUNS[0]
    requests.send(b"%d %d %d" % (pid, _RUNS[0], again))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
    for fd in fds:
        os.close(fd)
    return True


def _end_run(requests: socket.socket, pid: int, run: int) -> None:
    """The app stops run `run` of child `pid` (its time limit ...): SIGKILL to the
    child's process group if that run is still the child's, answered "1"; else "0", the
    child left be. A kept child that told that run's end may run its key's next one
    already, which the pid alone would end. The kill's exit is reported as any."""
    if _TOLD:
        _report_told()   # (a run that told its end meanwhile: over, not to be ended)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    try:
        ours = _SPAWNED.get(pid) == run
        if ours:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        requests.send(b"1" if ours else b"0")
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])


def _to_kept(key: str, requests: socket.socket, message: bytes, fds: list[int]) -> bool:
    """The request to a kept child of its key's, waiting (nothing forked, nothing to
    warm), as _to_spare: True. False when none is left."""
    kept = _kept_for(key)
    while kept is not None:
        if _to_spare(kept, requests, message, fds, key, again=True):
            return True
        kept = _kept_for(key)
    return False


def _kept_for(key: str | None) -> tuple[int, socket.socket] | None:
    """A kept child waiting for a run of `key` (the one waiting longest), or None."""
    for pid, waits_for in _IDLE.items():
        if waits_for == key:
            return pid, _KEPT[pid][0]
    return None


def _keep_waiting(pid: int) -> None:
    """A kept child's run is over and it waits for its key's next: the oldest waiting
    past _IDLE_LIMIT is told to end (an empty request)."""
    _IDLE[pid] = _KEPT[pid][1]
    while len(_IDLE) > _IDLE_LIMIT:
        oldest = next(iter(_IDLE))
        try:
            _KEPT[oldest][0].send(b"")
        except OSError:
            pass
        _let_go(oldest)


def _wait_for_request(sock: socket.socket) -> None:
    """Until a request can be read on `sock`. A child's end (SIGCHLD) is handled (_reap)
    meanwhile even when it comes just before this process blocks: the signal's handler
    in C writes to a pipe this waits on too, and the handler in Python runs as the wait
    returns. (A blocking recv alone missed such a signal: the child was never reaped
    and its exit never told.)"""
    if not _WAKE:
        _WAKE.extend(os.pipe())
        for fd in _WAKE:
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(_WAKE[1])
    while True:
        ready, _, _ = select.select([sock.fileno(), _WAKE[0], *(t.fileno() for t in _TOLD[:1])], [], [])
        if _WAKE[0] in ready:
            try:
                os.read(_WAKE[0], 4096)
            except BlockingIOError:
                pass
        if _TOLD and _TOLD[0].fileno() in ready:
            _report_told()
        if sock.fileno() in ready:
            return


def _open_told() -> None:
    """The socket children tell their ends on (_told_exit), with the sender's credentials."""
    tell = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = b"\0redis-playground-warm-%d-%s" % (os.getpid(), os.urandom(8).hex().encode())
    try:
        tell.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        tell.bind(name)
        tell.setblocking(False)
    except (OSError, AttributeError):   # (no abstract names, no credentials: each exit is told at its reap)
        tell.close()
        return
    _TOLD.extend((tell, name))


def _report_told() -> None:
    """Report each exit a child told (_told_exit) as its reap would, once: a child told
    is no longer one this process reports (`_SPAWNED`); one already reaped is not told
    again. Its pid is the kernel's word (SCM_CREDENTIALS), not the datagram's."""
    tell = _TOLD[0]
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    try:
        while True:
            try:
                data, ancillary, _, _ = tell.recvmsg(32, socket.CMSG_SPACE(12))
            except (BlockingIOError, InterruptedError):
                return
            pid = next((struct.unpack("3i", cdata[:12])[0] for level, kind, cdata in ancillary
                        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS), None)
            code, _, again = data.partition(b" ")
            if pid in _SPAWNED and code.lstrip(b"-").isdigit():
                os.write(1, b"%d %d %d\n" % (pid, _SPAWNED.pop(pid), int(code)))
                if again == b"again" and pid in _KEPT:
                    _keep_waiting(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])


def main() -> int:
    """The warm interpreter: preload, then fork a child for each request on the socket
    (sys.argv[1], its descriptor) and say its pid; its exit status when it ends."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if _GATE:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # a child's orphans come here when it ends
    sock = socket.socket(fileno=int(sys.argv[1]))
    try:
        _preload(sys.argv[2:])
    except Exception as exc:  # noqa: BLE001 (one line: whoever started it goes without)
        print(f"warm_python: could not preload: {exc!r}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGCHLD, _reap)
    if _GATE:
        _open_told()
    parent = os.getpid()
    spare = None
    while True:
        if _GATE and spare is None:
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
            spare = _spare(parent, sock)
            _SPARE.add(spare[0])
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        _wait_for_request(sock)
        message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
        if not message:
            return 0
        request = json.loads(message)
        if "kill" in request:
            for fd in fds:
                os.close(fd)
            _end_run(sock, *request["kill"])
            continue
        key = request.get("reuse") if _GATE and _TOLD else None
        if key is not None and _to_kept(key, sock, message, fds):
            continue
        if spare is not None:   # (a gate's: its spare, warm, takes the request)
            taken = _to_spare(spare, sock, message, fds, key)
            spare = None
            if taken:
                continue
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])  # (a quick child is reaped after it is known)
        _RUNS[0] += 1
        pid = os.fork()
        if pid == 0:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            _run_child(sock, message, fds, parent)
        _SPAWNED[pid] = _RUNS[0]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
