"""Issue 37's "one fact in one place", kept: the source holds no second copy of a fact the
engine keeps once. Each scan looks for how a copy is spelt (a lower-case command name
compared against), so a command the program sends (`[b"PSUBSCRIBE", ...]`) is no copy."""

from __future__ import annotations

import re
from pathlib import Path

import playground

SRC = Path(playground.__file__).parent


def _holders(pattern: str) -> set[str]:
    found = re.compile(pattern)
    return {str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if found.search(p.read_text(encoding="utf-8"))}


def test_the_subscribe_family_is_named_only_in_the_catalogue():
    """SUBSCRIBE and kin (which enter, leave, are answered a frame a channel): the
    catalogue's SUBSCRIBES, UNSUBSCRIBES, SUBSCRIBE_FAMILY; the gate, the session, the
    line run, the pipeline, repl and the setup rules ask it."""
    assert _holders(r'b"[ps]?(un)?subscribe"') == {"engine/catalogue.py"}


def test_only_the_engine_follows_multi():
    """Whether a client is inside MULTI, and what its lines are to the transaction, is
    engine/units.py's (`UnitTracker`, `transaction_roles`): the explorer's footprints and
    witnesses and the scenario's setup rules ask it, so no module outside the engine
    compares a command with MULTI itself."""
    holders = _holders(r'b"multi"')
    assert "engine/units.py" in holders
    assert {h for h in holders if not h.startswith("engine/")} == set()
