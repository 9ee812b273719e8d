"""Helpers shared by several test modules (moved out of the test modules that first had them)."""

from __future__ import annotations

import pytest_asyncio

from playground.gate.endpoint import Gate

WAIT = 10.0


@pytest_asyncio.fixture
async def gate(pg):
    g = Gate.for_playground(pg)
    yield g
    await g.close()


async def step(gate: Gate, label: str, want: str):
    """Release `label`'s next command, which must be `want`; its reply (raw)."""
    held = await gate.release_next(label, WAIT)
    assert held is not None, f"{label} sent no command (wanted {want})"
    assert held.display == want
    return held
