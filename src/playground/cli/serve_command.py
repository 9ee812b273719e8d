"""`redis-playground serve`: the playground in a browser tab (textual-serve).

Each tab gets its own app process, and that app its own private server, as in the
terminal; a reload or a lost connection finds them again (a session, cli/web_server.py).
A few apps are kept started for the next tabs (--ready, cli/ready_pool.py), each forked
from a warm process that has imported the app already (--no-fork: not; cli/app_zygote.py).
Nothing outlives what started it:
- a tab closed (or its connection lost) for longer than --session-grace: its app is asked
  to quit, terminated if it has not gone within a few seconds, then killed;
- the command ended (Ctrl+C, SIGTERM): every app still running is terminated, then killed;
- the command killed outright: each app has PR_SET_PDEATHSIG (SIGTERM, which Textual's web
  driver takes as "quit"), on serve or, when forked, on the zygote, which has its own on
  serve (SIGKILL); the app's private server dies with the app (its own PR_SET_PDEATHSIG
  and watchdog, server/private.py).
Loopback by default: on another address anyone who can reach it gets playgrounds of their own.
"""

from __future__ import annotations

import ipaddress
import os
import sys

from playground.cli.class_serve import class_setup
from playground.cli.command_options import (APP_MEMORY_MB, READY, SESSION_GRACE_MINUTES,  # noqa: F401 (re-exported)
                                            SESSION_MB, TABS_PER_CORE)
from playground.i18n import tr
from playground.topology_kinds import SINGLE

URL_OPTIONS = ("url", "url_file", "allow_flush", "tls", "cacert", "cert", "key", "insecure", "user")  # refused: --url's
QUIT_GRACE = 5.0  # seconds an app has to quit on its own before it is terminated, then killed


def default_max_tabs() -> int:
    """--max-tabs when none is given: what this machine holds, half its available memory at
    SESSION_MB a session and TABS_PER_CORE a core, whichever is fewer (at least 2)."""
    available = None
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            available = 4 << 30
    by_memory = int(available / 2 / (SESSION_MB << 20))
    return max(2, min(by_memory, TABS_PER_CORE * (os.cpu_count() or 1)))


class KeptOutput:
    """serve's standard output, kept from ending serve: once its reader is gone (serve piped
    into a command that ended, a terminal closed), what serve writes goes nowhere and serve
    goes on (before, the first write killed it, leaving its sessions' directories)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (BrokenPipeError, OSError, ValueError):
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._gone()

    def _gone(self) -> None:
        try:
            self.stream = open(os.devnull, "w")
        except OSError:
            pass

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only (localhost or a loopback address).

    Args:
        host: --host as given.
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def app_command(args) -> list[str]:
    """The command each tab runs: this Python, the playground, the options given to serve."""
    argv = [sys.executable, "-m", "playground", "--lang", args.lang]
    if args.server:
        argv += ["--server", args.server]
    if tuple(args.clients) != ("A", "B"):
        argv += ["--clients", ",".join(args.clients)]
    for folder in args.scenarios:
        argv += ["--scenarios", os.path.abspath(folder)]
    if args.topology != SINGLE.name:
        argv += ["--topology", args.topology]
    if args.replicas is not None:
        argv += ["--replicas", str(args.replicas)]
    return argv


def cmd_serve(args) -> int:
    """`serve`: the playground in browser tabs, until Ctrl+C or SIGTERM.

    Args:
        args: the parsed command line (cli/main.py).

    Returns:
        0, or 2 for options that cannot go together.
    """
    named = [f"--{name.replace('_', '-')}" for name in URL_OPTIONS if getattr(args, name, None)]
    if named:
        print("redis-playground: " + tr("serve gives every tab a private server of its own; "
                                        "{options}: not for serve", options=", ".join(named)), file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print("redis-playground: " + tr("the port must be a number from 1 to 65535"), file=sys.stderr)
        return 2
    if not 0 <= args.session_grace <= 7 * 24 * 60:
        print("redis-playground: " + tr("--session-grace is a number of minutes from 0 to {most}",
                                        most=7 * 24 * 60), file=sys.stderr)
        return 2
    if args.max_tabs is not None and args.max_tabs < 1:
        print("redis-playground: " + tr("--max-tabs must be 1 or more"), file=sys.stderr)
        return 2
    if not 16 <= args.app_memory <= 1 << 20:
        print("redis-playground: " + tr("--app-memory is a number of megabytes from {least} to {most}",
                                        least=16, most=1 << 20), file=sys.stderr)
        return 2
    if not 0 <= args.ready <= 1000:
        print("redis-playground: " + tr("--ready is a number of apps from 0 to {most}", most=1000), file=sys.stderr)
        return 2
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        print("redis-playground: " + tr("serve needs textual-serve: pip install 'redis-playground[serve]'"),
              file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print("redis-playground: " + tr(
            "warning: listening on {host}: anyone who can reach this port can open playgrounds of their "
            "own and type commands into them (each on a private server, never another Redis), using this "
            "machine's CPU and memory", host=args.host), file=sys.stderr)
    if (args.class_url or args.class_url_file or args.class_name != "class") and not args.class_mode:
        print("redis-playground: " + tr("--class-url, --class-url-file and --class-name go with --class"),
              file=sys.stderr)
        return 2
    if args.new_period and not args.class_mode:
        print("redis-playground: " + tr("--new-period goes with --class"), file=sys.stderr)
        return 2
    classroom = None
    if args.class_mode:
        setup = class_setup(args)
        if isinstance(setup, str):
            print("redis-playground: " + setup, file=sys.stderr)
            return 2
        classroom = setup
    # (textual-serve is the optional [serve] extra, which the web server imports: only
    # once it is known to be installed, above)
    from playground.cli.web_server import PlaygroundServer

    max_tabs = args.max_tabs if args.max_tabs is not None else default_max_tabs()
    if args.max_tabs is None:
        print("redis-playground: " + tr("at most {n} tabs at once, sized to this machine (--max-tabs changes it)",
                                        n=max_tabs), file=sys.stderr)
    sys.stdout, sys.stderr = KeptOutput(sys.stdout), KeptOutput(sys.stderr)
    try:
        PlaygroundServer(app_command(args), args.host, args.port, quit_grace=QUIT_GRACE,
                         session_grace=args.session_grace * 60, max_tabs=max_tabs, classroom=classroom,
                         ready=args.ready, fork=args.fork, public_names=tuple(args.public_name),
                         app_memory=args.app_memory << 20).serve()
    finally:
        if classroom is not None:
            classroom.stop()
    return 0

