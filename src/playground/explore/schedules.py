"""Schedules: the interleavings of the clients' programs that keep each client's order.

Pure computation, no server. A schedule is a tuple of client names, one per move:
("A", "B", "A", "B") is A's first step, B's first, A's second, B's second, written
`A1 B1 A2 B2`. Programs of 2 and 2 steps have 6 schedules, 3 and 3 have 20: the
multinomial coefficient.

Partial-order reduction: two schedules that differ only in the order of adjacent steps
of different clients that are independent (`independent(x, y)`: e.g. disjoint keys, no
transaction or script spanning both) end the same. Such schedules form one equivalence
class (a Mazurkiewicz trace); `canonical_schedules` yields exactly one per class, its
lexicographically least member (clients ordered as given), and `class_size` counts the
schedules a run stands for.
"""

from __future__ import annotations

import random
from math import factorial
from typing import Callable, Iterator, Sequence

Move = tuple[str, int]          # (client, 0-based index of its step)
Independent = Callable[[Move, Move], bool]


def count_schedules(lengths: dict[str, int]) -> int:
    """How many interleavings keep each client's order: (n1+n2+...)! / (n1! n2! ...)."""
    total = factorial(sum(lengths.values()))
    for n in lengths.values():
        total //= factorial(n)
    return total


def all_schedules(lengths: dict[str, int]) -> Iterator[tuple[str, ...]]:
    """Every interleaving, in lexicographic order (clients in the order given)."""
    clients = [c for c in lengths if lengths[c] > 0]
    left = {c: lengths[c] for c in clients}
    size = sum(left.values())
    path: list[str] = []

    def walk() -> Iterator[tuple[str, ...]]:
        if len(path) == size:
            yield tuple(path)
            return
        for c in clients:
            if left[c]:
                left[c] -= 1
                path.append(c)
                yield from walk()
                path.pop()
                left[c] += 1

    yield from walk()


def unrank(lengths: dict[str, int], rank: int) -> tuple[str, ...]:
    """The schedule at position `rank` (0-based) of `all_schedules`' order."""
    clients = [c for c in lengths if lengths[c] > 0]
    left = {c: lengths[c] for c in clients}
    out: list[str] = []
    for _ in range(sum(left.values())):
        for c in clients:
            if not left[c]:
                continue
            left[c] -= 1
            below = count_schedules(left)
            if rank < below:
                out.append(c)
                break
            rank -= below
            left[c] += 1
    return tuple(out)


def sample_schedules(lengths: dict[str, int], limit: int, seed: int = 0) -> list[tuple[str, ...]]:
    """`limit` distinct schedules drawn uniformly with a seeded generator (the same seed
    gives the same sample), in lexicographic order."""
    total = count_schedules(lengths)
    if total <= limit:
        return list(all_schedules(lengths))
    ranks = sorted(random.Random(seed).sample(range(total), limit))
    return [unrank(lengths, r) for r in ranks]


def moves(schedule: Sequence[str]) -> list[Move]:
    """("A", "B", "A") -> [("A", 0), ("B", 0), ("A", 1)]."""
    seen: dict[str, int] = {}
    out = []
    for c in schedule:
        out.append((c, seen.get(c, 0)))
        seen[c] = seen.get(c, 0) + 1
    return out


def serial(order: Sequence[str], schedule: Sequence[str]) -> tuple[str, ...]:
    """`schedule`'s moves in the serial order `order` (clients): all of the first's, then
    the next's ..."""
    return tuple(c for c in order for _ in range(schedule.count(c)))


def label(schedule: Sequence[str]) -> str:
    """`A1 B1 A2 B2`: each move as client and 1-based step number."""
    return " ".join(f"{c}{i + 1}" for c, i in moves(schedule))


def keeps_bound(schedule: Sequence[str], pairs: Sequence[tuple[Move, Move]]) -> bool:
    """Each (step, bound step) pair runs back to back: no other move between them
    (a scenario's `bound = true`, e.g. a lock taken and tried before its TTL runs out)."""
    if not pairs:
        return True
    at = {m: i for i, m in enumerate(moves(schedule))}
    return all(at[second] == at[first] + 1 for first, second in pairs)


def _violates(prefix: list[Move], move: Move, order: dict[str, int], independent: Independent) -> bool:
    """Would appending `move` make `prefix` not lexicographically least in its class?
    It would if `move` commutes with every move back to one of a later-ordered client
    (it could then be swapped in front of it)."""
    for earlier in reversed(prefix):
        if earlier[0] == move[0] or not independent(earlier, move):
            return False
        if order[earlier[0]] > order[move[0]]:
            return True
    return False


def canonical_schedules(lengths: dict[str, int], independent: Independent,
                        budget: int = 200_000) -> Iterator[tuple[str, ...]]:
    """One schedule per equivalence class, the least one, in lexicographic order.
    A word is the least of its class iff no move commutes with every move back to an
    earlier move of a later client (Anisimov & Knuth's lexicographic normal form).
    Raises OverflowError after `budget` search nodes (the caller samples instead)."""
    clients = [c for c in lengths if lengths[c] > 0]
    order = {c: i for i, c in enumerate(clients)}
    left = {c: lengths[c] for c in clients}
    size = sum(left.values())
    path: list[Move] = []
    nodes = [0]

    def walk() -> Iterator[tuple[str, ...]]:
        if len(path) == size:
            yield tuple(c for c, _ in path)
            return
        nodes[0] += 1
        if nodes[0] > budget:
            raise OverflowError("too many schedules to reduce")
        for c in clients:
            if not left[c]:
                continue
            move = (c, lengths[c] - left[c])
            if _violates(path, move, order, independent):
                continue
            left[c] -= 1
            path.append(move)
            yield from walk()
            path.pop()
            left[c] += 1

    yield from walk()


def canonical_form(schedule: Sequence[str], independent: Independent,
                   clients: Sequence[str]) -> tuple[str, ...]:
    """The least schedule equivalent to `schedule`: repeatedly take, of the moves whose
    every dependency is already placed, the one of the first client."""
    order = {c: i for i, c in enumerate(clients)}
    word = moves(schedule)
    preds = predecessors(word, independent)
    placed: set[int] = set()
    out: list[str] = []
    while len(out) < len(word):
        ready = [i for i in range(len(word)) if i not in placed and preds[i] <= placed]
        pick = min(ready, key=lambda i: order[word[i][0]])
        placed.add(pick)
        out.append(word[pick][0])
    return tuple(out)


def predecessors(word: list[Move], independent: Independent) -> list[set[int]]:
    """For each position, the earlier positions that must stay before it (transitively)."""
    preds: list[set[int]] = []
    for j, move in enumerate(word):
        mine: set[int] = set()
        for i in range(j):
            if word[i][0] == move[0] or not independent(word[i], move):
                mine |= preds[i] | {i}
        preds.append(mine)
    return preds


def class_size(schedule: Sequence[str], independent: Independent) -> int:
    """How many schedules are equivalent to `schedule` (itself included): the orders of
    its moves that keep every dependent pair in place (counted over the sets of moves
    already placed: at most (n1+1)(n2+1)... of them)."""
    word = moves(schedule)
    preds = predecessors(word, independent)
    index = {m: i for i, m in enumerate(word)}
    clients = list(dict.fromkeys(c for c, _ in word))
    lengths = {c: sum(1 for m in word if m[0] == c) for c in clients}
    counts: dict[tuple[int, ...], int] = {tuple(0 for _ in clients): 1}
    frontier = [tuple(0 for _ in clients)]
    for _ in range(len(word)):
        following: dict[tuple[int, ...], int] = {}
        for state in frontier:
            placed = {index[(c, k)] for c, n in zip(clients, state, strict=True) for k in range(n)}
            for ci, c in enumerate(clients):
                if state[ci] == lengths[c]:
                    continue
                if preds[index[(c, state[ci])]] <= placed:
                    nxt = state[:ci] + (state[ci] + 1,) + state[ci + 1:]
                    following[nxt] = following.get(nxt, 0) + counts[state]
        counts.update(following)
        frontier = list(following)
    return counts[tuple(lengths[c] for c in clients)]


def bound_pairs(part) -> list[tuple[Move, Move]]:
    """(the step before, the bound step) as moves (client, index in its program), for
    each step of the part with `bound = true`."""
    seen: dict[str, int] = {}
    at: list[Move] = []
    for step in part.steps:
        at.append((step.client, seen.get(step.client, 0)))
        seen[step.client] = seen.get(step.client, 0) + 1
    return [(at[i - 1], at[i]) for i, step in enumerate(part.steps) if step.bound and i]
