"""What went wrong in an outcome no serial order gives, named in the course's terms and
proved by the order of two steps on a key.

Each client's program is taken as one transaction (the serial orders are "all of A,
then all of B", ...). From what the server did in one schedule (the witness re-run
with the server's key events: engine/changes.py), each step is an operation at its
place in server order: the keys it read (the command catalogue's, a WATCH's keys, a
script's declared keys; an aborted EXEC read only its WATCHed keys) and the keys it
wrote (the server's events; without a feed, the catalogue's keys of a unit that ran).
Two operations of different clients on one key, at least one a write, are a
dependency, "the first before the second":

- rw: `A1 read counter before B2 wrote it` (A must come before B),
- wr: `B2 read counter after A2 wrote it` (A before B),
- ww: `B2 overwrote A2's write to counter` (A before B).

A cycle between two clients (A before B and B before A) is what no serial order gives.
Its name, first match wins:

- aborted EXEC: another client wrote a WATCHed key between the WATCH and the EXEC;
- double-spend (the refresh lesson's): both read a key before either wrote it, and
  both went on to write something the other did not overwrite (both "won");
- lost update: a client read a key, another wrote it, then the first overwrote
  that write (with a value computed from its stale read); the write named is the one
  really overwritten, the last write to the key before the overwrite, whichever of any
  number of clients made it;
- stale read: a client read a key, the other wrote it, and the first still wrote
  afterwards, on what it had read;
- aborted EXEC again, where none of the above is shown: an EXEC returned nil with no
  write of another client's on record to explain it, told from what the server did
  (the engine's why-note for that EXEC: the WATCHed key expired, a flush or SWAPDB
  changed every key, a write the dependencies could not place); an aborted EXEC is
  never called "not atomic", nothing of it ran;
- not atomic: any other cycle (the other client's steps ran between two of one
  client's: `B1 ran between A1 and A2`).

The deciding order: the dependencies that go against the serial order nearest to the
outcome (the one fewest dependencies contradict): flip them and it is that serial
order. Pure computation, no server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

from playground.explore.schedules import moves
from playground.explore.snapshot import show_key
from playground.i18n import N_, tr

REPLACING = frozenset((b"set", b"del", b"restore", b"rename_to", b"copy_to", b"sortstore", b"setrange"))
"""Key events whose write may drop what was there (SET, DEL, RESTORE ...): an
overwrite, where INCRBY, RPUSH or SADD build on the value they find."""

KINDS = {"aborted-exec": N_("aborted EXEC"), "double-spend": N_("double-spend"),
         "lost-update": N_("lost update"), "stale-read": N_("stale read"), "not-atomic": N_("not atomic")}


@dataclass(frozen=True)
class Op:
    """One step's effect, at its place in server order."""

    seq: int
    client: str
    label: str                                  # "A2"
    reads: frozenset[bytes] | None              # None: unknown
    writes: dict[bytes, tuple[bytes, ...]] | None   # key -> server events (() unknown); None: unknown
    aborted: bool = False                       # an EXEC that returned nil (WATCH)
    watches: frozenset[bytes] = frozenset()     # a WATCH step's keys
    cause: str | None = None                    # an aborted EXEC: its why-note's kind ("expired", "flushed" ...)
    cause_seq: int | None = None                # ... and the server-order number of the unit that changed the key
    cause_key: bytes | None = None              # ... and the WATCHed key it names

    def wrote(self, key: bytes) -> bool:
        return self.writes is not None and key in self.writes

    def read(self, key: bytes) -> bool:
        return self.reads is not None and key in self.reads

    def replaced(self, key: bytes) -> bool:
        """Its write of `key` may have dropped what was there (unknown events: yes)."""
        events = (self.writes or {}).get(key)
        return events is not None and (not events or bool(REPLACING.intersection(events)))


@dataclass(frozen=True)
class Edge:
    """A dependency between two clients' steps on one key: `before` read or wrote it before `after` (rw, wr, ww)."""
    before: Op
    after: Op
    kind: str             # "rw", "wr", "ww"
    key: bytes

    def as_json(self) -> dict:
        return {"before": self.before.label, "after": self.after.label, "kind": self.kind,
                "key": show_key(self.key)}


@dataclass
class Anomaly:
    """A known anomaly (a key of KINDS) in an outcome: the dependencies that prove it, the order that decides it."""
    kind: str                                   # a key of KINDS
    proof: list[Edge] = field(default_factory=list)   # the dependencies that prove it
    deciding: list[tuple[str, str]] = field(default_factory=list)  # ("B1", "A2"): B1 before A2
    between: tuple[str, list[str], str] | None = None  # ("A1", ["B1", "B2"], "A2") for not-atomic
    edges: list[Edge] = field(default_factory=list)   # every dependency between clients
    abort: tuple[Op | None, Op, Op | None] | None = None  # an aborted EXEC with no proof on keys:
    # (its client's WATCH, the EXEC, the other client's step that changed the key, if known)

    @property
    def name(self) -> str:
        return tr(KINDS[self.kind])

    def explain(self) -> str:
        """The proof as one sentence (in the interface's language)."""
        return explain(self)

    def as_json(self) -> dict:
        return {"kind": self.kind, "name": self.name, "proof": self.explain(),
                "dependencies": [e.as_json() for e in self.proof],
                "deciding": [{"before": a, "after": b} for a, b in self.deciding],
                "all_dependencies": [e.as_json() for e in self.edges]}


def dependencies(ops: list[Op]) -> list[Edge]:
    """Every dependency between operations of different clients, in server order."""
    ops = sorted(ops, key=lambda o: o.seq)
    out: list[Edge] = []
    for i, p in enumerate(ops):
        for q in ops[i + 1:]:
            if p.client == q.client:
                continue
            for key in sorted(set(p.writes or ()) & set(q.writes or ())):
                out.append(Edge(p, q, "ww", key))
            for key in sorted(set(p.writes or ()) & (q.reads or frozenset())):
                out.append(Edge(p, q, "wr", key))
            for key in sorted((p.reads or frozenset()) & set(q.writes or ())):
                out.append(Edge(p, q, "rw", key))
    return out


def analyse(ops: list[Op], schedule: tuple[str, ...]) -> Anomaly:
    """Name what no serial order gives in this run (its operations, and the order the
    steps ran in), with the dependencies that prove it."""
    edges = dependencies(ops)
    ops = sorted(ops, key=lambda o: o.seq)
    deciding = _deciding(edges, list(dict.fromkeys(schedule)))
    for find in (_aborted, _double_spend, _lost_update, _stale_read, _aborted_by_server, _cycle):
        found = find(ops, edges)
        if found is not None:
            found.deciding = deciding or _switch_points(schedule)
            found.edges = edges
            if found.kind == "not-atomic" and found.between is None:
                found.between = _between(schedule)
            return found
    return Anomaly("not-atomic", deciding=_switch_points(schedule), between=_between(schedule), edges=edges)


def _aborted(ops, edges) -> Anomaly | None:
    for e in edges:
        if e.kind == "wr" and e.after.aborted:
            watch = next((o for o in reversed(ops) if o.client == e.after.client and e.key in o.watches
                          and o.seq < e.before.seq), None)
            if watch is not None:
                return Anomaly("aborted-exec", [Edge(watch, e.before, "rw", e.key), e])
    return None


def _aborted_by_server(ops, edges) -> Anomaly | None:
    """An EXEC that returned nil with no write of another client's on record to explain
    it (the key expired, a flush or SWAPDB): what the server says (its why-note)."""
    for o in ops:
        if o.aborted:
            watch = next((w for w in reversed(ops) if w.client == o.client and w.watches and w.seq < o.seq), None)
            culprit = next((c for c in ops if o.cause_seq is not None and c.seq == o.cause_seq
                            and c.client != o.client), None)
            return Anomaly("aborted-exec", abort=(watch, o, culprit))
    return None


def _first_write(ops, client: str, key: bytes, after: int) -> Op | None:
    return next((o for o in ops if o.client == client and o.seq > after and o.wrote(key)), None)


def _survives(ops, op: Op) -> bool:
    """Some write of `op`'s is not overwritten later by another client."""
    for key in op.writes or ():
        if not any(o.seq > op.seq and o.client != op.client and o.replaced(key) for o in ops):
            return True
    return False


def _double_spend(ops, edges) -> Anomaly | None:
    for e in edges:
        if e.kind != "rw":
            continue
        xr, yw, key = e.before, e.after, e.key
        yr = next((o for o in ops if o.client == yw.client and o.seq < yw.seq and o.read(key)
                   and _first_write(ops, yw.client, key, o.seq) is yw), None)
        xw = _first_write(ops, xr.client, key, xr.seq)
        if yr is None or xw is None or yr.seq > xw.seq or xr.seq > yw.seq:
            continue
        x_acted = any(_survives(ops, o) for o in ops if o.client == xr.client and o.seq > xr.seq)
        y_acted = any(_survives(ops, o) for o in ops if o.client == yr.client and o.seq > yr.seq)
        if x_acted and y_acted:
            first, second = sorted((xr, yr), key=lambda o: o.seq)
            w1, w2 = (xw, yw) if first is xr else (yw, xw)
            return Anomaly("double-spend", [Edge(first, w2, "rw", key), Edge(second, w1, "rw", key)])
    return None


def _reread(ops, client: str, key: bytes, start: int, end: int) -> bool:
    """Did `client` read `key` again between the two places (then it had the news)?"""
    return any(o.client == client and start < o.seq < end and (o.read(key) or key in o.watches) for o in ops)


def _lost_update(ops, edges) -> Anomaly | None:
    """A write that replaced a key (`xw`), the write it really overwrote (the last one to
    that key before it: another client's), and its client's last read of the key, made
    before that write: the value it wrote came from a stale read."""
    for xw in ops:
        for key in sorted(xw.writes or ()):
            if not xw.replaced(key):
                continue
            yw = max((o for o in ops if o.seq < xw.seq and o.wrote(key)), key=lambda o: o.seq, default=None)
            if yw is None or yw.client == xw.client:
                continue
            xr = max((o for o in ops if o.client == xw.client and o.seq < xw.seq and o.read(key)),
                     key=lambda o: o.seq, default=None)   # (a WATCH reads its keys: then it had the news)
            if xr is not None and xr.seq < yw.seq:
                return Anomaly("lost-update", [Edge(xr, yw, "rw", key), Edge(yw, xw, "ww", key)])
    return None


def _stale_read(ops, edges) -> Anomaly | None:
    for e in edges:
        if e.kind != "rw":
            continue
        xr, yw = e.before, e.after
        xw = next((o for o in ops if o.client == xr.client and o.seq > yw.seq and o.writes), None)
        back = next((f for f in edges if f.before.client == yw.client and f.after.client == xr.client), None)
        if xw is not None and back is not None and not _reread(ops, xr.client, e.key, yw.seq, xw.seq):
            return _stale(e, xw)
    return None


def _stale(e: Edge, xw: Op) -> Anomaly:
    anomaly = Anomaly("stale-read", [e])
    anomaly.between = (e.before.label, [e.after.label], xw.label)
    return anomaly


def _cycle(ops, edges) -> Anomaly | None:
    """The tightest pair: a step of X, then the other's, then X's again (X before Y, then
    Y before X), with the fewest steps from the first to the last."""
    pairs = [(f.after.seq - e.before.seq, e, f) for e in edges for f in edges
             if f.before.client == e.after.client and f.after.client == e.before.client
             and e.before.seq < f.after.seq and e.after.seq <= f.before.seq]
    if not pairs:
        return None
    _, e, back = min(pairs, key=lambda p: (p[0], p[1].before.seq))
    first, last = e.before, back.after
    first = max((o for o in ops if o.client == first.client and o.seq < e.after.seq), key=lambda o: o.seq)
    last = min((o for o in ops if o.client == last.client and o.seq > back.before.seq), key=lambda o: o.seq)
    middle = [o.label for o in ops if o.client != first.client and first.seq < o.seq < last.seq]
    return Anomaly("not-atomic", [e, back], between=(first.label, middle, last.label))


def _deciding(edges: list[Edge], clients: list[str]) -> list[tuple[str, str]]:
    """The dependencies the nearest serial order contradicts, as (before, after) labels."""
    if not edges or len(clients) > 4:
        return []
    best = None
    for order in permutations(clients):
        rank = {c: i for i, c in enumerate(order)}
        against = list(dict.fromkeys((e.before.label, e.after.label) for e in edges
                                     if rank[e.before.client] > rank[e.after.client]))
        if best is None or len(against) < len(best):
            best = against
    return best or []


def _switch_points(schedule: tuple[str, ...]) -> list[tuple[str, str]]:
    """Where the schedule leaves a client that still has steps: (the next client's step,
    the left client's next step)."""
    word = moves(schedule)
    total = {c: schedule.count(c) for c in schedule}
    out = []
    for i in range(1, len(word)):
        (c0, k0), (c1, k1) = word[i - 1], word[i]
        if c0 != c1 and k0 + 1 < total[c0]:
            out.append((f"{c1}{k1 + 1}", f"{c0}{k0 + 2}"))
    return out


def _between(schedule: tuple[str, ...]) -> tuple[str, list[str], str] | None:
    word = moves(schedule)
    total = {c: schedule.count(c) for c in schedule}
    for i in range(1, len(word)):
        (c0, k0), (c1, _) = word[i - 1], word[i]
        if c0 != c1 and k0 + 1 < total[c0]:
            j = next(j for j in range(i, len(word)) if word[j][0] == c0)
            return (f"{c0}{k0 + 1}", [f"{c}{k + 1}" for c, k in word[i:j]], f"{c0}{k0 + 2}")
    return None


# -- words ------------------------------------------------------------------------------

def edge_text(e: Edge) -> str:
    """One dependency in words: who read or wrote the key before whom.

    Args:
        e: the dependency.
    """
    key = show_key(e.key)
    p, q = e.before.label, e.after.label
    if e.kind == "rw":
        if e.key in e.before.watches:
            return tr("{q} wrote {key} after {p} WATCHed it", p=p, q=q, key=key)
        return tr("{p} read {key} before {q} wrote it", p=p, q=q, key=key)
    if e.kind == "wr":
        return tr("{q} read {key} after {p} wrote it", p=p, q=q, key=key)
    if e.after.replaced(e.key):
        return tr("{q} overwrote {p}'s write to {key}", q=q, p=p, key=key)
    return tr("{q} wrote {key} after {p}", p=p, q=q, key=key)


def _abort_text(a: Anomaly) -> str:
    """An aborted EXEC that no dependency on a key explains, in the server's terms."""
    assert a.abort is not None
    watch, exec_, culprit = a.abort
    q = exec_.label
    key = show_key(exec_.cause_key) if exec_.cause_key is not None else \
        " ".join(show_key(k) for k in sorted(watch.watches)) if watch is not None else "?"
    after = tr("after {p} WATCHed it", p=watch.label) if watch is not None else tr("after the WATCH")
    if exec_.cause == "expired":
        return tr("WATCHed {key} expired {after} (no client wrote it), so {q}'s EXEC was aborted (nil)",
                  key=key, after=after, q=q)
    if exec_.cause == "flushed" and culprit is not None:
        return tr("{p} changed every key of the database (a flush or SWAPDB) {after}, so {q}'s EXEC was "
                  "aborted (nil)", p=culprit.label, after=tr("after {p}'s WATCH", p=watch.label) if watch else
                  tr("after the WATCH"), q=q)
    if culprit is not None:
        return tr("{p} changed WATCHed {key} {after}, so {q}'s EXEC was aborted (nil)", p=culprit.label, key=key,
                  after=after, q=q)
    return tr("WATCHed {key} changed {after}, so {q}'s EXEC was aborted (nil)", key=key, after=after, q=q)


def explain(a: Anomaly) -> str:
    """Why the anomaly happened, in one sentence built from its proof.

    Args:
        a: the anomaly.
    """
    if a.kind == "double-spend" and len(a.proof) == 2:
        first, second = a.proof
        return tr("{a} and {b} both read {key} before either wrote it ({w1}, {w2}): both acted on the same "
                  "check", a=first.before.label, b=second.before.label, key=show_key(first.key),
                  w1=second.after.label, w2=first.after.label)
    if a.kind == "stale-read" and a.proof and a.between:
        e = a.proof[0]
        return tr("{read}, and {client} still wrote afterwards ({write}) on what it had read",
                  read=edge_text(e), client=e.before.client, write=a.between[2])
    if a.kind == "aborted-exec" and len(a.proof) == 2:
        return tr("{wrote}, so {q}'s EXEC was aborted (nil)", wrote=edge_text(a.proof[0]), q=a.proof[1].after.label)
    if a.kind == "aborted-exec" and a.abort is not None:
        return _abort_text(a)
    if a.proof:
        text = tr(", and ").join(edge_text(e) for e in a.proof)
        if a.kind == "not-atomic" and a.between and a.between[1]:
            return tr("{steps} ran between {first} and {last}: {why}", steps=" ".join(a.between[1]),
                      first=a.between[0], last=a.between[2], why=text)
        return text
    if a.between:
        return tr("{steps} ran between {first} and {last} (the dependency is not on a key: the server's "
                  "state, time or a reply)", steps=" ".join(a.between[1]), first=a.between[0], last=a.between[2])
    return ""


def deciding_text(a: Anomaly) -> str:
    """The anomaly's deciding order in words ("B1 before A2, ...").

    Args:
        a: the anomaly.
    """
    return tr(", ").join(tr("{p} before {q}", p=p, q=q) for p, q in a.deciding)
