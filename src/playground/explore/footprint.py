"""What each step of a program may touch, to decide which steps commute.

Each command's effect is the command catalogue's (engine/catalogue.py: keys read and
written, asked of the server once per command name), and conservative wherever it
cannot be sure: a step that may touch any key, depends on time (a TTL, a `sleep`, a
blocking timeout) or changes the server's state conflicts with every step that
touches a key.

- a command queued inside MULTI does nothing until EXEC; EXEC then carries every key its
  client named up to it (the queued commands and the WATCHed keys), all as written;
- a command whose key is filled in from a saved reply: anything;
- a step after one that may block (BLPOP ..., XREAD BLOCK, WAIT) also carries the
  blocking command's keys: whoever unblocks its client decides when it can move;
- on a server that may evict (a `maxmemory`, explore/fresh_state.py): every step, as
  a write may evict any key (or be refused for memory) depending on every write before
  it, and a read may be the command before which the server evicts;
- a step on a key whose time to live may run out while a schedule runs (`expiring`:
  one the setup or a step gives a TTL shorter than the steps' sleeps and blocking
  timeouts plus a minute, or a TTL of unknown length; and the keys written from one):
  every step of another client, since what it finds depends on when it runs, and so on
  how many steps ran before it. A setup TTL of a few milliseconds then gives the same
  outcomes reduced as with every order.
"""

from __future__ import annotations

from playground.engine.catalogue import ANYTHING, NOTHING, Effect, block_timeout, may_block
from playground.engine.units import transaction_roles
from playground.scenario.model import Step
from playground.scenario.substitution import TEMPLATE

Footprint = Effect
TIME_PASSES = Effect(time=True)


EVERY_STEP = Effect(reads=None, writes=None, everyone=True)


RUN_OUT_MARGIN = 60.0
"""Seconds a schedule's steps may take, beyond their sleeps and blocking timeouts, on a
slow machine: a TTL longer than that cannot run out while a schedule runs."""


async def footprints(catalogue, programs: dict[str, list[Step]], evicting: bool = False,
                     setup=()) -> dict[str, list[Effect]]:
    """Each step's footprint, per client (one round trip for the command names not
    known yet); `evicting`: every step depends on every other. `setup`: the part's
    setup commands (the TTLs they give)."""
    await catalogue.learn([*(s.argv[0] for program in programs.values() for s in program if s.argv),
                           *(argv[0] for argv in setup if argv)])
    if evicting:
        return {client: [EVERY_STEP] * len(program) for client, program in programs.items()}
    short = expiring(catalogue, setup, programs)
    return {client: _program_footprints(program, catalogue, short) for client, program in programs.items()}


def expiring(catalogue, setup, programs: dict[str, list[Step]]) -> frozenset[bytes]:
    """The keys whose time to live may run out while a schedule runs: given a TTL by a
    setup command or a step (the catalogue's `ttl_keys`) that is shorter than the
    steps' sleeps and blocking timeouts plus RUN_OUT_MARGIN, or of a length the line
    does not say; and, step by step until nothing is added, the keys a line writes
    while reading one of them (COPY, RENAME ... carry the TTL over). After `learn`."""
    steps = [s for program in programs.values() for s in program]
    horizon = RUN_OUT_MARGIN + sum(s.sleep or 0 for s in steps) + \
        sum(block_timeout(s.argv) or 0 for s in steps if s.argv)
    lines = [tuple(argv) for argv in setup if argv] + [s.argv for s in steps if s.argv]
    keys: set[bytes] = set()
    for argv in lines:
        given, seconds = catalogue.ttl_keys(argv)
        if given and (seconds is None or seconds <= horizon):
            keys |= given
    grew = bool(keys)
    while grew:
        grew = False
        for argv in lines:
            effect = catalogue.effect(argv)
            if effect.reads and effect.writes and effect.reads & keys and not effect.writes <= keys:
                keys |= effect.writes
                grew = True
    return frozenset(keys)


def gives_no_ttl(catalogue, setup, programs: dict[str, list[Step]]) -> bool:
    """No setup line and no step gives a key a time to live (then `expiring` is empty for
    these lines and any of them together, whatever their sleeps and timeouts). After `learn`."""
    return not any(catalogue.ttl_keys(tuple(argv))[0] for argv in setup if argv) and \
        not any(catalogue.ttl_keys(s.argv)[0] for program in programs.values() for s in program if s.argv)


def _program_footprints(program: list[Step], catalogue, short: frozenset[bytes] = frozenset()) -> list[Effect]:
    out: list[Effect] = []
    named: set[bytes] | None = set()      # every key this client named so far (None: unknown)
    everyone = False                      # it named a command on connections (CLIENT ...) so far
    branching = any(s.when is not None for s in program)  # MULTI may be skipped: no queue tracking
    blocker: Effect | None = None         # the previous step may block: its keys, as written
    # (a step on a node, or on a new connection, is no line of this client's transaction)
    roles = transaction_roles([s.argv if s.server is None and not s.reconnect else None for s in program])
    for step, (role, in_multi) in zip(program, roles, strict=True):
        if step.server is not None or step.reconnect:   # acts on a node, or a new connection
            fp = ANYTHING
        elif not step.argv:                    # a wait step: the blocked command's reply (a script's: its end)
            fp = blocker or (EVERY_STEP if out and out[-1].everyone else ANYTHING)
        elif role in ("exec", "no-multi"):     # (a refused one too: where a branch is skipped, it may run)
            fp = ANYTHING if named is None else Effect(frozenset(named), frozenset(named))
            fp = Effect(fp.reads, fp.writes, everyone=True) if everyone else fp
        elif role in ("multi", "nested", "discard"):
            fp = NOTHING
        else:
            fp = _command_footprint(step, catalogue)
            touched = fp.touched
            named = None if named is None or touched is None else named | touched
            everyone = everyone or fp.everyone
            if role == "queued" and not branching:
                fp = NOTHING                   # queued: it runs at EXEC
        if step.sleep:
            fp = _union(fp, TIME_PASSES)       # even a queued command: a TTL may run out meanwhile
        if blocker is not None and step.argv:
            fp = _union(fp, blocker)
        if short and fp.touched and fp.touched & short:   # what it finds depends on when it runs
            fp = Effect(fp.reads, fp.writes, time=True, server_state=fp.server_state, everyone=True)
        out.append(fp)
        if step.argv and (branching or not in_multi) and may_block(step.argv):
            blocker = ANYTHING if fp.touched is None else Effect(fp.touched, fp.touched)
        else:
            blocker = None
    return out


def _command_footprint(step: Step, catalogue) -> Effect:
    effect = catalogue.effect(step.argv, sleep=step.sleep)
    if step.template and effect.touched and any(TEMPLATE.search(k.decode("utf-8", "replace"))
                                                for k in effect.touched):
        return ANYTHING                        # its key comes from a saved reply
    return effect


def _union(a: Effect, b: Effect) -> Effect:
    def both(x, y):
        return None if x is None or y is None else x | y
    return Effect(both(a.reads, b.reads), both(a.writes, b.writes), time=a.time or b.time,
                  server_state=a.server_state or b.server_state, everyone=a.everyone or b.everyone)
