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
  blocking command's keys: whoever unblocks its client decides when it can move.
"""

from __future__ import annotations

from playground.engine.catalogue import ANYTHING, NOTHING, Effect, may_block
from playground.scenario.model import Step
from playground.scenario.substitution import TEMPLATE

Footprint = Effect
TIME_PASSES = Effect(time=True)


async def footprints(catalogue, programs: dict[str, list[Step]]) -> dict[str, list[Effect]]:
    """Each step's footprint, per client (one round trip for the command names not
    known yet)."""
    await catalogue.learn(s.argv[0] for program in programs.values() for s in program if s.argv)
    return {client: _program_footprints(program, catalogue) for client, program in programs.items()}


def _program_footprints(program: list[Step], catalogue) -> list[Effect]:
    out: list[Effect] = []
    named: set[bytes] | None = set()      # every key this client named so far (None: unknown)
    in_multi = False
    branching = any(s.when is not None for s in program)  # MULTI may be skipped: no queue tracking
    blocker: Effect | None = None         # the previous step may block: its keys, as written
    for step in program:
        cmd = step.argv[0].lower() if step.argv else b""
        if step.server is not None or step.reconnect:   # acts on a node, or a new connection
            fp = ANYTHING
        elif not step.argv:                    # a wait step: the blocked command's reply
            fp = blocker or ANYTHING
        elif cmd == b"exec":
            fp = ANYTHING if named is None else Effect(frozenset(named), frozenset(named))
            in_multi = False
        elif cmd in (b"multi", b"discard"):
            fp = NOTHING
            in_multi = cmd == b"multi"
        else:
            fp = _command_footprint(step, catalogue)
            touched = fp.touched
            named = None if named is None or touched is None else named | touched
            if in_multi and not branching and cmd != b"watch":
                fp = NOTHING                   # queued: it runs at EXEC
        if step.sleep:
            fp = _union(fp, TIME_PASSES)       # even a queued command: a TTL may run out meanwhile
        if blocker is not None and step.argv:
            fp = _union(fp, blocker)
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
                  server_state=a.server_state or b.server_state)
