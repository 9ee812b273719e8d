"""The private directories of the servers this process runs (server/private.py adds and
removes them): removed even when the process has to end at once, without its `finally`s
(engine/exit_signals.py, a loaded machine past the grace). A leaf, so that what ends the
process on a signal needs nothing of the server package (`repl --url` starts none)."""

from __future__ import annotations

FORCED_EXIT_DIRS: set[str] = set()
