"""An independent brute force for the explorer's tests: the test's own code runs every
order of the clients' commands on the real server, each from a flushed server and the
setup, over connections of its own (redis-py, as a learner's program connects), and
asks the server what it holds at the end. Nothing of the explorer's is used."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations

import redis


def interleavings(programs: dict[str, list[list[str]]]) -> Iterator[list[tuple[str, list[str]]]]:
    """Every order of the clients' commands that keeps each client's own order (two or
    three clients)."""
    clients = list(programs)

    def merge(left: list, right: list) -> Iterator[list]:
        n = len(left) + len(right)
        for places in combinations(range(n), len(left)):
            out, li, ri = [], iter(left), iter(right)
            for i in range(n):
                out.append(next(li) if i in places else next(ri))
            yield out

    tagged = [[(c, argv) for argv in programs[c]] for c in clients]
    orders: list[list] = [tagged[0]]
    for more in tagged[1:]:
        orders = [m for order in orders for m in merge(order, more)]
    yield from orders


def raw(socket_path: str) -> redis.Redis:
    """A connection of its own whose replies come as the server sent them (no
    redis-py parsing by command name)."""
    conn = redis.Redis(unix_socket_path=socket_path, single_connection_client=True)
    conn.response_callbacks.clear()
    return conn


def run_every_order(socket_path: str, setup: list[list[str]], programs: dict[str, list[list[str]]],
                    read: Callable[[redis.Redis], object]) -> dict[tuple, object]:
    """For each order (as its client letters): `read(r)` of the server after it ran.
    A client's `QUIT` closes its connection."""
    admin = redis.Redis(unix_socket_path=socket_path)
    out = {}
    try:
        for order in interleavings(programs):
            admin.flushall()
            for argv in setup:
                admin.execute_command(*argv)
            conns = {c: raw(socket_path) for c in programs}
            for client, argv in order:
                if argv[0].upper() == "QUIT":
                    conns[client].close()
                    continue
                try:
                    conns[client].execute_command(*argv)
                except redis.ResponseError:
                    pass
            out[tuple(c for c, _ in order)] = read(admin)
            for conn in conns.values():
                conn.close()
    finally:
        admin.flushall()
        admin.close()
    return out
