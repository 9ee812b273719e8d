"""The simplest schedule of an outcome: the fewest switches between clients.

A switch is a move to another client while the one running still has steps left and
is not blocked (what model checkers call a preemption): a serial order has none, the
lost update's `A1 B1 B2 A2` one. With the reduction, every schedule equivalent to a
run (the same steps, only independent ones swapped: explore/schedules.py) ends the
same, so the simplest of an outcome is searched among them, over the sets of moves
already placed (at most (n1+1)(n2+1)... of them, times the last client).
Pure computation, no server.
"""

from __future__ import annotations

from typing import Sequence

from playground.explore import schedules as sch


def switches(schedule: Sequence[str], blocked: frozenset[sch.Move] = frozenset()) -> int:
    """Switches away from a client that still had steps and had not blocked."""
    word = sch.moves(schedule)
    total = {c: 0 for c in schedule}
    for c in schedule:
        total[c] += 1
    return sum(1 for i in range(1, len(word))
               if word[i][0] != word[i - 1][0] and word[i - 1][1] + 1 < total[word[i - 1][0]]
               and word[i - 1] not in blocked)


def simplest(schedule: Sequence[str], independent: sch.Independent, clients: Sequence[str],
             blocked: frozenset[sch.Move] = frozenset()) -> tuple[str, ...]:
    """The equivalent schedule with the fewest switches (the lexicographically least of
    those, clients ordered as given)."""
    word = sch.moves(schedule)
    index = {m: i for i, m in enumerate(word)}
    clients = [c for c in clients if any(m[0] == c for m in word)]
    lengths = [sum(1 for m in word if m[0] == c) for c in clients]
    need = [[0] * n for n in lengths]          # per client and step: the positions before it, as bits
    for i, bits in enumerate(sch.predecessors(word, independent)):
        c, k = word[i]
        need[clients.index(c)][k] = sum(1 << j for j in bits)
    prefix = [[0] * (n + 1) for n in lengths]   # per client: its first k steps' positions, as bits
    for ci, c in enumerate(clients):
        for k in range(lengths[ci]):
            prefix[ci][k + 1] = prefix[ci][k] | (1 << index[(c, k)])
    stops = [[(c, k) in blocked for k in range(lengths[ci])] for ci, c in enumerate(clients)]
    # state: (placed per client, last client index) -> (switches, client indexes so far)
    best: dict = {(tuple(0 for _ in clients), -1): (0, ())}
    frontier = list(best)
    for _ in range(len(word)):
        following: dict = {}
        for state in frontier:
            counts, last = state
            cost, path = best[state]
            placed = 0
            for ci, k in enumerate(counts):
                placed |= prefix[ci][k]
            free = last < 0 or counts[last] == lengths[last] or stops[last][counts[last] - 1]
            for ci, k in enumerate(counts):
                if k == lengths[ci] or need[ci][k] & ~placed:
                    continue
                nxt = (counts[:ci] + (k + 1,) + counts[ci + 1:], ci)
                candidate = (cost + (0 if free or last == ci else 1), path + (ci,))
                held = following.get(nxt)
                if held is None or candidate < held:
                    following[nxt] = candidate
        best.update(following)
        frontier = list(following)
    _, path = min(best[s] for s in frontier)
    return tuple(clients[ci] for ci in path)


