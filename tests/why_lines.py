"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

from playground.engine import events as ev


async def lines(ex, *steps):
    results = []
    for step in steps:
        client, _, line = step.partition("> ")
        results.append(await ex.run_line(client, line))
    return results


def whys(seen):
    return [e for e in seen if isinstance(e, ev.Why)]
