"""The options of the commands whose own modules are imported only once chosen
(explore_command, serve_command, import_command: cli/main.py's dispatch, the one lazy
boundary): the command line is parsed with every command's options, so these are apart,
importing nothing but argparse's texts."""

from __future__ import annotations

import argparse

from playground.i18n import tr

# -- explore (the explorer's imports cost ~50 ms of start-up) --------------------------

DEFAULT_LIMIT = 10_000  # the explorer's own default (explore/explorer.py), checked by a test
FORMATS = ("text", "markdown", "json")
BY = ("state", "replies", "both")  # the explorer's own (explore/explorer.py), checked by a test
PARALLEL_FROM, MOST_LANES = 500, 8  # explore/lanes.py's own, checked by a test


def format_name(value: str) -> str:
    """`--format md` is markdown (run's and explore's)."""
    return "markdown" if value == "md" else value


def add_explore(sub, parents: list[argparse.ArgumentParser]) -> None:
    """`explore`'s options.

    Args:
        sub: the command line's subparsers.
        parents: the parsers whose options `explore` takes too (the server's, the library's).
    """
    explore = sub.add_parser("explore", parents=parents,
                             help=tr("run every interleaving of a scenario's client programs and group "
                                     "the schedules by outcome"))
    explore.add_argument("scenario", metavar="ID|PATH")
    explore.add_argument("--part", type=int, default=None,
                         help=tr("which part (default: the challenge's part, else 1)"))
    explore.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                         help=tr("run at most this many schedules; past it, a reproducible sample "
                                 "(default {limit:,})", limit=DEFAULT_LIMIT))
    explore.add_argument("--seed", type=int, default=0, help=tr("the sample's seed (default 0)"))
    explore.add_argument("--exhaustive", action="store_true",
                         help=tr("run every schedule, not one per class of equivalent schedules"))
    explore.add_argument("--by", choices=BY, default=None,
                         help=tr("what makes two outcomes the same: the final state (default: the scenario's "
                                 "explore_by, else state), the replies each client saw (an aborted EXEC, an "
                                 "error), which tells a lost update from an aborted transaction, or both"))
    explore.add_argument("--jobs", type=int, default=None, metavar="N",
                         help=tr("run N schedules at a time, each lane on a private server of its own "
                                 "(default: one lane per core, at most {most}, when {n} schedules or more are run, "
                                 "else 1; always 1 with --url, a replica set, a cluster or a lesson's programs)",
                                 n=PARALLEL_FROM, most=MOST_LANES))
    explore.add_argument("--format", type=format_name, choices=FORMATS, default="text")


# -- serve --------------------------------------------------------------------------

SESSION_GRACE_MINUTES = 10.0  # a session outlives its tab's connection this long (reload, Wi-Fi, sleep)
READY = 2  # apps kept started for the next tabs (cli/ready_pool.py)
APP_MEMORY_MB = 1024  # an app past this much memory (resident) is ended, its tab told why
SESSION_MB = 90  # MB a session takes, with room: its app (~60 MB resident) and its private server
TABS_PER_CORE = 30  # sessions a core keeps answering within a second (a class's step: BENCHMARKS.md)


def add_serve(sub, parents: list[argparse.ArgumentParser]) -> None:
    """`serve`'s options.

    Args:
        sub: the command line's subparsers.
        parents: the parsers whose options `serve` takes too (--server alone shown, the library's).
    """
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


def add_import(sub, parents: list[argparse.ArgumentParser]) -> None:
    """`import` and its one kind, `monitor`.

    Args:
        sub: the command line's subparsers.
        parents: the parsers whose options `import monitor` takes too (--server, --lang).
    """
    importer = sub.add_parser("import",
                              help=tr("make a lesson of what happened on a real server (import monitor FILE)"))
    kinds = importer.add_subparsers(dest="import_kind", metavar="KIND", required=True)
    monitor = kinds.add_parser(
        "monitor", parents=parents,
        help=tr("a MONITOR capture (redis-cli monitor > FILE, Redis 6/7 or Valkey) as a lesson to step, check "
                "and explore"),
        description=tr("Replays a MONITOR capture on a private server and writes it as a lesson: one client a "
                       "connection, handshakes left out, each reply as its step's check, values a client wrote "
                       "from what it read as saved replies. How to capture safely: docs/import.md."))
    monitor.add_argument("capture", metavar="FILE", help=tr("the capture: what redis-cli monitor printed"))
    monitor.add_argument("--setup", action="append", default=[], metavar="CMD",
                         help=tr("a command that puts a key as it was before the capture (e.g. \"SET counter "
                                 "10\"); repeat for each"))
    monitor.add_argument("-o", "--output", metavar="LESSON",
                         help=tr("write the lesson to this file (replaced at once, or not at all); default: "
                                 "print it"))
    monitor.add_argument("--clients-from", metavar="FILE",
                         help=tr("CLIENT LIST output taken during the capture: the clients' names, and the one "
                                 "client of a unix socket"))
