"""`redis-playground explore ID|PATH [--part N] [--limit N] [--format text|markdown|json]`:
every interleaving of a scenario part's client programs, run on the private server,
grouped by outcome (no Textual here)."""

from __future__ import annotations

import asyncio
import sys

from playground.i18n import tr
from playground.topology_kinds import SINGLE
from playground.visible import LINES, visible

# The parser is built for every command (`repl` too): what only `explore` needs is
# imported when it runs (the explorer costs ~50 ms of start-up).
DEFAULT_LIMIT = 10_000  # the explorer's own default (explore/explorer.py), checked by a test
FORMATS = ("text", "markdown", "json")
BY = ("state", "replies", "both")  # the explorer's own (explore/explorer.py), checked by a test
PARALLEL_FROM, MOST_LANES = 500, 8  # explore/lanes.py's own, checked by a test


def format_name(value: str) -> str:
    """`--format md` is markdown (run's and explore's)."""
    return "markdown" if value == "md" else value


def add_parser(sub, parents) -> None:
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
                                 "(default: one lane per core, at most {most}, when {n} schedules or more are run, else 1; "
                                 "always 1 with --url, a replica set, a cluster or a lesson's programs)",
                                 n=PARALLEL_FROM, most=MOST_LANES))
    explore.add_argument("--format", type=format_name, choices=FORMATS, default="text")


def cmd_explore(args) -> int:
    from playground.engine.exit_signals import install_exit_signals
    from playground.engine.playground import Playground
    from playground.explore.explorer import ExploreError, Explorer
    from playground.explore.report import RENDERERS
    from playground.scenario.library import resolve
    from playground.scenario.loader import load_scenario

    scenario = load_scenario(resolve(args.scenario, args.scenarios), args.lang)
    if args.url and not args.allow_flush:
        print("redis-playground: " + tr("explore empties the server before every schedule (FLUSHALL); "
              "with --url add --allow-flush, and only for a server whose data may go"), file=sys.stderr)
        return 2
    part = args.part
    if part is None:
        part = scenario.challenge.part + 1 if scenario.challenge else 1
    clients = list(dict.fromkeys([*args.clients, *scenario.clients]))
    shape = {}   # the scenario's own topology wins over --topology, as for run and check
    if not args.url and (scenario.topology != SINGLE.name or args.topology != SINGLE.name):
        own = scenario.topology != SINGLE.name
        shape = {"topology": scenario.topology if own else args.topology,
                 "replicas": scenario.replicas if own else args.replicas}
    pg = Playground.create(server_choice=args.server, url=args.url, allow_flush=args.allow_flush,
                           clients=clients, **shape)
    try:
        explorer = Explorer(pg, scenario, part, limit=args.limit, seed=args.seed,
                            reduce=not args.exhaustive, by=args.by, jobs=args.jobs)
    except ExploreError as exc:
        print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
        return 2
    install_exit_signals()
    try:
        result = asyncio.run(_explore(pg, explorer))
    except ExploreError as exc:
        print(f"redis-playground: {visible(str(exc))}", file=sys.stderr)
        return 1
    sys.stdout.write(visible(RENDERERS[args.format](result), LINES))  # (no control character drives the terminal)
    sys.stdout.flush()
    return 0


async def _explore(pg, explorer):
    async with pg:
        return await explorer.explore()
