"""What a command line does, for everyone who must know: which keys it reads and writes,
whether it blocks and for how long, whether it depends on time, runs a script or
changes the server's own state.

Built from the server itself: COMMAND INFO, asked once per command name and kept for
the server's lifetime (`Playground.catalogue`), gives the command's flags (`blocking`,
`readonly`, `movablekeys` ...) and its key specifications: where the keys are (an
index, a keyword, a key count) and what is done to each (RO, RW, OW, RM; INCOMPLETE
when the server itself cannot say). Where that metadata is not enough, the corrections
below say what is known instead: tests/engine/test_catalogue.py checks the answers on each
server, tests/explore/test_explorer_claims.py the interleavings whose outcomes a reduction
trusting the metadata (or COMMAND GETKEYS) alone would merge.

Unknown is always the safe side: `Effect.reads`/`writes` of None means "any key", and
an `Effect.anything` line (a script, FLUSHALL, CONFIG SET, a command that depends on
time, one the server does not describe) conflicts with every line that touches a key.
Keys are compared by name whatever database each client selected (SELECT itself is
`anything`): two clients in different databases may be taken to share a key they do
not share, never the other way round.

No Textual here, and no I/O but `Catalogue.learn`; COMMAND INFO is read in
engine/command_info.py.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from playground.engine.command_info import (
    CommandInfo,
    parse_command_info,
    spec_keys,
    spec_positions,
)
from playground.resp.replies import Array, Bulk, Err, Int, Map, Nil, Reply, Status

# -- corrections: what COMMAND INFO does not say ----------------------------------------

SCRIPT_COMMANDS = {b"eval": False, b"evalsha": False, b"fcall": False,
                   b"eval_ro": True, b"evalsha_ro": True, b"fcall_ro": True}
"""Every command that runs a script or function: name -> read-only. A script may use
keys it does not declare (and call TIME, or set a TTL): its keys are unknown. And it
holds the server while it runs: another client's every command, a PING included, waits
for it or gets BUSY (`Effect.everyone`)."""

EFFECT_MEMO = 10_000
"""Lines whose effect `Catalogue.effect` keeps (then it forgets them all and starts again)."""

OWN_STATE_ONLY = frozenset((b"ping", b"echo", b"multi", b"discard", b"unwatch"))
"""Key-less commands that touch nothing another client could see (every other key-less
command, KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSHALL, INFO, ..., may touch any key)."""

TIME_DEPENDENT = frozenset((
    b"setex", b"psetex", b"getex", b"expire", b"pexpire", b"expireat", b"pexpireat", b"persist",
    b"ttl", b"pttl", b"expiretime", b"pexpiretime", b"restore", b"time", b"object|idletime", b"object|freq",
    b"hexpire", b"hpexpire", b"hexpireat", b"hpexpireat", b"hpersist", b"httl", b"hpttl",
    b"hexpiretime", b"hpexpiretime", b"hgetex", b"hsetex",
    b"xpending", b"xinfo", b"xclaim", b"xautoclaim"))
"""Commands whose effect or reply depends on when they run (a TTL set, read or
removed; a stream's idle times, read or claimed by: XPENDING, XINFO, XCLAIM and
XAUTOCLAIM's min-idle-time; OBJECT IDLETIME and FREQ, named `command|subcommand`): between
two of them time may pass (a `sleep` step, a blocking timeout), so they are ordered
against everything. SET is one only with EX/PX/EXAT/PXAT (`_SET_TTL_OPTIONS`). Those that also write (a flag of
COMMAND INFO's) set, change or remove a key's time to live (`Catalogue.ttl_keys`)."""

CLOCK_FIELDS = frozenset((b"idle", b"seen-time", b"active-time", b"inactive", b"delivery-time"))
"""Fields of a reply in field/value pairs whose value is a reading of the clock (XINFO
CONSUMERS' idle and inactive, XINFO STREAM FULL's seen-time, active-time and a pending
entry's delivery time): it differs from run to run (`clock_free`)."""
CLOCK_MASK = Status("(integer) …".encode())
"""What a reading of the clock is compared (and shown) as, where a reply holds one."""
_SET_TTL_OPTIONS = frozenset((b"ex", b"px", b"exat", b"pxat"))

SERVER_STATE = frozenset((b"function", b"script", b"config", b"select", b"swapdb", b"client", b"acl",
                          b"module", b"debug", b"slowlog", b"latency", b"memory", b"migrate",
                          b"replicaof", b"slaveof", b"failover", b"shutdown", b"reset", b"hello",
                          b"cluster", b"readonly", b"readwrite", b"auth", b"save", b"bgsave",
                          b"bgrewriteaof", b"lastsave"))
"""Commands that read or change the server's (or the connection's) own state, not a key:
loaded functions and scripts, configuration, the selected database, clients."""

LOADS_SCRIPTS = frozenset(SCRIPT_COMMANDS) | frozenset((b"script", b"function", b"debug", b"module", b"replicaof",
                                                     b"slaveof", b"failover", b"cluster", b"restore"))
"""Commands after which the server may hold a cached script or a loaded function (EVAL
caches what it runs; SCRIPT LOAD, FUNCTION LOAD or RESTORE; DEBUG RELOAD, a module, a
replication or RESTORE bring whatever they bring): only after one of them does a fresh
start need SCRIPT FLUSH and FUNCTION FLUSH (each rebuilds the server's Lua: ~0.2 ms
of its CPU, most of what a short schedule costs it). MULTI's queued lines count one
by one."""

ACTS_ON_CLIENTS = frozenset((b"client", b"acl"))
"""Commands that act on connections, their own or other clients' (CLIENT KILL, PAUSE,
UNBLOCK, REPLY, NO-EVICT ...; ACL DELUSER/SETUSER disconnect the user's clients): what
another client's next line gets (a reply, a lost connection, a wait) may depend on
their order, whatever keys the lines touch, so they are ordered against every line of
every other client (`Effect.everyone`), a PING included."""

CLOSES_OWN_CONNECTION = {b"client": frozenset((b"kill",)), b"acl": frozenset((b"deluser", b"setuser", b"load"))}
"""Commands after whose reply the server may close the sender's own connection: CLIENT
KILL that matches the sender (SKIPME no, its own ID, ADDR, USER ...), ACL DELUSER or
ACL LOAD of its own user, ACL SETUSER that takes channels from its user while it is
subscribed (command -> subcommands). The server reads nothing more of such a
connection (flagged `c`, close after reply), so a line the client sends next does
not run; whether it was closed is asked of the server (`Playground.closed_by_own_line`)."""

WRITES_THOUGH_READONLY = frozenset((b"pfcount",))
"""Flagged `readonly`, yet they write: PFCOUNT stores the HyperLogLog's cardinality in
the key (its key spec says RW; servers without key specs only say readonly)."""

NOTHING_WRITTEN_NIL = frozenset((b"set", b"getdel", b"getex", b"lpop", b"rpop", b"spop", b"lmove",
                                 b"rpoplpush"))
"""Write commands whose nil reply says they changed nothing (SET's NX or XX condition
unmet; nothing to pop, move or delete): SET with GET answers the old value, nil also
when it wrote, so it is not one of them (`wrote_nothing`)."""
NOTHING_WRITTEN_ZERO = frozenset((b"setnx", b"msetnx", b"hsetnx", b"renamenx", b"copy", b"move", b"smove",
                                  b"persist", b"expire", b"pexpire", b"expireat", b"pexpireat",
                                  b"lpushx", b"rpushx", b"del", b"unlink", b"hdel", b"srem", b"zrem",
                                  b"lrem", b"sadd", b"xdel"))
"""Write commands whose reply 0 says they changed nothing (a condition unmet, no such
key, member or field). Checked against the server's own key events in
tests/engine/test_attribution.py."""


SUBSCRIBES = {b"subscribe": "channels", b"psubscribe": "patterns", b"ssubscribe": "shard"}
"""Commands that turn the connection into a stream of messages (RESP2: then only these,
PING, QUIT and RESET are allowed), and what each subscribes to; UNSUBSCRIBES leave it when
the last subscription goes. Each answers with one frame a channel, named as the command is.
The server flags all six `pubsub` and `noscript` (PUBLISH, PUBSUB: `pubsub` only), which
tests/engine/test_catalogue.py checks on each server."""
UNSUBSCRIBES = {b"unsubscribe": "channels", b"punsubscribe": "patterns", b"sunsubscribe": "shard"}
SUBSCRIBE_FAMILY = frozenset(SUBSCRIBES) | frozenset(UNSUBSCRIBES)


def wrote_nothing(argv: Sequence[bytes], reply: object) -> bool:
    """Does this reply of a write command say it changed nothing? Where the server
    cannot tell who wrote (no key events: a topology, a --url server), a SET NX that
    lost is no write of its client's (a value it did not set arrived by replication)."""
    name = bytes(argv[0]).lower() if argv else b""
    if reply is Nil and name in NOTHING_WRITTEN_NIL:
        return not (name == b"set" and any(bytes(a).lower() == b"get" for a in argv[3:]))
    return isinstance(reply, Int) and int(reply) == 0 and name in NOTHING_WRITTEN_ZERO


BLOCK_TIMEOUT_AT = {b"blpop": -1, b"brpop": -1, b"brpoplpush": -1, b"blmove": -1, b"bzpopmin": -1,
                    b"bzpopmax": -1, b"blmpop": 1, b"bzmpop": 1, b"wait": -1, b"waitaof": -1}
"""Commands that may block, and which argument holds the timeout (XREAD and XREADGROUP
block only with BLOCK ms). WAIT and WAITAOF count milliseconds, the others seconds.
Every command the servers flag `blocking` is here (a test checks it); Redis 7.0 does
not flag WAIT."""
_MILLISECONDS = frozenset((b"wait", b"waitaof"))


@dataclass(frozen=True)
class Effect:
    """What one command line does. `reads`/`writes`: key names (None: any key)."""

    reads: frozenset[bytes] | None = frozenset()
    writes: frozenset[bytes] | None = frozenset()
    blocks: bool = False
    timeout: float | None = None      # seconds a blocking line waits at most; None: for ever
    time: bool = False                # depends on when it runs
    script: bool = False
    server_state: bool = False
    everyone: bool = False            # ordered against every line of another client (ACTS_ON_CLIENTS, scripts)

    @property
    def anything(self) -> bool:
        """May write any key, or depends on time or the server's state: ordered against
        every line that touches a key."""
        return self.written is None

    @property
    def touched(self) -> frozenset[bytes] | None:
        """Every key read or written (None: any)."""
        written = self.written
        if self.reads is None or written is None:
            return None
        return self.reads | written

    @property
    def written(self) -> frozenset[bytes] | None:
        """Every key written (None: any; also for a line that depends on time or the
        server's state, which the order of any other line may change)."""
        if self.writes is None or self.time or self.server_state:
            return None
        return self.writes

    def conflicts(self, other: Effect) -> bool:
        """Could the two lines, run by different clients, end differently in the other order?"""
        if self.everyone or other.everyone:
            return True
        return _meets(self.written, other.touched) or _meets(other.written, self.touched)


def _meets(a: frozenset[bytes] | None, b: frozenset[bytes] | None) -> bool:
    if a is None:
        return b is None or bool(b)
    if b is None:
        return bool(a)
    return not a.isdisjoint(b)


NOTHING = Effect()
ANYTHING = Effect(reads=None, writes=None)


def block_timeout(argv: Sequence[bytes]) -> float | None:
    """Seconds a blocking command waits at most: 0.0 for ever; None when the line does
    not block (or its timeout cannot be read, which its callers treat as for ever)."""
    if not argv:
        return None
    cmd = bytes(argv[0]).lower()
    try:
        if cmd in (b"xread", b"xreadgroup"):
            words = [bytes(a).lower() for a in argv]
            if b"block" not in words:
                return None
            return max(int(argv[words.index(b"block") + 1]) / 1000, 0.0)
        at = BLOCK_TIMEOUT_AT.get(cmd)
        if at is None or len(argv) < 2:
            return None
        value = float(argv[at])
        return max(value / 1000 if cmd in _MILLISECONDS else value, 0.0)
    except (ValueError, IndexError):
        return None


def may_block(argv: Sequence[bytes]) -> bool:
    """Whether the line is one that may block (from its arguments alone)."""
    if not argv:
        return False
    cmd = bytes(argv[0]).lower()
    if cmd in (b"xread", b"xreadgroup"):
        return any(bytes(a).lower() == b"block" for a in argv[1:])
    return cmd in BLOCK_TIMEOUT_AT


def may_close_own_connection(argv: Sequence[bytes]) -> bool:
    """Whether the server may close the sender's connection after this line's reply
    (CLOSES_OWN_CONNECTION)."""
    if len(argv) < 2:
        return False
    subcommands = CLOSES_OWN_CONNECTION.get(bytes(argv[0]).lower())
    return subcommands is not None and bytes(argv[1]).lower() in subcommands


def may_load_scripts(argv: Sequence[bytes]) -> bool:
    """Whether the line may leave a script cached or a function loaded (LOADS_SCRIPTS)."""
    return bool(argv) and bytes(argv[0]).lower() in LOADS_SCRIPTS


def script_run(argv: Sequence[bytes]) -> tuple[str, bytes | None] | None:
    """The script a line runs or loads (EVAL, EVAL_RO, EVALSHA, EVALSHA_RO, SCRIPT LOAD):
    (its SHA1 as the server names it, its source; None where the line gives only the
    SHA); None for any other line."""
    if not argv:
        return None
    cmd = bytes(argv[0]).lower()
    if cmd in (b"eval", b"eval_ro") and len(argv) > 1:
        return hashlib.sha1(bytes(argv[1])).hexdigest(), bytes(argv[1])
    if cmd == b"script" and len(argv) > 2 and bytes(argv[1]).lower() == b"load":
        return hashlib.sha1(bytes(argv[2])).hexdigest(), bytes(argv[2])
    if cmd in (b"evalsha", b"evalsha_ro") and len(argv) > 1:
        return bytes(argv[1]).decode("ascii", "replace").lower(), None
    return None


def depends_on_time(argv: Sequence[bytes]) -> bool:
    """Whether the line sets, reads or removes a TTL, reads the clock, or blocks with a
    timeout (from its arguments alone; a script is not looked into: see `Effect.time`)."""
    if not argv:
        return False
    name = bytes(argv[0]).lower()
    if name in TIME_DEPENDENT or bool(block_timeout(argv)):
        return True
    if len(argv) > 1 and name + b"|" + bytes(argv[1]).lower() in TIME_DEPENDENT:
        return True
    return name == b"set" and any(bytes(a).lower() in _SET_TTL_OPTIONS for a in argv[3:])


TTL_READS = frozenset((b"ttl", b"pttl", b"expiretime", b"pexpiretime"))
"""Commands that only read a key's time to live (or its absolute expiry)."""


def ttl_read(argv: Sequence[bytes]) -> bytes | None:
    """The key whose time to live the line only reads (TTL, PTTL, EXPIRETIME,
    PEXPIRETIME), or None."""
    if len(argv) == 2 and bytes(argv[0]).lower() in TTL_READS:
        return bytes(argv[1])
    return None


_TTL_SCALE = {b"setex": 1.0, b"psetex": 0.001, b"expire": 1.0, b"pexpire": 0.001}


def ttl_set(argv: Sequence[bytes]) -> tuple[bytes, float] | None:
    """(key, seconds) when the line gives a key a time to live from now (SETEX, PSETEX,
    EXPIRE, PEXPIRE, SET ... EX/PX); None for any other line, or one whose TTL is no number."""
    name = bytes(argv[0]).lower() if len(argv) > 2 else b""
    try:
        if name in _TTL_SCALE:
            return bytes(argv[1]), float(argv[2]) * _TTL_SCALE[name]
        words = [bytes(a).lower() for a in argv[3:]] if name == b"set" else []
        for option, scale in ((b"ex", 1.0), (b"px", 0.001)):
            if option in words:
                return bytes(argv[1]), float(argv[3 + words.index(option) + 1]) * scale
    except (IndexError, ValueError):
        return None
    return None


def clock_free(argv: Sequence[bytes], reply: Reply) -> Reply:
    """`reply` with every reading of the clock in it replaced by CLOCK_MASK, for a line
    whose output holds some (`Catalogue.clock_output`): an integer reply that is not
    negative (TTL's -1 and -2 say something), the values of CLOCK_FIELDS, and the time in
    each pending entry (XPENDING's `[id, consumer, idle, deliveries]`, XINFO STREAM
    FULL's `pending` entries: the one before the delivery count)."""
    if isinstance(reply, Int):
        return CLOCK_MASK if int(reply) >= 0 else reply
    name = bytes(argv[0]).lower() if argv else b""
    if name == b"xpending" and len(argv) > 3 and isinstance(reply, Array):
        return Array(_entry_clock_free(e) for e in reply)
    return _fields_clock_free(reply)


def _entry_clock_free(entry: Reply) -> Reply:
    """A pending entry, its time (the item before the delivery count) masked."""
    if isinstance(entry, Array) and len(entry) >= 3 and isinstance(entry[-2], Int):
        return Array([*entry[:-2], CLOCK_MASK, entry[-1]])
    return entry


def _fields_clock_free(value: Reply) -> Reply:
    if isinstance(value, Map):
        return Map((k, _field_clock_free(k, v)) for k, v in value)
    if not isinstance(value, Array):
        return value
    pairs = len(value) % 2 == 0 and all(isinstance(k, (Bulk, Status)) for k in value[::2])
    if pairs and value:
        return Array(x for k, v in zip(value[::2], value[1::2], strict=False) for x in (k, _field_clock_free(k, v)))
    return Array(_fields_clock_free(v) for v in value)


def _field_clock_free(field: Reply, value: Reply) -> Reply:
    name = bytes(field).lower() if isinstance(field, (bytes, Bulk, Status)) else b""
    if name in CLOCK_FIELDS and isinstance(value, Int):
        return CLOCK_MASK
    if name == b"pending" and isinstance(value, Array):
        return Array(_entry_clock_free(e) for e in value)
    return _fields_clock_free(value)


def _sort_effect(argv: Sequence[bytes]) -> Effect:
    """SORT/SORT_RO: the sorted key; BY and GET patterns name keys from the sorted
    values (unknown: any key), STORE writes its key. COMMAND GETKEYS names neither."""
    if len(argv) < 2:
        return ANYTHING
    reads_any, writes = False, set()
    i = 2
    while i < len(argv):
        word = bytes(argv[i]).lower()
        if word in (b"by", b"get") and i + 1 < len(argv):
            pattern = bytes(argv[i + 1])
            if (word == b"by" and b"*" in pattern) or (word == b"get" and pattern != b"#"):
                reads_any = True
            i += 2
        elif word == b"store" and i + 1 < len(argv):
            writes.add(bytes(argv[i + 1]))
            i += 2
        elif word == b"limit":
            i += 3
        else:
            i += 1
    return Effect(reads=None if reads_any else frozenset((bytes(argv[1]),)), writes=frozenset(writes))


class CommandReader(Protocol):
    """What the catalogue asks COMMAND INFO over: a connection that runs a pipeline (a
    SideConnection; on a cluster, the inspector's own node)."""

    async def run(self, commands: list[list[bytes]]) -> list[Reply]:
        """Send `commands` as one pipeline; their replies."""
        ...


class Catalogue:
    """Each command's description, asked of the server once per name; `effect` answers
    for a command line from it and the corrections above."""

    def __init__(self, reader: CommandReader | None) -> None:
        self.reader = reader
        self.commands: dict[bytes, CommandInfo | None] = {}
        self.described: set[bytes] = set()
        """The names the server answered COMMAND INFO for: with a description, or with
        none (it has no such command). A name not here is not identified (not asked
        yet, or the server refused to say: NOPERM for a user who may not run COMMAND)."""
        self.not_described: bytes = b""
        """The server's error the last time it would not answer COMMAND INFO (b"": none)."""
        self._asking: dict[bytes, asyncio.Future[None]] = {}   # name -> the answer a task awaits for it
        self._effects: dict[tuple[tuple[bytes, ...], bool], Effect] = {}   # (a described line, time) -> its
        # effect (`effect`:
        # asked again for the same lines at every schedule an exploration runs)

    async def learn(self, names: Iterable[bytes]) -> None:
        """Ask for the names not known yet, in one round trip (a failure leaves them
        unknown until asked again; a name the server does not know stays unknown:
        they conflict with everything). A name another task is asking about already
        is waited for, not asked twice nor taken as unknown meanwhile."""
        wanted = {bytes(n).lower() for n in names}
        new = sorted(wanted - self.commands.keys())
        asked = {self._asking[name] for name in wanted if name in self._asking}
        if new and self.reader is not None:
            answer = asyncio.get_running_loop().create_future()
            self._asking.update(dict.fromkeys(new, answer))
            try:
                await self._ask(new)
            finally:
                for name in new:
                    self._asking.pop(name, None)
                if not answer.done():
                    answer.set_result(None)
        elif new:
            self.commands.update(dict.fromkeys(new))
        for answer in asked:
            if answer.get_loop() is asyncio.get_running_loop():   # (one left by a loop now gone: not waited for)
                await asyncio.shield(answer)

    async def _ask(self, new: list[bytes]) -> None:
        """COMMAND INFO for `new`, each kept (None meanwhile, and for good when the
        user may not ask: NOPERM; forgotten again when the server could not answer)."""
        for name in new:
            self.commands[name] = None
        reply: Reply | None
        try:
            if self.reader is None:  # (no connection yet: as one gone)
                raise ConnectionError("not connected")
            reply, = await self.reader.run([[b"COMMAND", b"INFO", *new]])
        except Exception:  # gone: nothing is known
            reply = None
        except BaseException:  # (cancelled: not asked after all)
            for name in new:
                self.commands.pop(name, None)
            raise
        if not isinstance(reply, Array):  # (busy, loading or gone: ask again next time; NOPERM: never)
            self.not_described = reply.message if isinstance(reply, Err) else b"no reply"
            if not (isinstance(reply, Err) and reply.message.startswith(b"NOPERM")):
                for name in new:
                    self.commands.pop(name, None)
            return
        for name, info in zip(new, reply, strict=False):
            self.commands[name] = parse_command_info(info)
            self.described.add(name)

    def identified(self, typed: bytes) -> bool:
        """Whether the server said what `typed` is (after `learn`): its own command, or
        no command at all (it answers an unknown-command error)."""
        return bytes(typed).lower() in self.described

    def dangerous(self, typed: bytes) -> frozenset[bytes]:
        """The server's @dangerous names ("cmd", "cmd|sub") of the command typed as
        `typed` and its subcommands, from COMMAND INFO (after `learn`)."""
        command = self.commands.get(bytes(typed).lower())
        return command.dangerous if command is not None else frozenset()

    def own_name(self, typed: bytes) -> bytes | None:
        """The server's own name for `typed` (after `learn`; rename-command); None: not known."""
        command = self.commands.get(bytes(typed).lower())
        return command.name if command is not None else None

    async def effects(self, lines: Iterable[Sequence[bytes]]) -> list[Effect]:
        lines = list(lines)
        await self.learn(argv[0] for argv in lines if argv)
        return [self.effect(argv) for argv in lines]

    def effect(self, argv: Sequence[bytes], sleep: float = 0.0) -> Effect:
        """What the line does (after `learn` of its name; an unlearnt name: ANYTHING).
        `sleep`: seconds a scenario step lets pass first (then it depends on time)."""
        if not argv:
            return ANYTHING
        name = bytes(argv[0]).lower()
        timeout = block_timeout(argv)
        blocks = may_block(argv)
        time = bool(sleep) or depends_on_time(argv)
        if name in SCRIPT_COMMANDS:
            return Effect(None, frozenset() if SCRIPT_COMMANDS[name] else None, script=True, time=True,
                          everyone=True)
        if name in SERVER_STATE:
            return Effect(None, None, server_state=True, time=time, everyone=name in ACTS_ON_CLIENTS)
        if name in OWN_STATE_ONLY:
            return Effect(time=time)
        if name in (b"sort", b"sort_ro"):
            found = _sort_effect(argv)
            return Effect(found.reads, found.writes, time=time)
        command = self.commands.get(name)
        if command is None:
            return ANYTHING
        key = (tuple(bytes(a) for a in argv), time)   # (a name's description, once there, stays)
        known = self._effects.get(key)
        if known is None:
            if len(self._effects) >= EFFECT_MEMO:
                self._effects.clear()
            blocks = blocks or (b"blocking" in command.flags and name not in (b"xread", b"xreadgroup"))
            reads, writes = self._keys(command, argv, name)
            known = self._effects[key] = Effect(reads, writes, blocks, timeout if blocks and timeout else None, time)
        return known

    def description(self, argv: Sequence[bytes]) -> CommandInfo | None:
        """The server's description of the line's command (after `learn`): a subcommand's
        own where the line names one the server describes (OBJECT ENCODING, MEMORY USAGE,
        XINFO STREAM: their container has no keys, each of them has), else the command's;
        None: not known."""
        command = self.commands.get(bytes(argv[0]).lower()) if argv else None
        if command is not None and len(argv) > 1 and command.subcommands:
            return command.subcommand(bytes(argv[1]).lower()) or command
        return command

    def writes_unnamed_keys(self, argv: Sequence[bytes]) -> bool:
        """Does the line change keys it does not name, whole databases at once (after
        `learn`)? The server's word: flagged `write`, filed under @keyspace, and no key
        of its own (no key specification, no first key): FLUSHALL, FLUSHDB and SWAPDB on
        both servers (Valkey's CLUSTER FLUSHSLOT too, a subcommand's own description:
        `description`), not MOVE or COPY ... DB (they name their key), SELECT (@connection),
        nor FUNCTION FLUSH (@scripting). tests/engine/test_catalogue.py checks the list on
        each server. After it, nothing known of who wrote which key holds."""
        command = self.description(argv)
        return (command is not None and b"write" in command.flags and b"@keyspace" in command.categories
                and not command.specs and command.first <= 0)

    def key_positions(self, argv: Sequence[bytes]) -> frozenset[int] | None:
        """Where the line's keys are in argv (after `learn`), from the server's key
        specifications (a subcommand's own: `description`): a script's or function's
        declared keys too (EVAL's KEYS). None: cannot tell (no description, an incomplete
        spec, movable keys before 7.0)."""
        command = self.description(argv)
        if command is None:
            return None
        if command.specs is None:
            if command.first <= 0 or command.step <= 0 or b"movablekeys" in command.flags:
                return None if b"movablekeys" in command.flags else frozenset()
            last = command.last if command.last >= 0 else len(argv) + command.last
            return frozenset(range(command.first, min(last, len(argv) - 1) + 1, command.step))
        found: set[int] = set()
        for spec in command.specs:
            positions = spec_positions(spec, argv)
            if positions is None or spec.incomplete:
                return None
            found.update(positions)
        return frozenset(found)

    def clock_output(self, argv: Sequence[bytes]) -> bool:
        """Does the line's reply hold readings of the clock (a TTL, an idle time, OBJECT
        FREQ's decaying counter), which differ from run to run? The server's word that
        its output is nondeterministic (`nondeterministic`, a subcommand's own tips
        included), for a command that depends on time and is given what to read (TTL k,
        PTTL k, OBJECT IDLETIME k, XPENDING, XINFO CONSUMERS ...; not TIME, which takes
        nothing and whose whole reply is the clock, nor SPOP, which is chance). XINFO
        STREAM ... FULL too, which the server does not tip, though it holds seen and
        delivery times. After `learn`."""
        if not argv or len(argv) < 2 or not depends_on_time(argv):
            return False
        words = [bytes(a).lower() for a in argv[:2]]
        full = words == [b"xinfo", b"stream"] and any(bytes(a).lower() == b"full" for a in argv[3:])
        return full or self.nondeterministic(argv) == b"nondeterministic_output"

    def ttl_keys(self, argv: Sequence[bytes]) -> tuple[frozenset[bytes], float | None]:
        """The keys this line may give a time to live (set, change or remove one), and
        how long it gives, in seconds, where the line says (SETEX, PEXPIRE, SET ... PX;
        None: EXPIREAT, GETEX, RESTORE, a TTL from a script ...). A command that depends
        on time (`TIME_DEPENDENT`) and the server flags `write`, or SET with EX/PX/EXAT/
        PXAT; a script: the keys it declares. After `learn`."""
        if not argv:
            return frozenset(), None
        name = bytes(argv[0]).lower()
        if name in SCRIPT_COMMANDS:
            try:
                count = int(argv[2]) if len(argv) > 2 else 0
            except ValueError:
                count = 0
            return frozenset(bytes(k) for k in argv[3:3 + max(count, 0)]), None
        command = self.commands.get(name)
        if not depends_on_time(argv) or block_timeout(argv) or command is None:
            return frozenset(), None
        if name != b"set" and b"write" not in command.flags:
            return frozenset(), None
        _, writes = self._keys(command, argv, name)
        given = ttl_set(argv)
        return frozenset(writes or ()), given[1] if given else None

    def nondeterministic(self, argv: Sequence[bytes]) -> bytes | None:
        """The server's word that the line's result may differ from run to run (after
        `learn`): its tip `nondeterministic_output` (SPOP, SRANDMEMBER, RANDOMKEY, TIME,
        XADD ...: the reply, and what it writes), `nondeterministic_output_order`
        (SMEMBERS, HGETALL, KEYS: the order of the reply's elements), or None. XADD is
        random only with an id the server takes from its clock (`*`; `<ms>-*` numbers the
        entries of that millisecond in order)."""
        if not argv:
            return None
        name = bytes(argv[0]).lower()
        command = self.commands.get(name)
        if command is None:
            return None
        if name == b"xadd" and not any(bytes(a) == b"*" for a in argv[2:]):
            return None
        tips = command.tips | (self.description(argv) or command).tips   # OBJECT IDLETIME: its own tips too
        for tip in (b"nondeterministic_output", b"nondeterministic_output_order"):
            if tip in tips:
                return tip
        return None

    @staticmethod
    def _keys(command: CommandInfo, argv: Sequence[bytes],
              name: bytes) -> tuple[frozenset[bytes] | None, frozenset[bytes] | None]:
        if command.specs is None:    # before key specs: first, last, step and the readonly flag
            if command.first <= 0 or command.step <= 0 or b"movablekeys" in command.flags:
                return None, None
            last = command.last if command.last >= 0 else len(argv) + command.last
            if command.first >= len(argv) or last >= len(argv) or last < command.first:
                return None, None
            named = frozenset(bytes(k) for k in argv[command.first:last + 1:command.step])
            written = b"readonly" not in command.flags or name in WRITES_THOUGH_READONLY
            return named, named if written else frozenset()
        if not command.specs:        # no keys at all: it may read any (DBSIZE, KEYS, SCAN), or write any
            return None, (frozenset() if b"readonly" in command.flags else None)   # (FLUSHALL)
        reads: set[bytes] = set()
        writes: set[bytes] = set()
        for spec in command.specs:
            keys = spec_keys(spec, argv)
            if keys is None or spec.incomplete:
                return None, None
            reads.update(keys)
            if spec.writes or name in WRITES_THOUGH_READONLY or command.undeclared_writes:
                writes.update(keys)
        return frozenset(reads), frozenset(writes)
