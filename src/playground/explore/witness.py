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
    preds = sch.predecessors(word, independent)
    index = {m: i for i, m in enumerate(word)}
    clients = [c for c in clients if any(m[0] == c for m in word)]
    lengths = {c: sum(1 for m in word if m[0] == c) for c in clients}
    start = tuple(0 for _ in clients)
    # state: (placed per client, last client index) -> (switches, schedule so far)
    best: dict[tuple[tuple[int, ...], int], tuple[int, tuple[str, ...]]] = {(start, -1): (0, ())}
    frontier = [(start, -1)]
    for _ in range(len(word)):
        following: dict[tuple[tuple[int, ...], int], tuple[int, tuple[str, ...]]] = {}
        for state in frontier:
            placed_counts, last = state
            cost, path = best[state]
            placed = {index[(c, k)] for c, n in zip(clients, placed_counts) for k in range(n)}
            for ci, c in enumerate(clients):
                k = placed_counts[ci]
                if k == lengths[c] or not preds[index[(c, k)]] <= placed:
                    continue
                extra = 0
                if last >= 0 and last != ci:
                    lc = clients[last]
                    if placed_counts[last] < lengths[lc] and (lc, placed_counts[last] - 1) not in blocked:
                        extra = 1
                nxt = (placed_counts[:ci] + (k + 1,) + placed_counts[ci + 1:], ci)
                candidate = (cost + extra, path + (c,))
                if nxt not in following or _better(candidate, following[nxt], clients):
                    following[nxt] = candidate
        best.update(following)
        frontier = list(following)
    order = {c: i for i, c in enumerate(clients)}
    finals = [best[s] for s in frontier]
    return min(finals, key=lambda v: (v[0], [order[c] for c in v[1]]))[1]


def _better(a, b, clients) -> bool:
    order = {c: i for i, c in enumerate(clients)}
    return (a[0], [order[c] for c in a[1]]) < (b[0], [order[c] for c in b[1]])
