"""SIGTERM, SIGHUP and SIGINT end the headless commands (`repl`, `run`, `check`,
`explore`) within EXIT_GRACE seconds, with the server stopped, whatever is hanging.

The first signal raises KeyboardInterrupt, so every `finally` closes the connections
and stops the server as usual. That unwinding can itself wait (a task that outlives
its cancellation, a server busy in a script that takes its time to stop): if the
process is still there EXIT_GRACE seconds later, or at a second signal, it ends at
once (removing the servers' private directories first), and the server's watchdog
(server/private.py) kills the server's process group as soon as this process is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
from collections.abc import Iterable
from types import FrameType
from typing import NoReturn

from playground.exit_dirs import FORCED_EXIT_DIRS

EXIT_GRACE = 2.0
EXIT_CODE = 130  # what the KeyboardInterrupt path returns too (cli/main.py)
_armed: list[bool] = []


def _end_now() -> None:
    # (no flush of stdout here: the main thread may hold its lock, blocked writing to a
    # pipe nobody reads, and this must end the process whatever the main thread does)
    for path in list(FORCED_EXIT_DIRS):  # the servers' private directories: not left for the next start
        shutil.rmtree(path, ignore_errors=True)  # to sweep (the watchdogs kill the servers)
    os._exit(EXIT_CODE)


def _end_later() -> None:
    timer = threading.Timer(EXIT_GRACE, _end_now)
    timer.daemon = True
    timer.start()


def _on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    if _armed:  # a second signal: no more waiting
        _end_now()
    _armed.append(True)
    _end_later()
    raise KeyboardInterrupt(signal.Signals(signum).name)


def install_exit_signals(signals: Iterable[signal.Signals] = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)) -> None:
    """From now on these signals end the process as described above."""
    for sig in signals:
        try:
            signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # (not the main thread)
            pass
