"""The command's entry point (`redis-playground`, `python -m playground`), before anything
else is imported: a Ctrl+C (SIGINT) from the first instant ends the command quietly with
status 130, never with a traceback, wherever start-up is (importing, reading the command
line). `cli/main.py` takes over once it runs its command: from there a KeyboardInterrupt
unwinds through its `finally`s (the servers stop) to the same status."""

from __future__ import annotations

import signal

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl+C ended


def quiet_while_starting(signum: int, frame: object) -> None:
    """The SIGINT handler while the command starts: exit with INTERRUPTED, no traceback."""
    raise SystemExit(INTERRUPTED)  # (nothing is started yet: no server to stop, nothing to say)


def entry() -> None:
    """Run the command (cli/main.py `entry`), quiet on a Ctrl+C while it starts."""
    signal.signal(signal.SIGINT, quiet_while_starting)
    from playground.cli.main import entry as run_command

    run_command()
