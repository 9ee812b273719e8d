"""Which command lines of different clients may run in either order.

Lines of one client keep their order on its connection; lines of different clients are
in input order only if each waits for the replies of the lines before it (engine/pipeline.py).
That wait is a round trip at every switch between clients, and most of them protect
nothing: `INCR n` by A and `GET k` by B give the same replies whichever runs first.
Two commands commute when each touches only its own keys (COMMAND INFO's key
positions, asked once per command name) and they share no key that either writes.

Conservative everywhere else: a command is `UNKNOWN` (it may touch anything, so it
commutes with nothing) when it names no key (DBSIZE, KEYS, FLUSHALL, MULTI, EXEC,
SELECT, ...; only PING and ECHO touch nothing), runs a script (a script may use keys it
does not declare), has keys COMMAND INFO cannot place (`movablekeys`), reaches beyond
its keys (SORT's BY and GET patterns, MOVE and COPY to another database, MIGRATE,
OBJECT), or when the server does not answer COMMAND INFO. Keys are compared by name
only, whatever database each client has selected: two clients in different databases
are treated as sharing a key they may not share, never the other way round.

Not covered: a server with `maxmemory` evicting keys, where which key goes may depend on
the order of writes to other keys (it depends on timing in redis-cli too).
"""

from __future__ import annotations

from playground.engine.units import SCRIPT_COMMANDS
from playground.resp.replies import Array, Int

_NOTHING_WORDS = frozenset((b"ping", b"echo"))
_BEYOND_KEYS = frozenset((b"sort", b"sort_ro", b"move", b"copy", b"migrate", b"object", b"debug",
                          b"memory", b"restore-asking", b"watch"))


class KeySpec:
    """A command's key positions (COMMAND INFO's first, last, step) and whether it writes."""

    __slots__ = ("first", "last", "step", "writes")

    def __init__(self, first: int, last: int, step: int, writes: bool) -> None:
        self.first, self.last, self.step, self.writes = first, last, step, writes

    def __repr__(self) -> str:
        return f"KeySpec({self.first}, {self.last}, {self.step}, writes={self.writes})"

    def keys(self, argv) -> tuple[bytes, ...] | None:
        if self.first == 1 and self.last == 1:  # one key, the first argument: most commands
            return argv[1:2] if len(argv) > 1 else None
        if not self.first:
            return ()
        last = self.last if self.last >= 0 else len(argv) + self.last
        if self.first >= len(argv) or last >= len(argv) or last < self.first:
            return None  # too few arguments: the server will refuse it, but stay on the safe side
        return argv[self.first:last + 1:self.step]


NO_KEYS = KeySpec(0, 0, 1, False)   # PING, ECHO: touch nothing
UNKNOWN = None


class CommandKeys:
    """COMMAND INFO's key positions per command name, asked of the server once per name."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self.specs: dict[bytes, KeySpec | None] = {}

    async def learn(self, names) -> None:
        """Ask for the names not known yet, in one round trip (a failure leaves them unknown)."""
        new = sorted({n for n in names if n not in self.specs})
        if not new:
            return
        for name in new:
            self.specs[name] = NO_KEYS if name in _NOTHING_WORDS else UNKNOWN
        wanted = [n for n in new if n not in _NOTHING_WORDS and n not in _BEYOND_KEYS and n not in SCRIPT_COMMANDS]
        if not wanted or self.reader is None:
            return
        try:
            reply, = await self.reader.run([[b"COMMAND", b"INFO", *wanted]])
        except Exception:  # busy, gone, refused by an ACL: nothing commutes
            return
        if not isinstance(reply, Array):
            return
        for name, info in zip(wanted, reply):
            self.specs[name] = _spec(info)

    async def waits(self, lines: list[tuple[str, tuple[bytes, ...]]]) -> list[int]:
        """For each line (client, argv), in input order: the last earlier line of another
        client it does not commute with (-1: none), i.e. whose reply it must wait for."""
        names = [argv[0].lower() for _, argv in lines]
        await self.learn(names)
        specs = self.specs
        last_any: dict[str, int] = {}       # per client: its last line
        last_unknown: dict[str, int] = {}   # its last line that may touch anything
        last_write: dict[str, dict] = {}    # key -> its last line writing it
        last_read: dict[str, dict] = {}     # key -> its last line reading it
        out = []
        for index, ((client, argv), name) in enumerate(zip(lines, names)):
            spec = specs.get(name)
            keys = None if spec is None else spec.keys(argv)
            wait = -1
            for other, last in last_any.items():
                if other == client:
                    continue
                if keys is None:
                    if last > wait:
                        wait = last
                    continue
                last = last_unknown.get(other, -1)
                if last > wait:
                    wait = last
                writes = last_write[other]
                reads = last_read[other] if spec.writes else None
                for key in keys:
                    last = writes.get(key, -1)
                    if last > wait:
                        wait = last
                    if reads is not None:
                        last = reads.get(key, -1)
                        if last > wait:
                            wait = last
            out.append(wait)
            last_any[client] = index
            if client not in last_write:
                last_write[client], last_read[client] = {}, {}
            if keys is None:
                last_unknown[client] = index
            else:
                mine = last_write[client] if spec.writes else last_read[client]
                for key in keys:
                    mine[key] = index
        return out


def in_order(lines: list[tuple[str, tuple[bytes, ...]]]) -> list[int]:
    """`CommandKeys.waits` when nothing is taken to commute: every line of one client
    waits for the lines of the others before it."""
    out, last_other, previous_client, last_line = [], -1, None, -1
    for index, (client, _) in enumerate(lines):
        if client != previous_client:
            last_other = last_line
            previous_client = client
        out.append(last_other)
        last_line = index
    return out


def _spec(info) -> KeySpec | None:
    if not isinstance(info, Array) or len(info) < 6:
        return None
    flags = {bytes(f).lower() for f in info[2]} if isinstance(info[2], Array) else set()
    first, last, step = (int(x) if isinstance(x, Int) else 0 for x in info[3:6])
    if first <= 0 or step <= 0 or b"movablekeys" in flags:
        return None  # no keys (it may touch everything), or keys it cannot place
    return KeySpec(first, last, step, writes=b"readonly" not in flags)
