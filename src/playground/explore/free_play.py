"""Free play: "could this have gone differently?" for the commands just typed in the panes,
and for the programs the learner started by hand against the gate (Ctrl+G).

The lines each client typed become its program (in the order typed; a repeat count
`3 INCR x` is three steps), explored from an empty server (or after `setup`). The order
they were typed in is the "own order" the report points at.

A program started by hand is run again for every schedule, as a lesson's `[programs]`
are (explore/program_moves.py): the same command line in the same directory with the
same environment, REDIS_URL pointing at the exploration's own gate (gate/peer.py read
how it was started when it connected). Programs alone: the order their commands ran in
is the own order. With typed lines too, both are explored together, and no own order is
claimed (the panes' lines and the programs' commands are not numbered in one order here).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from playground.explore.explorer import ExploreError
from playground.explore.schedules import count_schedules
from playground.gate.endpoint import socket_path
from playground.gate.programs import ByHand
from playground.i18n import tr
from playground.resp.cli_lines import RepeatError, SplitError, format_argv, parse_line
from playground.scenario.model import Part, Scenario, Step
from playground.scenario.programs.lesson_steps import next_move

PROGRAM_LETTERS = "CDEFGHIJKLMNOPQRSTUVWXYZ"  # the clients programs started by hand get (A and B type)


@dataclass(frozen=True)
class HandProgram:
    """A program started by hand, as the exploration runs it again."""

    client: str                  # its client in the exploration: the next free letter (C, D ...)
    shown: str                   # its name in the programs panel ("python3#1": its first connection's)
    argv: tuple[str, ...]
    by_hand: ByHand
    held: int = 0                # its commands waiting at the gate (sent, not run yet): in the plan's count too


def hand_programs(gate, url: str, clients: tuple[str, ...] = ("A", "B")) -> tuple[list[HandProgram], tuple[str, ...]]:
    """Every program at the free-play `gate` (listening at `url`), one per process (its
    connections together), and the order their commands ran in (their clients);
    ExploreError naming the ones that cannot be explored, and why: how one was started
    cannot be known, or there are more programs than client names left."""
    groups: dict = {}
    for client in gate.clients:
        key = (client.origin.pid, client.origin.argv) if client.origin is not None else client
        groups.setdefault(key, []).append(client)
    every = list(groups.values())
    unknown = [conns[0].name for conns in every if conns[0].origin is None]
    if unknown:
        raise ExploreError(tr("{programs}: how it was started cannot be known (its process was gone, or is "
                              "not a local one), so it cannot be run again for each order",
                              programs=", ".join(unknown)))
    letters = [c for c in PROGRAM_LETTERS if c not in clients]
    if len(every) > len(letters):
        raise ExploreError(tr("{programs}: at most {count} programs started by hand can be explored together; "
                              "a fresh server (F5) closes the gate, Ctrl+G opens a new one",
                              programs=", ".join(conns[0].name for conns in every[len(letters):]), count=len(letters)))
    owner, programs = {}, []
    for conns, letter in zip(every, letters, strict=False):
        origin = conns[0].origin
        owner.update(dict.fromkeys(conns, letter))
        waiting = sum(1 for c in conns for h in c.queue if not h.unstepped and h.argv)
        programs.append(HandProgram(letter, conns[0].name, origin.argv,
                                    ByHand(origin.cwd, origin.env, socket_path(url)), waiting))
    order = tuple(owner[held.client] for held in gate.log if held.client in owner and held.seq is not None)
    return programs, order


def typed_scenario(typed: list[tuple[str, str]], clients: tuple[str, ...] = ("A", "B"),
                   setup: Sequence[str] = (), title: str | None = None,
                   programs: Sequence[HandProgram] = (), order: tuple[str, ...] = ()) -> Scenario:
    """A one-part scenario whose steps are `typed`: (client, line) in the order typed;
    with `programs` (started by hand), theirs too: with no line typed, one step each of
    their commands in `order` (the order they ran in), else none (they go after the
    lines in the first schedule)."""
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
    if not steps and not programs:
        raise ExploreError(tr("nothing typed to explore: type commands in the panes first"))
    if not steps:
        steps = [next_move(client, n) for n, client in enumerate(order, 1)]
    part = Part("", tuple(setup_argv), tuple(format_argv(list(a)) for a in setup_argv), tuple(steps))
    title = title or (tr("the commands typed in the panes") if typed else tr("your programs"))
    return Scenario("free-play", Path("free-play"), title, "", (), None, {},
                    (*clients, *(p.client for p in programs)), (part,),
                    programs={p.client: p.argv for p in programs}, by_hand={p.client: p.by_hand for p in programs})


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
                        limit: int = 2000, seed: int = 0, programs: Sequence[HandProgram] = (),
                        order: tuple[str, ...] = (), progress=None):
    """Explore `typed` (and `programs`, run again for each schedule) on a private server
    of its own (started from `binary` and stopped afterwards): the keys of the playground
    the lines were typed in are left alone. `progress`: the explorer's (Explorer.progress).
    Cancelled, its programs and its server end before the cancellation goes on."""
    scenario = typed_scenario(typed, clients, programs=programs, order=order)
    if progress is not None and programs:
        progress = _program_progress(progress, scenario, programs, order, limit)
    result = await explore_apart(scenario, 1, binary, limit=limit, seed=seed, progress=progress)
    silent = [p.shown for p in programs if p.client in order and not any(p.client in c.first for c in result.classes)]
    if silent:  # it sent commands at the playground's gate, none at the exploration's: its outcomes would lack it
        raise ExploreError(tr("{programs}: sent no command when run again for the exploration, though it sent some "
                              "when you ran it: a program explored must connect to the server it is given "
                              "(REDIS_URL), not to an address written into it", programs=", ".join(silent)))
    if programs and (typed or result.own_order != order):   # (the first schedule is not what happened: the
        result.own_order = None                              # lines, then the programs; or they sent otherwise)
        for cls in result.classes:
            cls.own = False
    return result


def _program_progress(progress, scenario: Scenario, programs: Sequence[HandProgram], order: tuple[str, ...],
                      limit: int):
    """`progress`, its plan the orders of the typed lines and of the programs' commands as
    they ran, and those they sent that wait at the gate (the explorer knows a program's
    commands only as it sends them), at most `limit` of them: the search stops there."""
    mine = {p.client for p in programs}
    lengths = Counter(step.client for step in scenario.parts[0].steps if step.client not in mine)
    lengths.update(client for client in order if client in mine)
    lengths.update({p.client: p.held for p in programs if p.held})
    total = count_schedules(dict(lengths))
    planned = min(total, limit)

    def told(run: int, known: int, whole: int, exact: bool) -> None:   # (the explorer's: after its first run,
        progress(run, max(planned, known, run), max(total, whole, run), exact)   # what the programs sent there)
    return told


async def explore_apart(scenario: Scenario, part: int, binary, limit: int = 2000, seed: int = 0, progress=None):
    """Explore `scenario`'s `part` on servers of its own (its topology, started from
    `binary`, stopped afterwards): the playground it was opened in keeps its keys, its
    clients' state and its settings, so a lesson goes on where it was. `progress`: the
    explorer's (Explorer.progress)."""
    from playground.engine.playground import Playground
    from playground.explore.explorer import Explorer
    from playground.server import make_server

    server = make_server(binary, scenario.topology, scenario.replicas)
    async with Playground(server=server, clients=scenario.clients or ("A", "B")) as pg:
        explorer = Explorer(pg, scenario, part, limit=limit, seed=seed)
        explorer.progress = progress
        return await explorer.explore()
