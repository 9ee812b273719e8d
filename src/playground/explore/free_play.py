"""Free play: "could this have gone differently?" for the commands just typed in the panes.

The lines each client typed become its program (in the order typed; a repeat count
`3 INCR x` is three steps), explored from an empty server (or after `setup`). The order
they were typed in is the "own order" the report points at.
"""

from __future__ import annotations

from pathlib import Path

from playground.explore.explorer import ExploreError
from playground.i18n import tr
from playground.resp.cli_lines import RepeatError, SplitError, format_argv, parse_line
from playground.scenario.model import Part, Scenario, Step


def typed_scenario(typed: list[tuple[str, str]], clients: tuple[str, ...] = ("A", "B"),
                   setup: list[str] = (), title: str | None = None) -> Scenario:
    """A one-part scenario whose steps are `typed`: (client, line) in the order typed."""
    steps: list[Step] = []
    for client, line in typed:
        if client not in clients:
            raise ExploreError(tr("{client}> {line}: unknown client {name!r} (clients: {clients})", client=client,
                                  line=line, name=client, clients=", ".join(clients)))
        argv, repeat = _parse(f"{client}> {line}", line)
        if argv is None:
            continue
        for _ in range(repeat):
            steps.append(Step(len(steps) + 1, client, argv, format_argv(list(argv))))
    setup_argv = []
    for line in setup:
        argv, repeat = _parse(f"setup {line}", line)
        if argv is not None:
            setup_argv += [argv] * repeat
    if not steps:
        raise ExploreError(tr("nothing typed to explore: type commands in the panes first"))
    part = Part("", tuple(setup_argv), tuple(format_argv(list(a)) for a in setup_argv), tuple(steps))
    title = title or tr("the commands typed in the panes")
    return Scenario("free-play", Path("free-play"), title, "", (), None, {}, tuple(clients), (part,))


def _parse(where: str, line: str):
    try:
        parsed = parse_line(line)
    except (SplitError, RepeatError):
        raise ExploreError(f"{where}: Invalid argument(s)") from None
    if parsed is None:
        return None, 0
    if parsed.repeat > 100:
        raise ExploreError(tr("{where}: a repeat count of at most 100 here", where=where))
    return tuple(parsed.argv), max(parsed.repeat, 1)


async def explore_typed(typed: list[tuple[str, str]], clients: tuple[str, ...], binary,
                        limit: int = 2000, seed: int = 0):
    """Explore `typed` on a private server of its own (started from `binary` and stopped
    afterwards): the keys of the playground the lines were typed in are left alone."""
    return await explore_apart(typed_scenario(typed, clients), 1, binary, limit=limit, seed=seed)


async def explore_apart(scenario: Scenario, part: int, binary, limit: int = 2000, seed: int = 0):
    """Explore `scenario`'s `part` on servers of its own (its topology, started from
    `binary`, stopped afterwards): the playground it was opened in keeps its keys, its
    clients' state and its settings, so a lesson goes on where it was."""
    from playground.engine.playground import Playground
    from playground.explore.explorer import Explorer
    from playground.server import make_server

    server = make_server(binary, scenario.topology, scenario.replicas)
    async with Playground(server=server, clients=scenario.clients or ("A", "B")) as pg:
        return await Explorer(pg, scenario, part, limit=limit, seed=seed).explore()
