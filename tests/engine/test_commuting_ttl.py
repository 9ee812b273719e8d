"""Pipelined lines of two clients commute only when the order cannot matter: a line on a
key that an earlier line gave a time to live is ordered against the other client's
lines (what it finds depends on when it runs). Decided from the server's COMMAND INFO."""

from __future__ import annotations

import pytest

from playground.engine.commuting import waits

pytestmark = [pytest.mark.server]


def line(client: str, text: str) -> tuple[str, tuple[bytes, ...]]:
    return client, tuple(text.encode().split())


async def test_a_line_on_a_key_with_a_ttl_commutes_with_nothing(pg):
    lines = [line("A", "SET k v PX 5"), line("B", "SET x 1"), line("A", "GET k"), line("B", "GET y")]
    got = await waits(pg.catalogue, lines)
    assert got[2] == 1      # GET k waits for B's SET x: it may find k expired after it
    assert got[3] == 2      # and B's next line waits for it in turn
    # without the TTL, GET k and SET x share nothing: sent at once
    plain = [line("A", "SET k v"), line("B", "SET x 1"), line("A", "GET k"), line("B", "GET y")]
    assert await waits(pg.catalogue, plain) == [-1, -1, -1, -1]
