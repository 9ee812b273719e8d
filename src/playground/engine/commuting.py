"""Which command lines of different clients may run in either order.

Lines of one client keep their order on its connection; lines of different clients are
in input order only if each waits for the replies of the lines before it (engine/pipeline.py).
That wait is a round trip at every switch between clients, and most of them protect
nothing: `INCR n` by A and `GET k` by B give the same replies whichever runs first.
Two lines commute when the command catalogue (engine/catalogue.py) knows their keys
and they share no key that either writes; a line the catalogue cannot place (a script,
a key-less command, one that depends on time or changes the server's state: see
`Effect.anything`) commutes with nothing; nor does a line on a key an earlier line gave
a time to live (the catalogue's `ttl_keys`): what it finds depends on when it runs.

Not covered: a server at its `maxmemory` (the private servers' 64mb, noeviction:
server/sandbox.py), where which write gets OOM, or which key an evicting server drops,
may depend on the order of writes to other keys (it depends on timing in redis-cli too).
"""

from __future__ import annotations

from playground.engine.catalogue import Catalogue


async def waits(catalogue: Catalogue, lines: list[tuple[str, tuple[bytes, ...]]]) -> list[int]:
    """For each line (client, argv), in input order: the last earlier line of another
    client it does not commute with (-1: none), i.e. whose reply it must wait for."""
    effects = await catalogue.effects(argv for _, argv in lines)
    last_any: dict[str, int] = {}       # per client: its last line
    last_unknown: dict[str, int] = {}   # its last line that may touch anything
    last_write: dict[str, dict[bytes, int]] = {}    # per client: key -> its last line writing it
    last_read: dict[str, dict[bytes, int]] = {}     # per client: key -> its last line reading it
    expiring: set[bytes] = set()        # keys a line gave a TTL: they may run out between two lines
    out = []
    for index, ((client, argv), effect) in enumerate(zip(lines, effects, strict=True)):  # (an effect per line)
        touched = effect.touched
        written = effect.writes or frozenset()  # (None only where touched is None too)
        if touched is not None and touched & expiring:
            touched = None
        expiring |= catalogue.ttl_keys(argv)[0]
        wait = -1
        for other, last in last_any.items():
            if other == client:
                continue
            if touched is None:
                wait = max(wait, last)
                continue
            wait = max(wait, last_unknown.get(other, -1))
            writes, reads = last_write[other], last_read[other]
            for key in touched:
                wait = max(wait, writes.get(key, -1))
                if key in written:
                    wait = max(wait, reads.get(key, -1))
        out.append(wait)
        last_any[client] = index
        if client not in last_write:
            last_write[client], last_read[client] = {}, {}
        if touched is None:
            last_unknown[client] = index
        else:
            for key in touched:
                (last_write if key in written else last_read)[client][key] = index
    return out


def in_order(lines: list[tuple[str, tuple[bytes, ...]]]) -> list[int]:
    """`waits` when nothing is taken to commute: every line of one client waits for the
    lines of the others before it."""
    out, last_other, previous_client, last_line = [], -1, None, -1
    for index, (client, _) in enumerate(lines):
        if client != previous_client:
            last_other = last_line
            previous_client = client
        out.append(last_other)
        last_line = index
    return out
