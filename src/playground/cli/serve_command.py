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

import os
import sys

from playground.i18n import tr
from playground.topology_kinds import SINGLE

URL_OPTIONS = ("url", "url_file", "allow_flush", "tls", "cacert", "cert", "key", "insecure", "user")  # refused: --url's
SESSION_GRACE_MINUTES = 10.0  # a session outlives its tab's connection this long (reload, Wi-Fi, sleep)
QUIT_GRACE = 5.0  # seconds an app has to quit on its own before it is terminated, then killed
READY = 2  # apps kept started for the next tabs (cli/ready_pool.py)
APP_MEMORY_MB = 1024  # an app past this much memory (resident) is ended, its tab told why
SESSION_MB = 90  # MB a session takes, with room: its app (~60 MB resident) and its private server
TABS_PER_CORE = 30  # sessions a core keeps answering within a second (a class's step: BENCHMARKS.md)


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


def add_parser(sub, parents) -> None:
    serve = sub.add_parser("serve", parents=parents,
                           help=tr("the playground in a browser tab: one app and one private server per tab"))
    serve.add_argument("--host", default="127.0.0.1",
                       help=tr("address to listen on (default 127.0.0.1: this machine only)"))
    serve.add_argument("--port", type=int, default=8000, help=tr("port to listen on (default 8000)"))
    serve.add_argument("--max-tabs", type=int, metavar="N",
                       help=tr("at most N sessions at once (each an app and a private server); "
                               "one more tab is told the class is full (default: what this machine holds, "
                               "half its available memory at {mb} MB a session and {per_core} a core)",
                               mb=SESSION_MB, per_core=TABS_PER_CORE))
    serve.add_argument("--app-memory", type=int, default=APP_MEMORY_MB, metavar="MB",
                       help=tr("a tab's app that uses more than MB megabytes of memory is ended, and its tab "
                               "says why (default {mb})", mb=APP_MEMORY_MB))
    serve.add_argument("--public-name", action="append", default=[], metavar="NAME",
                       help=tr("a name serve is reached by besides 127.0.0.1, localhost, [::1] and --host "
                               "(a reverse proxy's public name, or this machine's name on a lab's network); "
                               "a request for any other name is refused (may be repeated)"))
    serve.add_argument("--ready", type=int, default=READY, metavar="N",
                       help=tr("start N apps (each with its private server) ahead of the tabs, so that a new tab "
                               "is usable at once; each is a fresh playground nobody has seen. N in all, not N more "
                               "after each wave of tabs: the ready apps are N less the tabs' sessions, at least one; "
                               "never more than --max-tabs allows; 0: start each tab's app when it comes (default {n})",
                               n=READY))
    serve.add_argument("--no-fork", dest="fork", action="store_false",
                       help=tr("start each tab's app as a new Python process, instead of forking it from a warm "
                               "process that has imported the app already (slower: about a second of CPU per app)"))
    serve.add_argument("--session-grace", type=float, default=SESSION_GRACE_MINUTES, metavar="MINUTES",
                       help=tr("how long a tab's app and server wait for the tab to come back after a reload "
                               "or a lost connection, then stop (default {minutes:g} minutes)",
                               minutes=SESSION_GRACE_MINUTES))
    serve.add_argument("--class", dest="class_mode", action="store_true",
                       help=tr("class mode: also print a teacher's URL; the teacher's tab picks the lesson, "
                               "every learner's tab opens it and follows the teacher's step (or goes at its own "
                               "pace), and the teacher sees the class's predictions and progress"))
    serve.add_argument("--class-url", metavar="URL",
                       help=tr("with --class: coordinate through this Redis (redis://, rediss:// or unix://) instead "
                               "of a private one, so that several serve processes share one class"))
    serve.add_argument("--class-url-file", metavar="FILE",
                       help=tr("with --class: the --class-url (with its password) read from FILE, which only you "
                               "may read (chmod 600); or give --class-url without a password and the password in "
                               "REDIS_PLAYGROUND_CLASS_PASSWORD"))
    serve.add_argument("--new-period", action="store_true",
                       help=tr("with --class-url: start the class afresh (a new lesson period): its lesson, step, "
                               "learners and answers go, and an older teacher's URL no longer leads it"))
    serve.add_argument("--class-name", default="class", metavar="NAME",
                       help=tr("with --class-url: the class's name, so that several classes share one Redis "
                               "(default: class)"))


def is_loopback(host: str) -> bool:
    import ipaddress

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
        from playground.cli.class_serve import class_setup

        classroom = class_setup(args)
        if isinstance(classroom, str):
            print("redis-playground: " + classroom, file=sys.stderr)
            return 2
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

