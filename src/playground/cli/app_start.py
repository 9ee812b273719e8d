"""The app's start from the command line (no command, or `open`), before Textual: the
lesson `open` names is read first (an unknown or broken one is said in one line before
any screen), then the private server is spawned, so that it starts while Textual imports
(cli/main.py's `_run_app`, which imports this module once the app is chosen)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import TYPE_CHECKING

from playground.engine.exit_signals import install_exit_signals
from playground.scenario.library import challenge_of, resolve
from playground.scenario.loader import load_scenario
from playground.scenario.model import Scenario
from playground.server import choose_binary, make_server
from playground.server.private import PrivateServer
from playground.topology_kinds import SINGLE

if TYPE_CHECKING:
    from playground.server.topology import Topology


def open_lesson(args: argparse.Namespace) -> Scenario | None:
    """The lesson `open` names (also kept as `args.opened`: read once), or None.

    Args:
        args: the parsed command line (cli/main.py).

    Raises:
        ScenarioError: an unknown or broken lesson, or one without a challenge for --challenge.
    """
    if args.command != "open":
        return None
    opened = (challenge_of(args.scenario, args.scenarios, args.lang) if args.challenge
              else load_scenario(resolve(args.scenario, args.scenarios), args.lang))
    args.opened = opened  # (the app opens it: read once)
    return opened


def on_a_terminal() -> bool:
    """The app reads keys from stdin and draws on stderr (Textual's choice: stdout may go
    to a file): without a terminal there (`</dev/null`) Textual spins at full CPU."""
    if os.environ.get("REDIS_PLAYGROUND_BENCH_READY"):  # python -m benchmarks.bench: headless
        return True
    if os.environ.get("TEXTUAL_DRIVER"):  # serve's tabs: Textual's web driver speaks over pipes
        return True
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def spawn_server(args: argparse.Namespace, opened: Scenario | None) -> PrivateServer | Topology | None:
    """The private server, spawned (not waited for), or None with --url.

    Args:
        args: the parsed command line (cli/main.py).
        opened: the lesson to open, whose own topology wins over --topology.
    """
    if args.url:
        return None
    # until the app's own handlers (on mount): a SIGTERM (serve ending while this app
    # starts) still stops the server and removes its directory
    install_exit_signals((signal.SIGTERM, signal.SIGHUP))
    topology, replicas = args.topology, args.replicas
    if opened is not None and opened.topology != SINGLE.name:  # a scenario's own topology: it starts on it
        topology, replicas = opened.topology, opened.replicas
    return make_server(choose_binary(args.server), topology, replicas).spawn()
