"""The command's entry point (`redis-playground`, `python -m playground`), before anything
else is imported: a Ctrl+C (SIGINT) from the first instant ends the command quietly with
status 130, never with a traceback, wherever start-up is (importing, reading the command
line). `cli/main.py` takes over once it runs its command: from there a KeyboardInterrupt
unwinds through its `finally`s (the servers stop) to the same status."""

from __future__ import annotations

import signal

from playground.cli.interrupts import quiet_while_starting


def entry() -> None:
    """Run the command (cli/main.py `entry`), quiet on a Ctrl+C while it starts."""
    signal.signal(signal.SIGINT, quiet_while_starting)
    from playground.cli.main import entry as run_command

    run_command()
