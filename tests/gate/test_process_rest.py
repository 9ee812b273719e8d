"""Whether a program is at rest, asked of the kernel (gate/process_rest.py): real processes
in known states, each telling on a pipe when it is about to wait. A busy one (or one with a
busy child) is not at rest; a blocking read has no timeout of its own; a socket timeout,
a sleep, an event's timed wait and a child's sleep have theirs, read from the wait itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from playground.gate.process_rest import NEVER, readable, rest

LIMIT = 20.0   # a bound on reaching the wait, not a wait

READY = "import sys\nsys.stdout.write('ready\\n'); sys.stdout.flush()\n"
PROGRAMS = {
    "blocking read": (READY + "import socket\na, b = socket.socketpair()\na.recv(1)\n", NEVER),
    "socket timeout": (READY + "import socket\na, b = socket.socketpair()\na.settimeout(50)\na.recv(1)\n", 50.0),
    "sleep": (READY + "import time\ntime.sleep(40)\n", 40.0),
    "event wait": (READY + "import threading\nthreading.Event().wait(30)\n", 30.0),
    "event wait for ever": (READY + "import threading\nthreading.Event().wait()\n", NEVER),
    "a thread's read, joined": (READY + "import socket, threading\na, b = socket.socketpair()\n"
                                "t = threading.Thread(target=a.recv, args=(1,))\nt.start()\nt.join()\n", NEVER),
    "a child's sleep": (READY + "import subprocess\nsubprocess.run(['sleep', '45'])\n", 45.0),
}


def _started(code: str) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def _end(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)   # (its child too)
    process.wait()


def _at_rest(pid: int):
    deadline = time.monotonic() + LIMIT
    while (got := rest(pid)) is None:
        assert time.monotonic() < deadline, "never at rest"
        time.sleep(0.005)   # (polling a condition within a bound)
    return got


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_program_at_rest_and_its_own_timeout(name):
    code, timeout = PROGRAMS[name]
    process = _started(code)
    try:
        assert readable(process.pid)
        got = _at_rest(process.pid)
        if timeout == NEVER:
            assert got.timeout == NEVER and not got.own_timeout
        else:   # (counted down since the wait began, or its full length: poll's is)
            assert got.own_timeout and timeout - 5 < got.timeout <= timeout
    finally:
        _end(process)


@pytest.mark.parametrize("code", [READY + "while True:\n    pass\n",
                                  READY + "import subprocess, sys\n"
                                  "subprocess.run([sys.executable, '-c', 'while True: pass'])\n"],
                         ids=["itself", "its child"])
def test_a_busy_program_is_not_at_rest(code):
    process = _started(code)
    try:
        # its child, once started, runs for ever: the program is never at rest after that
        deadline = time.monotonic() + LIMIT
        while True:
            children = open(f"/proc/{process.pid}/task/{process.pid}/children").read().split()
            if "child" not in code or children:
                break
            assert time.monotonic() < deadline
            time.sleep(0.005)
        assert all(rest(process.pid) is None for _ in range(50))   # (runnable, running or not: R)
    finally:
        _end(process)
