"""The `redis-playground` command: the TUI by default, and the headless commands.

This module parses the command line for every command; each command's own module is
imported only once it is chosen (`main`'s dispatch, the one lazy boundary): `repl`
imports the engine it needs and nothing of the TUI, the explorer or the scenarios, and
headless commands never import Textual.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from playground import __version__, i18n
from playground.cli.argparse_lang import argparse_language
from playground.cli.command_options import FORMATS, add_explore, add_import, add_serve, format_name
from playground.cli.interrupts import interrupt_unwinds
from playground.cli.url_secret import read_url_file, refuse_password
from playground.errors import ScenarioError, ServerError
from playground.i18n import N_, current_language, default_language, set_language, tr
from playground.resp.address import Address
from playground.scenario import MAX_CLIENTS
from playground.topology_kinds import KINDS, MAX_REPLICAS, NAMES, REPLICA_COUNTS, SINGLE, WITH_NODES
from playground.visible import visible


_CLIENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
# Options that may come before or after the subcommand: name -> default.
_GLOBAL: dict[str, object] = {"server": None, "url": None, "url_file": None, "allow_flush": False,
                               "clients": ("A", "B"), "scenarios": [],
                               "topology": SINGLE.name, "replicas": None,
                               "tls": False, "cacert": None, "cert": None, "key": None, "insecure": False, "user": None}
_TOP = "top_"  # dest prefix of the copies given before the subcommand


def _server_options(dest_prefix: str = "", private_only: bool = False) -> _Parser:
    """The server options. `private_only` (serve's): --url and its options are accepted, to be
    refused with one clear line, but --help does not list them."""
    common = _Parser(add_help=False)

    def shown(text: str) -> str:
        return argparse.SUPPRESS if private_only else text

    group = common.add_argument_group(tr("server"))
    group.add_argument("--server", dest=dest_prefix + "server", metavar="PATH|bundled|system",
                       help=tr("server binary for the private server (default: $REDIS_PLAYGROUND_SERVER, "
                               "then redis-server on PATH, then the bundled valkey-server)"))
    group.add_argument("--url", dest=dest_prefix + "url", metavar="URL",
                       help=shown(tr("use this existing server instead of a private one "
                                      "(redis://host:port/db or unix:///path); never the default")))
    group.add_argument("--url-file", dest=dest_prefix + "url_file", metavar="FILE",
                       help=shown(tr("--url read from FILE, which only you may read (chmod 600): a URL with a "
                                     "password never goes on the command line, where ps shows it")))
    group.add_argument("--allow-flush", dest=dest_prefix + "allow_flush", action="store_const", const=True,
                       help=shown(tr("with --url: the server is disposable; allow FLUSHALL, EVAL, CONFIG SET, "
                                      "REPLICAOF, ... and scenario resets (refused by default)")))
    group.add_argument("--clients", dest=dest_prefix + "clients", type=_client_names, metavar="A,B",
                       help=tr("names of the clients, at most {count}, each with its own connection (default A,B)",
                               count=MAX_CLIENTS))
    group.add_argument("--topology", dest=dest_prefix + "topology", choices=NAMES,
                       help=tr("{kinds}; private nodes on 127.0.0.1 with a password the app keeps to itself "
                               "(a scenario's own topology wins)",
                               kinds=tr("; ").join(tr("{name}: {what}", name=k.name,
                                                                      what=tr(k.summary, primaries=k.primaries))
                                                   for k in KINDS.values())))
    group.add_argument("--replicas", dest=dest_prefix + "replicas", type=int, choices=REPLICA_COUNTS,
                       metavar="N", help=tr("{kinds}; at most {most}", most=MAX_REPLICAS, kinds=tr("; ").join(
                           tr("{name}: {what}", name=k.name, what=tr(k.replicas_summary, default=k.default_replicas))
                           for k in KINDS.values() if k.takes_replicas)))
    tls = common.add_argument_group(tr("--url: TLS and ACL user (as redis-cli names them)"))
    tls.add_argument("--tls", dest=dest_prefix + "tls", action="store_const", const=True,
                     help=shown(tr("speak TLS to the --url server (a rediss:// URL does too)")))
    tls.add_argument("--cacert", dest=dest_prefix + "cacert", metavar="FILE", help=shown(
        tr("CA certificate(s) to check the server's certificate with (default: the system's)")))
    tls.add_argument("--cert", dest=dest_prefix + "cert", metavar="FILE",
                     help=shown(tr("client certificate (with --key)")))
    tls.add_argument("--key", dest=dest_prefix + "key", metavar="FILE",
                     help=shown(tr("client certificate's private key")))
    tls.add_argument("--insecure", dest=dest_prefix + "insecure", action="store_const", const=True,
                     help=shown(tr("do not check the server's certificate")))
    tls.add_argument("--user", dest=dest_prefix + "user", metavar="NAME",
                     help=shown(tr("ACL user name (AUTH user password); the password from $REDISCLI_AUTH "
                                   "or the URL in --url-file")))
    return common


def _private_server_option() -> _Parser:
    """--server and --lang alone (`import`: its server is private, its clients the capture's)."""
    common = _Parser(add_help=False)
    group = common.add_argument_group(tr("server"))
    group.add_argument("--server", metavar="PATH|bundled|system",
                       help=tr("server binary for the private server (default: $REDIS_PLAYGROUND_SERVER, "
                               "then redis-server on PATH, then the bundled valkey-server)"))
    _language_option(common)
    return common


def _given_url(args) -> str | None:
    """The URL of --url (never with a password: ps shows it) or --url-file (ValueError: one line)."""
    if args.url and args.url_file:
        raise ValueError(tr("--url or --url-file, not both"))
    if args.url_file:
        return read_url_file(args.url_file, "--url-file")
    if args.url:
        refuse_password(args.url, "--url", "REDISCLI_AUTH")
    return args.url


def _url_address(args):
    """--url with the TLS and --user options applied: an Address (ValueError: one line)."""
    named = [f"--{name}" for name in ("tls", "cacert", "cert", "key", "insecure", "user") if getattr(args, name)]
    if not args.url:
        if named:
            raise ValueError(tr("{options} go with --url (the private server needs none)",
                                options=", ".join(named)))
        return None
    return Address.from_url(args.url).with_options(
        tls=args.tls, cacert=args.cacert, cert=args.cert, key=args.key, insecure=args.insecure,
        user=args.user, password=os.environ.get("REDISCLI_AUTH") or None)


def _library_options(dest_prefix: str = "") -> _Parser:
    library = _Parser(add_help=False)
    library.add_argument("--scenarios", dest=dest_prefix + "scenarios", action="append", metavar="DIR",
                         help=tr("also use the scenario files in DIR (may be repeated)"))
    _language_option(library)
    return library


def _language_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's default must not undo `redis-playground --lang zh run ...`
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default=argparse.SUPPRESS,
                        help=tr("language of the interface and the scenario texts (default: from LC_ALL, LC_MESSAGES, "
                                "LANG, LANGUAGE; English if not {languages})", languages=", ".join(i18n.LANGUAGES[1:])))


# argparse's own words that our commands can show (cli/argparse_lang.py has argparse read
# them from our catalogues); any other stays English.
_ARGPARSE_TEXTS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"),
)


def _language_in(argv: list[str]) -> str | None:
    """The language `--lang X` / `--lang=X` asks for in argv (the last known one), for --help
    and argparse's errors, which come before the parsed --lang counts."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg[len("--lang="):] if arg.startswith("--lang=") else None)
        if value in i18n.LANGUAGES:
            found = value
    return found


def _client_names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names or not all(_CLIENT_NAME.fullmatch(n) for n in names):
        raise argparse.ArgumentTypeError(tr("give names like A,B,C: ASCII letters, digits, - and _, "
                                         "starting with a letter, at most 32 characters each"))
    if len(set(n.lower() for n in names)) != len(names):
        raise argparse.ArgumentTypeError(tr("the client names must be distinct (case does not count)"))
    if len(names) > MAX_CLIENTS:
        raise argparse.ArgumentTypeError(tr("at most {count} clients", count=MAX_CLIENTS))
    return names


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.1 <= value <= 86400:  # (also refuses nan and inf)
        raise argparse.ArgumentTypeError(tr("seconds from 0.1 to 86400, e.g. 15 or 2.5"))
    return value


class _CellWidthFormatter(argparse.HelpFormatter):
    """argparse's help, with Chinese text wrapped by terminal cells (two a character):
    argparse counts characters, so a Chinese help line came out twice as wide."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if text.isascii():
            return super()._split_lines(text, width)
        from playground.cells import wrap

        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.isascii():
            return super()._fill_text(text, width, indent)
        from playground.cells import wrap

        return "\n".join(indent + line for line in wrap(text, width - len(indent)))


class _Parser(argparse.ArgumentParser):
    """The command line's parser (its subcommands' too: argparse makes them of this class)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _CellWidthFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """Global options are accepted before the subcommand (stored as top_*) and after it;
    `parse_args` merges the two."""
    parser = _Parser(
        prog="redis-playground", parents=[_server_options(_TOP), _library_options(_TOP)],
        description=tr("Two real Redis clients side by side on a private server."))
    parser.add_argument("--version", action="version", version=f"redis-playground {__version__}",
                        help=tr("show program's version number and exit"))
    common, library = _server_options(), _library_options()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    repl = sub.add_parser("repl", parents=[common],
                          help=tr("read 'A> CMD' / 'B> CMD' lines from stdin, print what redis-cli prints"))
    repl.add_argument("-3", dest="resp3", action="store_true",
                      help=tr("start the clients in RESP3 mode (like redis-cli -3)"))
    repl.add_argument("--show-pushes", choices=("yes", "no"), default="no",
                      help=tr("print RESP3 pushes such as invalidations (like redis-cli --show-pushes; "
                              "piped, redis-cli hides them)"))
    _language_option(repl)

    sub.add_parser("list", parents=[library], help=tr("list the scenarios: id, title, tags"))
    run = sub.add_parser("run", parents=[common, library], help=tr("replay one scenario and check it"))
    run.add_argument("scenario", metavar="ID|PATH")
    run.add_argument("--format", type=format_name, choices=FORMATS, default="text")
    opener = sub.add_parser("open", parents=[common, library],
                            help=tr("open the app on a scenario, to step through it (or --challenge)"))
    opener.add_argument("scenario", metavar="ID|PATH")
    opener.add_argument("--challenge", action="store_true",
                        help=tr("you schedule the clients' moves and try to reach the challenge's goal"))
    check = sub.add_parser("check", parents=[common, library],
                           help=tr("replay scenarios (default: all bundled) and report N passed, N failed"))
    check.add_argument("scenarios_to_check", nargs="*", metavar="ID|PATH")
    for sub_parser in (run, check):
        sub_parser.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                                help=tr("a setup or step that has not answered by then stops its scenario "
                                        "(default 15)"))
        sub_parser.add_argument("--pace", type=_seconds, default=0.0, metavar="SECONDS",
                                help=tr("wait that long before each step, as a teacher talking would; "
                                        "the lesson's TTLs do not run meanwhile"))
    add_explore(sub, [common, library])
    add_serve(sub, [_server_options(private_only=True), library])
    add_import(sub, [_private_server_option()])
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse, then merge each global option given before and/or after the subcommand:
    the same either way; --scenarios adds up; two different values are an error."""
    args = build_parser().parse_args(argv)
    for name, default in _GLOBAL.items():
        before, after = getattr(args, _TOP + name), getattr(args, name, None)
        delattr(args, _TOP + name)
        if name == "scenarios":
            value = (before or []) + (after or [])
        elif before is not None and after is not None and before != after:
            option = "--" + name.replace("_", "-")
            print("redis-playground: " + tr("{option} is given before and after {command} "
                  "with different values; give it once", option=option, command=args.command), file=sys.stderr)
            raise SystemExit(2)
        else:
            value = before if before is not None else after
        setattr(args, name, default if value is None else value)
    return args


_exit_now: list[int] = []


def entry() -> None:
    """The command (`redis-playground`, `python -m playground`): `main`, then exit. After
    `repl` without Python's teardown of every module (~25 ms of a short run): nothing is
    left to clean up by then, and stdout and stderr are flushed first."""
    code = main()
    if _exit_now:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # (`| head -1`: the reader is gone)
            code = code or 1
        os._exit(code)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run its command: the app by default, or a headless one.

    Args:
        argv: the arguments (default: sys.argv[1:]).

    Returns:
        The exit status: 0, 1 (a failure the command reports), 2 (bad usage), 130 (Ctrl+C).
    """
    # for --help and the errors of parse_args: --lang if given, else the locale's language
    set_language(_language_in(sys.argv[1:] if argv is None else argv) or default_language())
    with argparse_language(current_language()):
        args = parse_args(argv)
    args.lang = getattr(args, "lang", None) or default_language()
    set_language(args.lang)
    try:  # (serve refuses --url and --url-file itself)
        args.url = _given_url(args) if args.command != "serve" else args.url
    except ValueError as exc:
        print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    refused = _options_refused(args)
    if refused:
        print("redis-playground: " + refused, file=sys.stderr)
        return 2
    try:
        interrupt_unwinds()  # (cli/launch.py: until here a Ctrl+C exits at once, nothing being started)
        args.url = _url_address(args)
        return _COMMANDS.get(args.command, _run_app)(args)
    except (ScenarioError, ServerError, ValueError) as exc:  # (ValueError: a bad --url)
        print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `redis-playground run x | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
        return 1
    except Exception as exc:  # the engine's own one-line errors (cannot connect, refused, ...)
        # (the engine only when a command failed: `list` and --help never import it)
        from playground.engine.playground import Refused
        from playground.engine.session_stream import ConnectionLost

        if isinstance(exc, (Refused, ConnectionLost)):
            print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
            return 1
        raise


def _options_refused(args: argparse.Namespace) -> str | None:
    """Why the server options given cannot go together, or None."""
    if args.url and args.server:
        return tr("--url and --server exclude each other")
    if args.url and args.topology != SINGLE.name:
        return tr("--topology starts private servers; with --url the server is yours "
                  "(a cluster's redirects are followed)")
    if not KINDS[args.topology].takes_replicas and args.replicas is not None:
        return tr("--replicas goes with --topology {names}", names=tr(", ").join(WITH_NODES))
    return None


# -- the dispatch: the one lazy boundary --------------------------------------------
# Each command's own modules are imported here, once it is chosen: `repl` never imports
# the TUI, the explorer or the scenarios, and no headless command imports Textual.

def _run_repl(args: argparse.Namespace) -> int:
    from playground.cli.repl import cmd_repl

    code = cmd_repl(args)
    _exit_now.append(code)  # (everything is closed and the server stopped: see entry)
    return code


def _run_scenarios(args: argparse.Namespace) -> int:
    from playground.cli import scenario_commands

    return getattr(scenario_commands, f"cmd_{args.command}")(args)


def _run_serve(args: argparse.Namespace) -> int:
    from playground.cli.serve_command import cmd_serve

    return cmd_serve(args)


def _run_explore(args: argparse.Namespace) -> int:
    from playground.cli.explore_command import cmd_explore

    return cmd_explore(args)


def _run_import(args: argparse.Namespace) -> int:
    from playground.cli.import_command import cmd_import

    return cmd_import(args)


def _run_app(args: argparse.Namespace) -> int:
    """The app (no command, or `open`): its lesson read first, its private server started
    while Textual imports."""
    from playground.cli.app_start import on_a_terminal, open_lesson, spawn_server

    opened = open_lesson(args)
    if not on_a_terminal():
        print("redis-playground: " + tr("the app needs a terminal: its input (stdin) or its screen (stderr) "
                                        "is not one; for scripts use repl, run or check"), file=sys.stderr)
        return 2
    server = spawn_server(args, opened)
    try:
        from playground.tui.app import run_app  # (after the spawn: Textual imports while the server starts)

        return run_app(args, server)
    finally:
        if server is not None:
            server.stop()


_COMMANDS = {"repl": _run_repl, "list": _run_scenarios, "run": _run_scenarios, "check": _run_scenarios,
             "serve": _run_serve, "explore": _run_explore, "import": _run_import}
"""Each headless command's runner; the app's (`_run_app`) for the others (none, `open`)."""


if __name__ == "__main__":
    sys.exit(main())
