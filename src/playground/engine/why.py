"""A "why" under every surprise, from the engine's own records (never from rendered text).

After a reply that surprises a learner the executor asks `WhyTracker.explain` for the
reason, and emits it as a `Why` event right after the reply:

- EXEC → (nil): which WATCHed key changed, by which client, at which server-order
  number; or that only its TTL changed, it expired, was flushed, or was rewritten
  with the same value;
- EXEC → EXECABORT: which queued command was rejected, and the error it got;
- BUSY: whose script runs, for how long, what SCRIPT KILL / SHUTDOWN NOSAVE would do;
  UNKILLABLE: that the script has written;
- NOSCRIPT: who emptied the script cache and when (SCRIPT FLUSH, a fresh start, a
  restart), or that this server never had the script;
- an EXEC that committed although another client wrote a key it writes since the
  client's last command before MULTI: that the key was not WATCHed.

The records: the server order (engine/server_order.py: every unit and the
playground's own resets), the WATCH numbers kept here, each watched key's value when
it was watched (DUMP, one round trip per WATCH: to tell a same-value rewrite), and
which keys a unit wrote: on the private server what the server says it changed (its
key events, engine/changes.py: a read-only script wrote nothing, a TTL-only change is
told apart), elsewhere from the commands' names (COMMAND GETKEYS, when explaining).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TypeAlias

from playground.engine.changes import ttl_only
from playground.engine.events import Why
from playground.engine.playground import Playground
from playground.engine.server_order import Row
from playground.engine.catalogue import SCRIPT_COMMANDS, script_run
from playground.engine.units import Unit
from playground.resp.cli_lines import format_argv
from playground.resp.replies import Array, Bulk, Err, Int, Nil, Status
from playground.engine.why_text import Said, message



_Note: TypeAlias = "tuple[str, Said] | None"
"""A why-note's kind and its words, or None: nothing to explain."""

def _name(key: bytes) -> str:
    return key.decode("utf-8", "replace")


def _short(argv: Sequence[bytes], cells: int = 40) -> str:
    text = format_argv(list(argv))
    return text if len(text) <= cells else text[:cells - 1] + "…"


class WhyTracker:
    """What the explanations need beyond the server order, per client."""

    def __init__(self, pg: Playground, lang: str = "en") -> None:
        self.pg = pg
        self.lang = lang
        self.watches: dict[str, dict[bytes, int]] = {}              # client -> key -> seq of its WATCH
        self.values: dict[str, dict[bytes, bytes | None]] = {}      # client -> key -> DUMP when watched
        self.window: dict[str, int] = {}        # client -> its last reply's seq before MULTI
        self.last_seq: dict[str, int] = {}
        self.in_flight: dict[str, tuple[tuple[bytes, ...], float]] = {}  # client -> (argv, sent at)
        self._fresh_starts = 0  # the server order's count when the records above began

    def say(self, kind: str, **values: object) -> Said:
        return Said(message(self.lang, kind, **values), kind, values)

    def sending(self, client: str, argv: Sequence[bytes]) -> None:
        self.in_flight[client] = (tuple(argv), time.monotonic())

    async def explain(self, client: str, argv: Sequence[bytes], reply: object, seq: int, unit: Unit | None,
                      role: str | None) -> list[Why]:
        """Record this reply, and explain it if it needs explaining. `role`: the line's in
        its client's transaction, as its UnitTracker saw it (engine/units.py): an UNWATCH
        queued inside MULTI forgets no WATCH."""
        argv = tuple(argv)
        self.in_flight.pop(client, None)
        if self.pg.order.fresh_starts != self._fresh_starts:  # a reset or restart: no WATCH, no MULTI left
            self._fresh_starts = self.pg.order.fresh_starts
            self.watches.clear()
            self.values.clear()
            self.window.clear()
            self.last_seq.clear()
        before = self.last_seq.get(client)
        self.last_seq[client] = seq
        ok = isinstance(reply, Status)
        if role == "watch" and ok:
            keys = [k for k in dict.fromkeys(argv[1:]) if k not in self.watches.get(client, {})]
            self.watches.setdefault(client, {}).update((k, seq) for k in keys)
            self.values.setdefault(client, {}).update(zip(keys, await self._dump(keys), strict=True))
            return []
        if role in ("unwatch", "reset") and ok:
            self._forget(client)
            return []
        if role == "multi" and ok:
            self.window[client] = before if before is not None else seq
            return []
        if unit is None:
            return []
        text = None
        if unit.kind == "transaction":
            text = await self._transaction_why(client, unit, seq)
        elif isinstance(reply, Err):
            text = self._error_why(client, argv, reply, seq)
        if text is None:
            return []
        kind, words = text
        why = Why(client, seq, str(words), kind, getattr(words, "message", ""), getattr(words, "values", {}))
        self.pg.order.explained(seq, why)
        return [why]

    async def _transaction_why(self, client: str, unit: Unit, seq: int) -> _Note:
        """Why a transaction ended as it did (its WATCHes and MULTI window are over)."""
        watched, values = self.watches.get(client, {}), self.values.get(client, {})
        start = self.window.pop(client, seq)
        self._forget(client)
        if unit.outcome == "aborted":
            return await self._aborted(client, unit, seq, watched, values)
        if unit.outcome == "execabort":
            return self._execabort(unit)
        if unit.outcome == "committed":
            return await self._unwatched(client, unit, seq, start)
        return None

    def _error_why(self, client: str, argv: tuple[bytes, ...], reply: Err, seq: int) -> _Note:
        """Why the server answered an error a learner may not expect."""
        code = reply.code
        if code == "BUSY":
            return self._busy(client, "busy")
        if code == "UNKILLABLE":
            return self._busy(client, "unkillable")
        if code == "NOSCRIPT" and len(argv) > 1:
            return self._noscript(argv[1].decode("ascii", "replace").lower(), seq, client)
        if self.pg.private and _sandboxed(reply):
            return "sandbox", self.say("sandbox")
        return None

    def _forget(self, client: str) -> None:
        self.watches.pop(client, None)
        self.values.pop(client, None)

    # -- reads (the playground's own connection) ----------------------------------------

    async def _dump(self, keys: list[bytes]) -> list[bytes | None]:
        if not keys or self.pg.reader is None:
            return [None] * len(keys)
        try:
            replies = await self.pg.reader.run([[b"DUMP", k] for k in keys])
        except Exception:  # busy or gone: the same-value case can't be told, nothing else breaks
            return [None] * len(keys)
        return [bytes(r) if isinstance(r, Bulk) else None for r in replies]

    async def _exists(self, key: bytes) -> bool | None:
        if self.pg.reader is None:
            return None
        try:
            reply, = await self.pg.reader.run([[b"EXISTS", key]])
        except Exception:
            return None
        return bool(int(reply)) if isinstance(reply, Int) else None

    async def _written(self, unit: Unit) -> set[bytes] | None:
        """The keys a unit wrote (worked out once per unit, shared with the inspector's
        attribution: WriteTracker.keys_written); None for a flush (every key)."""
        assert self.pg.writes is not None  # (started)
        keys = await self.pg.writes.keys_written(unit)
        return None if unit.flushed else set(keys)

    # -- the cases ------------------------------------------------------------------------

    async def _aborted(self, client: str, unit: Unit, seq: int, watched: dict[bytes, int],
                       values: dict[bytes, bytes | None]) -> _Note:
        keys = list(unit.watched) or list(watched)
        start = min((watched[k] for k in keys if k in watched), default=0)
        for row in self.pg.order.between(start, seq):
            if row.unit is None:
                if row.mark in ("reset", "flush", "restart"):
                    return "flushed", self.say(f"aborted_mark_{row.mark}", key=_name(keys[0]) if keys else "?")
                continue
            written = await self._written(row.unit)
            who = row.client if row.client != client else self.say("itself", client=client)
            if written is None:
                return "flushed", self.say("aborted_flush", who=who, cmd=_short(row.unit.commands[0]),
                                           seq=row.seq, key=_name(keys[0]) if keys else "?", client=client)
            hit = [k for k in keys if k in written and row.seq > watched.get(k, 0)]
            if not hit:
                continue
            key = hit[0]
            what = _short(row.unit.commands[0]) if row.unit.kind != "transaction" else "MULTI … EXEC"
            changes = row.unit.changes
            if changes is not None and ttl_only(changes.get(key, ())):  # the server says: only the TTL
                return "ttl", self.say("aborted_ttl", key=_name(key), who=who, cmd=what, seq=row.seq,
                                       watch=watched.get(key, start), client=client)
            same = False
            if values.get(key) is not None:
                now = await self._dump([key])
                same = now[0] == values[key]
            return ("same-value" if same else "changed"), self.say(
                "aborted_same" if same else "aborted_changed", key=_name(key), who=who, cmd=what,
                seq=row.seq, watch=watched.get(key, start), client=client)
        for key in keys:
            if values.get(key) is not None and await self._exists(key) is False:
                return "expired", self.say("aborted_expired", key=_name(key), watch=watched.get(key, start),
                                           client=client)
        return "unknown", self.say("aborted_unknown", keys=" ".join(_name(k) for k in keys) or "?")

    async def _unwatched(self, client: str, unit: Unit, seq: int, start: int) -> _Note:
        others: list[tuple[Row, Unit]] = []
        for r in self.pg.order.between(start, seq):
            if r.unit is None and r.mark in ("reset", "restart"):
                others = []  # a fresh start: what ran before it is another story
            elif r.unit is not None and r.client != client and r.unit.ran:
                others.append((r, r.unit))
        if not others:
            return None
        ours = await self._written(unit)
        if not ours:
            return None
        watched = set(unit.watched)
        for row, their_unit in others:
            theirs = await self._written(their_unit)
            hit = [k for k in ours if k not in watched and (theirs is None or k in theirs)]
            if hit:
                what = _short(their_unit.commands[0]) if their_unit.kind != "transaction" else "MULTI … EXEC"
                return "unwatched", self.say("unwatched", key=_name(sorted(hit)[0]), who=row.client, cmd=what,
                                             seq=row.seq, start=start, client=client)
        return None

    def _execabort(self, unit: Unit) -> _Note:
        if not unit.rejected:
            return "execabort", self.say("execabort_unknown", error=_error(unit.reply))
        argv, err = unit.rejected[0]
        more = len(unit.rejected) - 1
        return "execabort", self.say("execabort", cmd=_short(argv), error=_error(err),
                                     more=self.say("execabort_more", n=more) if more else "")

    def _busy(self, client: str, kind: str) -> _Note:
        runner = next(((c, argv, t) for c, (argv, t) in self.in_flight.items()
                       if c != client and (argv[0].lower() in SCRIPT_COMMANDS or argv[0].lower() == b"function")),
                      None)
        if runner is None:
            return kind, self.say(f"{kind}_unknown")
        other, argv, started = runner
        return kind, self.say(kind, who=other, cmd=_short(argv, 30), seconds=f"{time.monotonic() - started:.1f}")

    def _noscript(self, sha: str, seq: int, client: str) -> _Note:
        loaded = None
        rows = list(self.pg.order.rows)
        for i in range(len(rows) - 1, -1, -1):
            row = rows[i]
            if row.seq >= seq and row.unit is not None:
                continue
            if _loads(row, sha):
                loaded = i
                break
        if loaded is None:
            return "noscript-never", self.say("noscript_never")
        for row in rows[loaded + 1:]:
            if row.unit is not None and row.seq >= seq:
                break
            if row.unit is None and row.mark in ("reset", "flush", "restart"):
                return "noscript-flushed", self.say(f"noscript_mark_{row.mark}", loaded=rows[loaded].seq)
            if row.unit is None and (row.mark == "promote" or (row.mark == "connect" and row.client == client)):
                # scripts are not replicated: each server has its own cache (SCRIPT EXISTS on a
                # replica of the server that loaded it says 0)
                return "noscript-node", self.say(f"noscript_{row.mark}", node=row.text, client=client,
                                                 loaded=rows[loaded].seq)
            if row.unit is not None and row.unit.ran and _is_script_flush(row.unit.commands[0]):
                return "noscript-flushed", self.say("noscript_flush", who=row.client, seq=row.seq,
                                                    loaded=rows[loaded].seq)
        return "noscript-flushed", self.say("noscript_gone", loaded=rows[loaded].seq)


def _is_script_flush(argv: Sequence[bytes]) -> bool:
    return len(argv) > 1 and argv[0].lower() == b"script" and argv[1].lower() == b"flush"


def _sha_of(argv: Sequence[bytes]) -> str | None:
    script = script_run(argv)
    if script is not None:
        return script[0]
    return None


def _loads(row: Row, sha: str) -> bool:
    """Did this row put script `sha` in the cache (or show that it was there)?"""
    if row.unit is None:
        return any(_sha_of(list(argv)) == sha for argv in row.setup if argv)
    if not row.unit.started:
        return False
    return any(_sha_of(argv) == sha for argv in row.unit.commands)


def _sandboxed(reply: Err) -> bool:
    """The private server's ACL refused it (server/sandbox.py), typed or inside a script."""
    text = reply.message
    return (text.startswith(b"NOPERM") or b"ACL failure in script" in text
            or b"user executing the script can't run this command" in text)


def _error(reply: object) -> str:
    if isinstance(reply, Err):
        return reply.message.decode("utf-8", "replace")
    return "?" if reply is None or reply is Nil or isinstance(reply, Array) else str(reply)
