"""Exploring a lesson's programs by the commands they actually send (docs/scenarios.md,
"Programs"). A program's commands are known only when it sends them, and how many it
sends may depend on its replies, so its moves are not planned from its steps: a
schedule is a sequence of client letters, each letting that client's next command
through (its step's fields, where the lesson gives one; a bare move past its steps or
in a part with none). A stateless search runs them (`search`): every schedule starts on
a fresh state (the programs replayed from their trees where they can be:
explore/program_tree.py); a run follows its schedule's prefix, then lets the first
client (in the scenario's order, not asleep) that can move go, to the end; at each move
it notes who could have moved instead (`Explorer.choices`). Exhaustive, every such other
choice becomes the prefix of a schedule still to run, so every order of the commands the
programs send is run once, and only those; reduced, only the choices that reverse a race
of the run (dynamic partial-order reduction), so at least one of each class. A program that holds no
command and does not end (it listens to a channel) is waited for up to its time limit,
then stopped, and the search ends with the line naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from playground.engine.playground import Playground
from playground.errors import ExploreError
from playground.explore import schedules as sch
from playground.explore.footprint import Footprint
from playground.explore.grouping import Grouping
from playground.explore.outcomes import Exploration, Run
from playground.explore.program_tree import End, ProgramTrees, Unshared
from playground.explore.repeat_check import RepeatCheck
from playground.gate.endpoint import Held
from playground.gate.program_argv import shown_program
from playground.i18n import tr
from playground.resp.cli_lines import format_argv
from playground.resp.cli_secrets import redact_line
from playground.scenario.model import Part, Scenario, Step
from playground.scenario.programs.lesson import LISTENING, time_limit
from playground.scenario.programs.lesson_format import part_programs
from playground.scenario.programs.lesson_steps import next_move
from playground.scenario.runner import Runner

if TYPE_CHECKING:   # (one_schedule.py imports this module)
    from playground.explore.one_schedule import Kept

Sleep = dict[str, tuple[int, Footprint]]
"""Who sleeps at a point of the search (see Node): client -> (index of the move it made
there, that move's footprint)."""

Fold = Callable[[tuple[str, ...], Run], None]
"""Folds each schedule's run into the exploration (`grouping`'s fold): (its schedule, the run)."""


class MoveHost(Protocol):
    """What a run's moves need of the explorer (`next_client` and `step_at`, asked by
    one_schedule.py's OneSchedule at each move). explore/explorer.py's Explorer sets each
    of these in its constructor, but a run's own (`resting`, `stuck`, `alone_tried`), which
    OneSchedule.run_schedule sets as the run begins."""

    pg: Playground
    scenario: Scenario
    part: Part
    runner: Runner
    programs: dict[str, list[Step]]   # each client's steps (explorer.programs_of); a program's move past them: bare
    trees: ProgramTrees               # the programs' replays (program_tree.py): one out of its tree runs it again
    bound_pairs: list[tuple[sch.Move, sch.Move]]   # (the step before, a bound step): the bound one goes right after
    choices: list[list[str]]          # this run: who could move, at each move so far
    sleeping: tuple[int, Sleep] | None   # this run: who sleeps past its prefix (its length, and who: _next_prefix)
    moved_now: tuple[list[str], list[tuple[bytes, ...] | None]]   # this run: its moves so far, each one's command
    evicting: bool                    # the server may evict keys: every move depends on every other
    footprint_memo: dict[tuple, Any]   # (each client's commands, evicting) -> their footprints; ("prefix",
    # client, its commands, evicting) -> its footprints (`_footprints`)
    resting: dict[str, tuple[int, int]]   # this run: program -> (its pushes, its moves) when it was last at rest
    stuck: dict[str, int]             # this run: program -> its pushes when its own wait did not end
    alone_tried: dict[str, int]       # this run: the same, of a wait given its time limit (nobody else could move)
    listened: set[str]                # programs seen waiting for pushed data (the report names them)
    timed: set[str]                   # of those, the ones seen waiting with a timeout of their own

    def can_move(self, client: str) -> bool: ...        # no blocked command, or its reply is back
    def may_time_out(self, client: str) -> bool: ...    # its next move may be its blocked command's timeout


class SearchHost(MoveHost, Protocol):
    """What the search (`search`, `grouping`) needs of the explorer besides a run's moves:
    explore/explorer.py's Explorer."""

    limit: int                        # schedules run at most (past it, the serial orders and the own order still)
    reduce: bool                      # dynamic partial-order reduction, else every order
    runs: int                         # set at the end: the distinct schedules run
    pending: int                      # set at the end of a sample without `reduce`: prefixes left, not run

    async def run_checked(self, schedule: tuple[str, ...], keep: Kept | None = None,
                          live: Iterable[str] = ()) -> Run: ...
    # one schedule (its prefix, then `next_client`'s), each step kept in `keep`; the programs in `live` not replayed

    def independence(self, run: Run) -> sch.Independent: ...   # which moves of `run` commute (its footprints')


def step_at(explorer: MoveHost, client: str, index: int) -> Step:
    """The client's step for its move `index`: the lesson's, else a bare move."""
    return step_of(explorer.programs, client, index)


def step_of(programs: dict[str, list[Step]], client: str, index: int) -> Step:
    """Move `index` of `client` among `programs` (explorer.programs_of): its step, else
    (a program's command past its steps) a bare move."""
    steps = programs[client]
    return steps[index] if index < len(steps) else next_move(client, index + 1)


async def movable(explorer: MoveHost, position: dict[str, int], last: sch.Move | None) -> list[str]:
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
            ready = client in runner.programs.running and await _program_ready(explorer, client, position[client])
        else:
            ready = position[client] < len(steps) and explorer.can_move(client)
        if ready:
            out.append(client)
    if not out:   # nobody can move: a program whose own wait did not end while others could now waits alone
        out = [c for c in explorer.scenario.programs if _waits_alone(explorer, c)][:1]   # (_waited_alone: up to
        # its time limit; its own timeout may end it, as where it subscribed last: not "nobody was left to send")
    bound_next = [y for x, y in explorer.bound_pairs if x == last and y[0] in out]
    if bound_next:   # a bound step goes right after the one before it
        return [bound_next[0][0]]
    return [c for c in out if not any(y == (c, position[c]) and x != last for x, y in explorer.bound_pairs)]


def _waits_alone(explorer: MoveHost, client: str) -> bool:
    """Program `client` waits for pushed data, and its own wait was let end only while
    others could move (WAIT_ALONE), since it was last sent something: with nobody else
    left to move, it is given its wait alone."""
    programs = explorer.runner.programs
    program, pushes = programs.running.get(client), programs.pushes(client)
    return program is not None and not program.exited and explorer.stuck.get(client) == pushes \
        and explorer.alone_tried.get(client) != pushes and programs.listening(client) \
        and not (programs.gate is not None and programs.gate.held(client))


async def _program_ready(explorer: MoveHost, client: str, moved: int) -> bool:
    """Program `client` holds its next command, or it waits for pushed data (LISTENING):
    a waiting client, whose move is to go on by itself (its own timeout: one_schedule.py's
    `_waited_alone`). Found at rest once per message it was sent and move it made; one
    whose wait did not end by itself is not offered again until it is sent something."""
    programs = explorer.runner.programs
    gate = programs.gate
    if gate is not None and not gate.dropped and gate.held(client):
        return True   # (its next command is at the gate: as rest() would find at once, nothing given up to note)
    pushes = programs.pushes(client)
    if explorer.resting.get(client) == (pushes, moved):   # (quiet since: no QUIET wait again)
        held = programs.gate.held(client) if programs.gate is not None else ()
        if held:
            return True
        got: object = LISTENING if not programs.running[client].exited else None
    else:
        got = await programs.rest(client)
    if got == LISTENING:
        explorer.listened.add(client)
        if programs.own_timeout_seen(client):
            explorer.timed.add(client)
        explorer.resting[client] = (pushes, moved)
        return explorer.stuck.get(client) != pushes
    return isinstance(got, Held)


FOOTPRINT_MEMO = 20_000   # schedules and prefixes whose footprints are kept (then forgotten, all at once)
SERIAL_MARGIN = 100   # moves beyond the longest run so far a serial order's prefix allows each client


class Node:
    """A point of the search's current path: who could move there, who must still be
    tried (`backtrack`), who was (`done`), the move each of those made there (`moves`:
    client -> (index of its move, footprint)), and who sleeps there (`sleep`, the same
    shape: tried at an earlier point, and every move since is independent of it, so
    trying it here again would only run an equivalent schedule)."""

    __slots__ = ("enabled", "backtrack", "done", "moves", "sleep")

    def __init__(self, enabled: list[str], taken: str, every: bool, sleep: Sleep) -> None:
        self.enabled = enabled
        self.done = {taken}
        self.backtrack = set(enabled) if every else {taken}
        self.moves: Sleep = {}
        self.sleep = sleep

    def asleep_after(self, explorer: MoveHost, taken: str) -> Sleep:
        """Who sleeps at the next point, once `taken` made its move here."""
        move = self.moves[taken]
        tried = dict(self.sleep, **{d: self.moves[d] for d in self.done if d != taken and d in self.moves})
        return {d: m for d, m in tried.items() if d != taken and _commute(explorer, d, m, taken, move)}


def _commute(explorer: MoveHost, c1: str, m1: tuple[int, Footprint], c2: str, m2: tuple[int, Footprint]) -> bool:
    if any((c1, m1[0]) in pair or (c2, m2[0]) in pair for pair in explorer.bound_pairs):
        return False
    return not m1[1].conflicts(m2[1])


async def search(explorer: SearchHost, own: tuple[str, ...], fold: Fold, result: Exploration) -> None:
    """`_search`; the programs it runs again at its end (_check_again) end with it, even
    when it stops with an error."""
    checks: dict[str, RepeatCheck] = {}
    try:
        await _search(explorer, own, fold, result, checks)
    finally:
        for check in checks.values():
            await check.cancel()


async def _search(explorer: SearchHost, own: tuple[str, ...], fold: Fold, result: Exploration,
                  checks: dict[str, RepeatCheck]) -> None:
    """Run the part's schedules (at most `explorer.limit`), the scenario's own order
    first; `fold(schedule, run)` for each. With `explorer.reduce`, dynamic partial-order
    reduction (Flanagan and Godefroid 2005, with sleep sets) with the catalogue's
    independence of the commands the run sent: after each run, for each pair of
    dependent moves of two clients that no other move orders (a race), the earlier one's
    point of the path gets the later one's client (or, if it could not move there,
    everyone who could) to try instead; so one run at least of each class of equivalent
    schedules, and a client asleep (tried before, independent of everything since) is
    not tried again. Without it, every client that could move at every point: every
    order. Past the limit the serial orders and the own order still run, and
    `result.total` is what is known: at least."""
    path: list[Node] = []
    prefix: tuple[str, ...] | None = own
    runs, longest = 0, 0
    distinct: set[tuple[str, ...]] = set()   # the schedules the runs ran (a waiting client's own move tried
    # and not made there: a run may run a schedule again)
    explorer.sleeping = None
    first: tuple[Run, Kept, dict[str, RepeatCheck]] | None = None   # the first run, its steps, and its programs
    # run again (_check_again)
    while prefix is not None:
        if runs >= explorer.limit:
            result.sampled = True
            break
        kept: Kept = []
        explorer.choices = []
        run = await explorer.run_checked(prefix, keep=kept)
        explorer.sleeping = None
        if first is None:   # its programs run again while the search goes on (they find the other core free)
            first = (run, kept, checks)
            checks.update(_check_again(explorer))
        runs += 1
        distinct.add(run.schedule)
        longest = max([longest, *(run.schedule.count(c) for c in set(run.schedule))])
        run.footprints = await _footprints(explorer, run)
        fold(run.schedule, run)
        _extend(explorer, path, run)
        if explorer.reduce:
            _races(explorer, run, path)
        prefix = _next_prefix(explorer, path, run.schedule)
    explorer.runs, explorer.pending = len(distinct), 0
    if first is not None:
        await _same_again(explorer, *first)
    if result.sampled:   # the serial orders and the own order label the outcomes: in the sample too
        assert prefix is not None   # (the limit stopped the search: a prefix was left to run)
        pending = [prefix] + [tuple(run.schedule[:k]) + (c,) for k, node in enumerate(path)
                              for c in node.backtrack - node.done]
        ran, explorer.sleeping = [], None
        for order in _serial_prefixes(explorer, longest):
            done = next((d for d in distinct if d == sch.serial(list(dict.fromkeys(order)), d)), None)
            if done is not None:   # (this serial order ran already, the own order maybe: the same again)
                ran.append(done)
                continue
            explorer.choices = []
            run = await explorer.run_checked(order)
            run.footprints = await _footprints(explorer, run)
            fold(run.schedule, run)
            explorer.runs += run.schedule not in distinct
            distinct.add(run.schedule)
            ran.append(run.schedule)
        if not explorer.reduce:   # each prefix still to try: one schedule not run, at least
            explorer.pending = sum(1 for p in pending if not any(r[:len(p)] == p for r in ran))
    result.reduced = explorer.reduce


def _extend(explorer: SearchHost, path: list[Node], run: Run) -> None:
    """The run's points past the path's (the last one of the path: its new move)."""
    choices, word = explorer.choices, sch.moves(run.schedule)
    assert run.footprints is not None   # (_search's, for each run)
    for i in range(max(len(path) - 1, 0), len(word)):
        client, index = word[i]
        if i == len(path):
            sleep = path[i - 1].asleep_after(explorer, word[i - 1][0]) if i and explorer.reduce else {}
            path.append(Node(choices[i], client, not explorer.reduce, sleep))
        path[i].moves[client] = (index, run.footprints[client][index])


def _next_prefix(explorer: SearchHost, path: list[Node], schedule: tuple[str, ...]) -> tuple[str, ...] | None:
    """The deepest point of the path with a client still to try (not asleep there): the
    path up to there and that client (the path is cut there); None when there is none.
    The run then keeps who sleeps after it (`explorer.sleeping`: next_client)."""
    while path:
        k = len(path) - 1
        node = path[k]
        left = sorted(node.backtrack - node.done - set(node.sleep), key=node.enabled.index)
        if left:
            node.done.add(left[0])
            if explorer.reduce:
                tried = dict(node.sleep, **{d: node.moves[d] for d in node.done if d != left[0] and d in node.moves})
                explorer.sleeping = (k, tried)
            return tuple(schedule[:k]) + (left[0],)
        path.pop()
    return None


def _races(explorer: SearchHost, run: Run, path: list[Node]) -> None:
    """Flanagan and Godefroid's backtracking points for the races of `run`."""
    independent = explorer.independence(run)
    word = sch.moves(run.schedule)
    preds = sch.predecessors(word, independent)
    for j, (cj, _) in enumerate(word):
        for i in preds[j]:
            ci = word[i][0]
            if ci == cj or independent(word[i], word[j]) or any(i in preds[k] for k in preds[j] if k > i):
                continue   # its own client's, or ordered through another move
            while cj not in path[i].enabled and i and (word[i - 1], word[i]) in explorer.bound_pairs:
                i -= 1   # a bound step goes with the one before it: the race is that one's too
            node = path[i]
            chosen = {cj} if cj in node.enabled else {
                word[k][0] for k in preds[j] if k > i and word[k][0] in node.enabled}
            if not chosen & node.backtrack:
                node.backtrack |= {min(chosen, key=node.enabled.index)} if chosen else set(node.enabled)


def _serial_prefixes(explorer: MoveHost, longest: int) -> list[tuple[str, ...]]:
    """Each serial order of the clients (at most 3) as a prefix: all of one client's
    moves, then the next's (a client that cannot move gives way), and the own order."""
    from itertools import permutations

    clients = list(explorer.programs)
    if len(clients) > 3:
        return []
    n = longest + SERIAL_MARGIN
    return [tuple(c for c in order for _ in range(n)) for order in permutations(clients)]


async def _footprints(explorer: MoveHost, run: Run | None, schedule: Sequence[str] = (),
                      commands: Sequence[tuple[bytes, ...] | None] = ()) -> dict[str, list[Footprint]]:
    """Each client's moves' footprints in `run` (or so far: `schedule` and `commands`),
    from the commands its programs sent (explore/footprint.py: the catalogue's effects,
    as for typed steps); each asked once (`explorer.footprint_memo`)."""
    if run is not None:
        schedule, commands = run.schedule, run.commands or (None,) * len(run.schedule)
    own: dict[str, list] = {}   # each client's commands in its order: all a client's footprints depend on
    for client, argv in zip(schedule, commands, strict=True):   # (not how the clients interleave)
        own.setdefault(client, []).append(argv)
    memo = explorer.footprint_memo
    key = (tuple(sorted((c, tuple(a)) for c, a in own.items())), explorer.evicting)
    known = memo.get(key) or _of_prefixes(explorer, own)
    if known is None:
        if len(memo) >= FOOTPRINT_MEMO:
            memo.clear()
        known, alone = await _footprints_of(explorer, schedule, commands)
        memo[key] = known
        for client in alone:   # (each prefix of its commands has the prefix of its footprints: a run's
            mine = tuple(own.get(client, ()))   # prefix, asked of at each move, is known from the run)
            for k in range(len(mine) + 1):
                memo[("prefix", client, mine[:k], explorer.evicting)] = known[client][:k]
    return {client: list(moves) for client, moves in known.items()}


def _of_prefixes(explorer: MoveHost, own: dict[str, list]) -> dict[str, list[Footprint]] | None:
    """Each client's footprints as kept for its commands alone (`_footprints`), when every
    client's are."""
    out = {}
    for client in explorer.programs:
        known = explorer.footprint_memo.get(("prefix", client, tuple(own.get(client, ())), explorer.evicting))
        if known is None:
            return None
        out[client] = known
    return out


async def _footprints_of(explorer: MoveHost, schedule: Sequence[str], commands: Sequence[tuple[bytes, ...] | None],
                         ) -> tuple[dict[str, list[Footprint]], list[str]]:
    """The footprints, and the clients whose footprints depend on their own commands alone
    (no line here or in the setup gives a key a time to live, whose running out would
    depend on every step's time; no step of theirs runs only `when` a check holds)."""
    from dataclasses import replace

    from playground.engine.catalogue import SUBSCRIBES
    from playground.explore.footprint import EVERY_STEP, footprints, gives_no_ttl

    steps: dict[str, list] = {c: [] for c in explorer.programs}
    for client, argv in zip(schedule, commands, strict=True):
        step = step_at(explorer, client, len(steps[client]))
        steps[client].append(replace(step, argv=argv, template=False) if argv is not None or step.release
                             else step)
    prints = await footprints(explorer.pg.catalogue, steps, evicting=explorer.evicting, setup=explorer.part.setup)
    for client, moves in steps.items():   # a subscriber's moves from its SUBSCRIBE on: when it moves
        first = next((i for i, s in enumerate(moves) if s.argv and s.argv[0].lower() in SUBSCRIBES), None)
        if first is not None and client in explorer.scenario.programs:   # depends on what was published
            prints[client][first:] = [EVERY_STEP] * (len(moves) - first)   # before (its own timeout)
    alone = [c for c in steps if not any(s.when is not None for s in explorer.programs[c])] \
        if gives_no_ttl(explorer.pg.catalogue, explorer.part.setup, steps) else []
    return prints, alone


def independence(explorer: MoveHost, prints: dict[str, list[Footprint]]) -> sch.Independent:
    """Which moves commute, by `prints` (a run's footprints); a bound step with nothing.
    Each pair is asked once (the reduction asks of the same pairs again and again)."""
    known: dict[tuple[sch.Move, sch.Move], bool] = {}
    bound = explorer.bound_pairs

    def independent(x: sch.Move, y: sch.Move) -> bool:
        answer = known.get((x, y))
        if answer is None:
            answer = known[(x, y)] = known[(y, x)] = not any(x in pair or y in pair for pair in bound) \
                and not prints[x[0]][x[1]].conflicts(prints[y[0]][y[1]])
        return answer
    return independent


def sent(explorer: MoveHost, kept: Kept) -> dict[str, list[tuple[bytes, ...]]]:
    """Each program's commands in a run, in order (from its kept steps)."""
    out: dict[str, list[tuple[bytes, ...]]] = {c: [] for c in explorer.scenario.programs}
    for client, _, step_result in kept:
        if client in out and step_result.step.release and step_result.argv:
            out[client].append(tuple(step_result.argv))
    return out


def _check_again(explorer: MoveHost) -> dict[str, RepeatCheck]:
    """Each program of the first run started once more, answered what it was answered
    then, without the server (explore/repeat_check.py), all at once; but a
    program that saw what cannot be answered again so (pushes, a command given up, a
    reply the server gives differently each time: TIME, SPOP ...), which runs again live
    (_same_again). Programs that share a tree (explore/program_tree.py) are run each
    against what the next one sent and was answered, and how it ended (they do what it
    did, after the same replies), but the last: the one before it covers it."""
    trees, checks = explorer.trees, {}
    server = explorer.pg.server   # (the programs ran: through the gate, in the private server's directory)
    assert server is not None and server.dir is not None
    directory = server.dir

    def checkable(name: str) -> bool:
        exchanges, tree = trees.first.get(name), trees.trees.get(trees.alias.get(name, name))
        return exchanges is not None and name in trees.reals and tree is not None and tree.replayed \
            and not any(explorer.pg.catalogue.nondeterministic(e.argv) for e in exchanges if e.argv)
    for name in explorer.scenario.programs:
        if name in checks or not checkable(name):
            continue
        tree = trees.tree(name)
        group = [(n, end) for n in trees.sharing(name) if n not in checks and checkable(n)
                 and (end := _end_of(tree, trees.first[n])) is not None]
        if group:
            against, end = group[0]
            checks[name] = RepeatCheck(name, trees.reals[name], trees.first[against] or [], directory,
                                       against=against, end=end)
            if len(group) == 1:
                checks[against] = checks[name]
        else:
            checks[name] = RepeatCheck(name, trees.reals[name], trees.first[name] or [], directory)
        checks[name].start()
        trees.starts += 1
    return checks


def _end_of(tree, exchanges) -> tuple[int, str | None] | None:
    """How the run whose requests and replies are `exchanges` ended (exit status, return
    value), as its tree holds it; None if it does not."""
    node = tree.nodes.get(tuple((e.argv, e.reply) for e in exchanges if e.stepped))
    return (node.returncode, node.returned) if isinstance(node, End) else None


async def _same_again(explorer: SearchHost, run: Run, kept: Kept, checks: dict[str, RepeatCheck]) -> None:
    """Each program of the first run sent what it sent then, when run again: as checked
    by `checks` (_check_again), and for the others, with the first schedule run once more,
    live. A program that sends other commands (its commands depend on the clock,
    randomness, a TIME reply ...) has outcomes that are not the schedule's, and stops the
    search with one line. One run against another's run (they share a tree) that did
    otherwise ends the sharing: Unshared, the search starts again."""
    for name, check in checks.items():
        left = await check.differs()
        if left is not None and check.against != check.name:
            raise Unshared(f"{check.against} {name}")
        if left is not None:
            name = check.name
            shown = [redact_line(format_argv(list(c)), list(c)) if c is not None else tr("nothing")
                     for c in (left.now, left.before)]
            program = f"{name} ({shown_program(part_programs(explorer.scenario, explorer.part)[name])})"
            raise ExploreError(f"{explorer.scenario.id}: " + tr(
                "program {program} is not repeatable at command {n}: after the same replies it sent {now}, "
                "where it sent {before} before", program=program, n=left.n, now=shown[0], before=shown[1]))
    live = [name for name in explorer.scenario.programs if name not in checks]
    if not live:
        return
    again: list = []
    explorer.choices = []
    second = await explorer.run_checked(run.schedule, keep=again, live=live)
    before, now = sent(explorer, kept), sent(explorer, again)
    stopped = [{c for c, status, *_ in r.ended if status is None} for r in (run, second)]
    for client, commands in before.items():
        if commands == now[client]:
            continue
        n = next((i for i, (x, y) in enumerate(zip(commands, now[client], strict=False)) if x != y),  # (the shorter's)
                 min(len(commands), len(now[client])))
        shown = [redact_line(format_argv(list(c[n])), list(c[n])) if n < len(c) else tr("nothing")
                 for c in (commands, now[client])]
        program = f"{client} ({shown_program(part_programs(explorer.scenario, explorer.part)[client])})"
        shorter = 0 if len(commands) < len(now[client]) else 1
        if n == min(len(commands), len(now[client])) and client in stopped[shorter]:   # (cut short, not other
            raise ExploreError(f"{explorer.scenario.id}: " + tr(   # commands: timing)
                "program {program} ran differently in two runs of the same order ({schedule}): in one it was "
                "stopped after {n} of its commands (at its time limit, {seconds} s, or waiting for what nobody "
                "sent), in the other it went on. What it waited for came in time in one run only (a busy "
                "machine?), or it depends on more than its replies; a longer program_time_limit may help",
                program=program, schedule=sch.label(run.schedule), n=n,
                seconds=f"{time_limit(explorer.scenario):g}"))
        raise ExploreError(f"{explorer.scenario.id}: " + tr(
            "program {program} is not repeatable: run twice in the same order ({schedule}), its command {n} "
            "was {before}, then {now}", program=program, schedule=sch.label(run.schedule), n=n + 1,
            before=shown[0], now=shown[1]))


async def next_client(explorer: MoveHost, remaining: list[str], position: dict[str, int],
                      last: sch.Move | None) -> str | None:
    """The client that moves next: the prefix's next, else the first that can move;
    None when nobody can. A move of the prefix its client cannot make (the scenario's own
    order, where a program sends fewer commands than it has steps) is left out."""
    can = await movable(explorer, position, last)
    while remaining and remaining[0] not in can:
        remaining.pop(0)
    if not can:
        return None
    explorer.choices.append(can)
    if remaining:
        return remaining.pop(0)
    if len(can) == 1:   # (who sleeps does not matter: it moves anyway)
        return can[0]
    asleep = await _asleep(explorer)
    return next((c for c in can if c not in asleep), can[0])


async def _asleep(explorer: MoveHost) -> Sleep:
    """Who sleeps now (see Node): the sleep set the run began past its prefix with,
    less each client a move since was dependent with."""
    if explorer.sleeping is None:
        return {}
    at, asleep = explorer.sleeping
    executed, commands = explorer.moved_now
    if not asleep or len(executed) <= at:
        return asleep
    prints = await _footprints(explorer, None, executed, commands)
    word = sch.moves(executed)
    for client, index in word[at:]:
        move = (index, prints[client][index])
        asleep = {d: m for d, m in asleep.items() if d != client and _commute(explorer, d, m, client, move)}
    return asleep


def grouping(explorer: SearchHost, result: Exploration, clients: list[str]) -> tuple[Grouping, Fold]:
    """The runs' grouping, with the serial orders found among the runs (a run whose
    every client's moves come together) and the first run (the scenario's own order)
    as its own; and its fold, for each run.

    Args:
        explorer: the Explorer of a lesson with programs.
        result: the exploration its runs are folded into.
        clients: the clients, in the scenario's order.

    Returns:
        The grouping, and the function that folds each run into it.
    """
    from itertools import permutations

    orders = list(permutations(clients)) if len(clients) <= 3 else []
    group = Grouping(explorer, result, dict.fromkeys(orders), None)   # (None: not found yet)

    def fold(schedule: tuple[str, ...], run: Run) -> None:
        independent = explorer.independence(run)
        key = sch.canonical_form(run.schedule, independent, clients) if explorer.reduce else run.schedule
        if group.own_key is None:
            group.own_key = run.schedule
        for order in orders:
            serial = sch.serial(order, run.schedule)
            if group.serial[order] is None and (serial == run.schedule or explorer.reduce and sch.canonical_form(
                    serial, independent, clients) == key):
                group.serial[order] = run.schedule
        group.add(run.schedule, run, key, lambda: sch.class_size(run.schedule, independent) if explorer.reduce
                  else 1)
        result.serial_known = bool(orders) and None not in group.serial.values()
    return group, fold
