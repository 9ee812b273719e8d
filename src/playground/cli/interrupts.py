"""Ctrl+C (SIGINT) while the command starts, and after: cli/launch.py installs
`quiet_while_starting` before anything else is imported; cli/main.py hands over to
Python's own KeyboardInterrupt once its command runs (`interrupt_unwinds`)."""

from __future__ import annotations

import signal

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl+C ended


def quiet_while_starting(signum: int, frame: object) -> None:
    """The SIGINT handler while the command starts: exit with INTERRUPTED, no traceback."""
    raise SystemExit(INTERRUPTED)  # (nothing is started yet: no server to stop, nothing to say)


def interrupt_unwinds() -> None:
    """From now on a Ctrl+C raises KeyboardInterrupt (Python's own), which cli/main.py
    turns into status 130 once every `finally` has run (the servers stop)."""
    if signal.getsignal(signal.SIGINT) is quiet_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
