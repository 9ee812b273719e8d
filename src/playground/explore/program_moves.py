"""Exploring a lesson's programs by the commands they actually send (docs/scenarios.md,
"Programs"). A program's commands are known only when it sends them, and how many it
sends may depend on its replies, so its moves are not planned from its steps: a
schedule is a sequence of client letters, each letting that client's next command
through (its step's fields, where the lesson gives one; a bare move past its steps or
in a part with none). A stateless search runs them: every schedule starts the programs
again from the start on a fresh state; a run follows its schedule's prefix, then lets the
first client (in the scenario's order) that can move go, to the end; at each move it
notes who could have moved instead (`Explorer.choices`), and every such other choice
after the prefix becomes the prefix of a schedule still to run. So every order of the
commands the programs send is run once, and only those. A program that holds no
command and does not end (it listens to a channel) is waited for up to its time limit,
then stopped, and the search ends with the line naming it.
"""

from __future__ import annotations

from playground.explore import schedules as sch
from playground.gate.endpoint import Held
from playground.gate.lesson_format import part_programs, shown_program
from playground.gate.lesson_steps import next_move
from playground.i18n import tr
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import redact_line


def step_at(explorer, client: str, index: int):
    """The client's step for its move `index`: the lesson's, else a bare move."""
    return step_of(explorer.programs, client, index)


def step_of(programs: dict, client: str, index: int):
    """Move `index` of `client` among `programs` (explorer.programs_of): its step, else
    (a program's command past its steps) a bare move."""
    steps = programs[client]
    return steps[index] if index < len(steps) else next_move(client, index + 1)


async def movable(explorer, position: dict[str, int], last) -> list[str]:
    """The clients that can make their next move now, in the scenario's order; `last`
    is the move just made ((client, index) or None), for the lesson's bound steps."""
    runner = explorer.runner
    explorer.trees.check()   # a replay ran out of its tree: the schedule runs again (program_tree.py)
    out = []
    for client, steps in explorer.programs.items():
        if client in runner.waiting:   # (a typed client with no step left: its reply is taken at the end)
            ready = (client in explorer.scenario.programs or position[client] < len(steps)) and \
                (explorer.can_move(client) or explorer.may_time_out(client))
        elif client in explorer.scenario.programs:
            ready = client in runner.programs.running and \
                isinstance(await runner.programs.next_command(client), Held)
        else:
            ready = position[client] < len(steps) and explorer.can_move(client)
        if ready:
            out.append(client)
    bound_next = [y for x, y in explorer.bound_pairs if x == last and y[0] in out]
    if bound_next:   # a bound step goes right after the one before it
        return [bound_next[0][0]]
    return [c for c in out if not any(y == (c, position[c]) and x != last for x, y in explorer.bound_pairs)]


async def search(explorer, own: tuple[str, ...], fold, result) -> None:
    """Run every schedule of the part's programs (at most `explorer.limit`), the
    scenario's own order first; `fold(schedule, run)` for each."""
    to_run = [(own, 0)]
    runs = 0
    while to_run:
        if runs >= explorer.limit:
            result.sampled = True   # (not a random sample: the first ones of the search)
            break
        prefix, fixed = to_run.pop()
        explorer.choices, kept = [], []
        run = await explorer.run_checked(prefix, keep=kept)
        choices = explorer.choices
        if not runs:
            await _same_again(explorer, run, kept)
        runs += 1
        fold(run.schedule, run)
        for i in range(fixed, len(choices)):   # (the last one first: runs come in order)
            for client in reversed(choices[i]):
                if client != run.schedule[i]:
                    to_run.append((run.schedule[:i] + (client,), i + 1))
    result.total = runs + len(to_run)
    result.reduced = False


def sent(explorer, kept) -> dict[str, list]:
    """Each program's commands in a run, in order (from its kept steps)."""
    out = {c: [] for c in explorer.scenario.programs}
    for client, _, step_result in kept:
        if client in out and step_result.step.release and step_result.argv:
            out[client].append(tuple(step_result.argv))
    return out


async def _same_again(explorer, run, kept) -> None:
    """Run the first schedule once more: a program that sends other commands in the same
    order (its commands depend on the clock, randomness, a TIME reply ...) has outcomes
    that are not the schedule's, and stops the search with one line."""
    again: list = []
    explorer.choices = []
    await explorer.run_checked(run.schedule, keep=again, live=explorer.scenario.programs)
    before, now = sent(explorer, kept), sent(explorer, again)
    for client, commands in before.items():
        if commands == now[client]:
            continue
        n = next((i for i, (x, y) in enumerate(zip(commands, now[client])) if x != y),
                 min(len(commands), len(now[client])))
        shown = [redact_line(format_argv(list(c[n])), list(c[n])) if n < len(c) else tr("nothing")
                 for c in (commands, now[client])]
        program = f"{client} ({shown_program(part_programs(explorer.scenario, explorer.part)[client])})"
        from playground.errors import ExploreError
        raise ExploreError(f"{explorer.scenario.id}: " + tr(
            "program {program} is not repeatable: run twice in the same order ({schedule}), its command {n} "
            "was {before}, then {now}", program=program, schedule=sch.label(run.schedule), n=n + 1,
            before=shown[0], now=shown[1]))


async def next_client(explorer, remaining: list, position: dict[str, int], last) -> str | None:
    """The client that moves next: the prefix's next, else the first that can move;
    None when nobody can. A move of the prefix its client cannot make (the scenario's own
    order, where a program sends fewer commands than it has steps) is left out."""
    can = await movable(explorer, position, last)
    while remaining and remaining[0] not in can:
        remaining.pop(0)
    if not can:
        return None
    explorer.choices.append(can)
    return remaining.pop(0) if remaining else can[0]


def grouping(explorer, result, clients: list[str]):
    """The runs' grouping, with the serial orders found among the runs (a run whose
    every client's moves come together) and the first run (the scenario's own order)
    as its own."""
    from itertools import permutations

    from playground.explore.grouping import Grouping

    orders = list(permutations(clients)) if len(clients) <= 3 else []
    group = Grouping(explorer, result, dict.fromkeys(orders), None)   # (None: not found yet)

    def fold(schedule: tuple[str, ...], run) -> None:
        if group.own_key is None:
            group.own_key = run.schedule
        for order in orders:
            if group.serial[order] is None and run.schedule == tuple(
                    c for c in order for _ in range(run.schedule.count(c))):
                group.serial[order] = run.schedule
        group.add(run.schedule, run, run.schedule, lambda: 1)
        result.serial_known = bool(orders) and None not in group.serial.values()
    group.fold = fold
    return group
