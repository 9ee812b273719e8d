"""What each step of a program may touch, to decide which steps commute.

Asked of the server once per exploration (COMMAND GETKEYS for the keys, COMMAND INFO
for the read-only flag), and conservative wherever it cannot be sure: a step whose
footprint is unknown (`keys is None`) depends on every other step.

- a command: its keys, and whether it only reads;
- a command queued inside MULTI does nothing until EXEC; EXEC then carries every key its
  client named up to it (the queued commands and the WATCHed keys);
- a script (EVAL, FCALL, SCRIPT ...), a key-less command other than a few that only
  change the client's own state (MULTI, DISCARD, UNWATCH, PING, ECHO), or a command
  whose key is filled in from a saved reply: unknown;
- a step after one that may block (BLPOP ..., XREAD BLOCK, WAIT) also carries the
  blocking command's keys: whoever unblocks its client decides when it can move.
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.engine.units import SCRIPT_COMMANDS
from playground.resp.replies import Array
from playground.scenario.model import TEMPLATE, Step

_OWN_STATE_ONLY = {b"multi", b"discard", b"unwatch", b"ping", b"echo"}
_ALWAYS_UNKNOWN = {b"script", b"function", b"select", b"swapdb", b"flushall", b"flushdb", b"reset",
                   b"client", b"debug", b"config", b"shutdown", b"move", b"copy", b"object"}
_BLOCKING = {b"blpop", b"brpop", b"blmove", b"brpoplpush", b"blmpop", b"bzpopmin", b"bzpopmax",
             b"bzmpop", b"wait", b"waitaof"}


@dataclass(frozen=True)
class Footprint:
    keys: frozenset[bytes] | None     # None: could touch anything
    writes: bool = True

    def conflicts(self, other: "Footprint") -> bool:
        if self.keys is None or other.keys is None:
            return True
        return bool(self.keys & other.keys) and (self.writes or other.writes)


NOTHING = Footprint(frozenset(), writes=False)
ANYTHING = Footprint(None)


def may_block(argv) -> bool:
    if not argv:
        return False
    cmd = argv[0].lower()
    if cmd in _BLOCKING:
        return True
    return cmd in (b"xread", b"xreadgroup") and any(a.lower() == b"block" for a in argv[1:])


def block_timeout(argv) -> float | None:
    """Seconds a blocking command waits at most; None: for ever (0) or not known."""
    cmd = argv[0].lower()
    try:
        if cmd in (b"blpop", b"brpop", b"brpoplpush", b"blmove", b"bzpopmin", b"bzpopmax"):
            value = float(argv[-1])
        elif cmd in (b"blmpop", b"bzmpop"):
            value = float(argv[1])
        elif cmd in (b"xread", b"xreadgroup"):
            words = [a.lower() for a in argv]
            value = float(argv[words.index(b"block") + 1]) / 1000
        elif cmd == b"wait":
            value = float(argv[2]) / 1000
        elif cmd == b"waitaof":
            value = float(argv[3]) / 1000
        else:
            return None
    except (ValueError, IndexError):
        return None
    return value if value > 0 else None


async def footprints(reader, programs: dict[str, list[Step]]) -> dict[str, list[Footprint]]:
    """Each step's footprint, per client. One pipelined round trip for the keys and one
    for the command flags."""
    steps = [s for program in programs.values() for s in program if s.argv]
    names = sorted({s.argv[0].lower() for s in steps})
    replies = await reader.run([[b"COMMAND", b"GETKEYS", *s.argv] for s in steps]) if steps else []
    keys_of = {id(s): (frozenset(bytes(k) for k in r) if isinstance(r, Array) else None)
               for s, r in zip(steps, replies)}
    infos = await reader.run([[b"COMMAND", b"INFO", *names]]) if names else [None]
    readonly = set()
    if isinstance(infos[0], Array):
        for name, info in zip(names, infos[0]):
            if isinstance(info, Array) and len(info) > 2 and b"readonly" in {bytes(f) for f in info[2]}:
                readonly.add(name)
    readonly.add(b"watch")
    return {client: _program_footprints(program, keys_of, readonly) for client, program in programs.items()}


def _program_footprints(program: list[Step], keys_of: dict, readonly: set) -> list[Footprint]:
    out: list[Footprint] = []
    named: set[bytes] | None = set()      # every key this client named so far (None: unknown)
    in_multi = False
    branching = any(s.when is not None for s in program)  # MULTI may be skipped: no queue tracking
    blocker: Footprint | None = None      # the previous step may block: its keys
    for step in program:
        cmd = step.argv[0].lower() if step.argv else b""
        if not step.argv:                      # a wait step: the blocked command's reply
            fp = blocker or ANYTHING
        elif cmd == b"exec":
            fp = ANYTHING if named is None else Footprint(frozenset(named))
            in_multi = False
        elif cmd in (b"multi", b"discard"):
            fp = NOTHING
            in_multi = cmd == b"multi"
        else:
            fp = _command_footprint(step, keys_of, readonly)
            named = None if named is None or fp.keys is None else named | fp.keys
            if in_multi and not branching and cmd != b"watch":
                fp = NOTHING                   # queued: it runs at EXEC
        if blocker is not None and step.argv:
            fp = _union(fp, blocker)
        out.append(fp)
        if step.argv and (branching or not in_multi) and may_block(step.argv):
            blocker = Footprint(fp.keys)
        else:
            blocker = None
    return out


def _command_footprint(step: Step, keys_of: dict, readonly: set) -> Footprint:
    cmd = step.argv[0].lower()
    if cmd in _OWN_STATE_ONLY:
        return NOTHING
    if cmd in SCRIPT_COMMANDS or cmd in _ALWAYS_UNKNOWN:
        return ANYTHING
    keys = keys_of.get(id(step))
    if not keys:
        return ANYTHING
    if step.template and any(TEMPLATE.search(k.decode("utf-8", "replace")) for k in keys):
        return ANYTHING
    return Footprint(keys, writes=cmd not in readonly)


def _union(a: Footprint, b: Footprint) -> Footprint:
    if a.keys is None or b.keys is None:
        return ANYTHING
    return Footprint(a.keys | b.keys, writes=a.writes or b.writes)
