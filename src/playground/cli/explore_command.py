"""`redis-playground explore ID|PATH [--part N] [--limit N] [--format text|markdown|json]`:
every interleaving of a scenario part's client programs, run on the private server,
grouped by outcome (no Textual here)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from playground.cli.command_options import (BY, DEFAULT_LIMIT, FORMATS, MOST_LANES,  # noqa: F401 (re-exported)
                                            PARALLEL_FROM)
from playground.engine.exit_signals import install_exit_signals
from playground.engine.playground import Playground
from playground.explore.explorer import ExploreError, Explorer
from playground.explore.report import RENDERERS
from playground.i18n import tr
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from playground.topology_kinds import SINGLE
from playground.visible import LINES, visible

def cmd_explore(args: argparse.Namespace) -> int:
    """`explore`: run the schedules of a scenario's part and print the report.

    Args:
        args: the parsed command line (cli/main.py).

    Returns:
        0, 1 (the exploration failed) or 2 (it cannot start).
    """
    scenario = load_scenario(resolve(args.scenario, args.scenarios), args.lang)
    if args.url and not args.allow_flush:
        print("redis-playground: " + tr("explore empties the server before every schedule (FLUSHALL); "
              "with --url add --allow-flush, and only for a server whose data may go"), file=sys.stderr)
        return 2
    part = args.part
    if part is None:
        part = scenario.challenge.part + 1 if scenario.challenge else 1
    clients = list(dict.fromkeys([*args.clients, *scenario.clients]))
    topology, replicas = SINGLE.name, None  # the scenario's own topology wins over --topology, as for run and check
    if not args.url and (scenario.topology != SINGLE.name or args.topology != SINGLE.name):
        own = scenario.topology != SINGLE.name
        topology = scenario.topology if own else args.topology
        replicas = scenario.replicas if own else args.replicas
    pg = Playground.create(server_choice=args.server, url=args.url, allow_flush=args.allow_flush,
                           clients=clients, topology=topology, replicas=replicas)
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
