"""A warm interpreter for a lesson's Python programs (gate/warm.py starts it): it imports
redis once, then forks a child for each program, so a schedule of the explorer does not
pay an interpreter's start and `import redis` per program.

    python warm_python.py FD

FD is a SOCK_SEQPACKET socket: each message is a JSON request {argv, cwd, env} with the
child's stdin, stdout and stderr as passed descriptors; the child answers it with its pid
once it leads a session of its own. When a child exits, "PID CODE" (as
os.waitstatus_to_exitcode) goes to this process's stdout. A child runs its script as
`python SCRIPT ARGS...` would (sys.argv, sys.path[0], __main__, exit status, traceback
on stderr); it is killed when this process dies, and this process when the app does.
Imports nothing of the playground's.
"""

import ctypes
import json
import os
import runpy
import signal
import socket
import sys
import traceback

import redis  # noqa: F401 (the point: imported once, before the forks)


_OWN_FRAMES = {__file__, os.path.abspath(__file__), runpy.__file__}


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
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
        os.write(1, b"%d %d\n" % (pid, os.waitstatus_to_exitcode(status)))


def _child(sock: socket.socket, request: dict, fds: list[int]) -> int:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    _die_with_parent()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sock.send(b"%d" % os.getpid())
    sock.close()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    script = request["argv"][1]
    sys.argv = request["argv"][1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:  # noqa: BLE001 (as the interpreter: the traceback, status 1)
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in _OWN_FRAMES:
            tb = tb.tb_next  # from the script's own frames on, as the interpreter shows it
        traceback.print_exception(type(exc), exc, tb)
        return 1
    return 0


def main() -> int:
    _die_with_parent()
    sock = socket.socket(fileno=int(sys.argv[1]))
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        message, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
        if not message:
            return 0
        pid = os.fork()
        if pid == 0:
            code = _child(sock, json.loads(message), fds)
            sys.stdout.flush()
            sys.stderr.flush()
            raise SystemExit(code)  # through the interpreter's own ending: atexit, threads
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
