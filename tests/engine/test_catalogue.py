"""The command catalogue (engine/catalogue.py): what a command line does, as the real
server describes it, with the corrections where its description is not enough."""

from __future__ import annotations

import asyncio

import pytest

from playground.engine.catalogue import (BLOCK_TIMEOUT_AT, CLOSES_OWN_CONNECTION, SUBSCRIBE_FAMILY, SUBSCRIBES,
                                        UNSUBSCRIBES, block_timeout, may_block, may_close_own_connection, ttl_set)
from playground.engine.pipeline import pipelinable

K = frozenset


def argv(line: str) -> tuple[bytes, ...]:
    return tuple(w.encode() for w in line.split())


# line -> (reads, writes) with None for "any key"
KEYS = {
    "GET k": (K({b"k"}), K()),
    "MSET a 1 b 2": (K({b"a", b"b"}), K({b"a", b"b"})),
    "LMOVE a b LEFT RIGHT": (K({b"a", b"b"}), K({b"a", b"b"})),
    "ZUNIONSTORE d 2 a b": (K({b"d", b"a", b"b"}), K({b"d"})),          # a key count
    "XREAD COUNT 2 STREAMS s1 s2 0 0": (K({b"s1", b"s2"}), K()),        # after a keyword
    "WATCH a b": (K({b"a", b"b"}), K()),
    "PFCOUNT h": (K({b"h"}), K({b"h"})),        # flagged readonly, writes the cached cardinality
    # flagged write, its key spec says RO: it moves the group's last-delivered id
    "XREADGROUP GROUP g c COUNT 1 STREAMS s >": (K({b"s"}), K({b"s"})),
    "XCLAIM s g c 0 1-1": (K({b"s"}), K({b"s"})),
    "XAUTOCLAIM s g c 0 0": (K({b"s"}), K({b"s"})),
    "SORT ids STORE out": (K({b"ids"}), K({b"out"})),
    "SORT ids BY w_* STORE out": (None, K({b"out"})),                   # BY reads keys named by values
    "SORT_RO ids GET o_*": (None, K()),
    "SORT ids BY nosort GET #": (K({b"ids"}), K()),
    "KEYS *": (None, K()),
    "DBSIZE": (None, K()),
    "FLUSHALL": (None, None),
    "EVAL x 1 k": (None, None),                 # a script may use keys it does not declare
    "NOSUCHCOMMAND k": (None, None),
}


@pytest.mark.asyncio
async def test_keys_read_and_written_as_the_server_describes_them(pg):
    lines = list(KEYS)
    effects = await pg.catalogue.effects(argv(line) for line in lines)
    assert {line: (e.reads, e.writes) for line, e in zip(lines, effects, strict=True)} == KEYS


@pytest.mark.asyncio
async def test_where_the_keys_are_in_a_line(pg):
    positions = {
        "SET k v EX 10": {1},
        "MSET a 1 b 2": {1, 3},
        "ZUNIONSTORE d 2 a b": {1, 3, 4},
        "XREAD COUNT 2 STREAMS s1 s2 0 0": {4, 5},
        "EVAL x 2 k1 k2 a1": {3, 4},             # a script's declared KEYS, its ARGV not
        "EVALSHA 0123 0 a1": set(),
        "FCALL f 1 k a": {3},
        "PING": set(),
        "OBJECT ENCODING k": {2},                # a subcommand's own key specs (its container has none)
        "MEMORY USAGE k": {2},
        "XINFO STREAM s": {2},
        "CONFIG GET maxmemory": set(),
        "COMMAND GETKEYS GET k": set(),          # the line it asks about is no key of its own
        "NOSUCHCOMMAND k": None,                 # not described: cannot tell
    }
    lines = [argv(line) for line in positions]
    await pg.catalogue.learn(line[0] for line in lines)
    assert {line: pg.catalogue.key_positions(a) for line, a in zip(positions, lines, strict=True)} == positions


@pytest.mark.asyncio
async def test_what_writes_keys_it_does_not_name_is_what_the_server_says(pg):
    """`writes_unnamed_keys` (attribution forgets every writer after one) holds for
    exactly FLUSHALL, FLUSHDB and SWAPDB of every command and subcommand the server
    describes (Valkey's CLUSTER FLUSHSLOT too): not MOVE or COPY ... DB, SELECT, FUNCTION
    FLUSH, SCRIPT FLUSH, KEYS."""
    reply, = await pg.reader.run([[b"COMMAND"]])
    lines = []
    for info in reply:
        name = bytes(info[0]).lower()
        lines.append((name,))
        lines += [(name, bytes(sub[0]).lower().partition(b"|")[2]) for sub in (info[9] if len(info) > 9 else ())]
    await pg.catalogue.learn(line[0] for line in lines)
    found = {b" ".join(line) for line in lines if pg.catalogue.writes_unnamed_keys(line)}
    assert found - {b"cluster flushslot"} == {b"flushall", b"flushdb", b"swapdb"}
    for line in ("MOVE k 1", "COPY a b DB 1", "SELECT 1", "FUNCTION FLUSH", "SCRIPT FLUSH", "KEYS *", "DEL k"):
        assert not pg.catalogue.writes_unnamed_keys(argv(line)), line


@pytest.mark.asyncio
async def test_a_name_another_task_is_asking_about_is_waited_for(pg):
    """Two learners of one name at once: one COMMAND INFO, and neither goes on before
    the answer (the cluster's inspector routes by it: a read sent before would go to
    the wrong node)."""
    from playground.engine.catalogue import Catalogue

    asked = []

    class Counting:
        async def run(self, commands):
            asked.extend(commands)
            return await pg.reader.run(commands)

    catalogue = Catalogue(Counting())

    async def learnt_then_placed():
        await catalogue.learn([b"GET"])
        return catalogue.key_positions(argv("GET k"))

    assert await asyncio.gather(learnt_then_placed(), learnt_then_placed()) == [{1}, {1}]
    assert asked == [[b"COMMAND", b"INFO", b"get"]]


@pytest.mark.asyncio
async def test_time_scripts_server_state_and_blocking(pg):
    cases = {
        # line: (depends on time, script, server state, blocks, timeout)
        "SET k v": (False, False, False, False, None),
        "SET k v PX 500": (True, False, False, False, None),
        "SET k v KEEPTTL": (False, False, False, False, None),
        "PERSIST k": (True, False, False, False, None),
        "GETEX k EX 1800": (True, False, False, False, None),
        "PTTL k": (True, False, False, False, None),
        "EXPIRETIME k": (True, False, False, False, None),
        "EVALSHA abc 0": (True, True, False, False, None),
        "FCALL_RO f 0": (True, True, False, False, None),
        "FUNCTION LOAD x": (False, False, True, False, None),
        "SCRIPT FLUSH": (False, False, True, False, None),
        "CONFIG SET maxmemory 1": (False, False, True, False, None),
        "SELECT 1": (False, False, True, False, None),
        "CLIENT PAUSE 100": (False, False, True, False, None),
        "BLPOP q 0": (False, False, False, True, None),           # for ever: no time involved
        "BLPOP q 1.5": (True, False, False, True, 1.5),
        "BZMPOP 2 1 z MIN": (True, False, False, True, 2.0),
        "XREAD BLOCK 100 STREAMS s $": (True, False, False, True, 0.1),
        "XREAD STREAMS s 0": (False, False, False, False, None),
        "WAIT 0 250": (True, False, False, True, 0.25),
    }
    lines = list(cases)
    effects = await pg.catalogue.effects(argv(line) for line in lines)
    got = {line: (e.time, e.script, e.server_state, e.blocks, e.timeout)
           for line, e in zip(lines, effects, strict=True)}
    assert got == cases
    # what depends on time or the server's state conflicts with any line that touches a key
    get, ttl, ping = await pg.catalogue.effects([argv("GET other"), argv("PTTL k"), argv("PING")])
    assert ttl.conflicts(get) and get.conflicts(ttl) and not ttl.conflicts(ping)


@pytest.mark.asyncio
async def test_a_write_command_whose_key_specs_declare_no_write_writes_every_key_it_names(pg):
    """Found from the server's own facts, not a list: each command flagged `write` with
    key specs none of which writes (on both servers: XREADGROUP) writes its keys."""
    reply, = await pg.reader.run([[b"COMMAND"]])
    under = [info for info in reply if b"write" in {bytes(f) for f in info[2]} and len(info) > 8 and info[8]
             and not any({bytes(f).lower() for f in dict(zip(s[::2], s[1::2], strict=True))[b"flags"]}
                         & {b"rw", b"ow", b"rm", b"variable_flags"} for s in info[8])]
    assert {bytes(info[0]).lower() for info in under} >= {b"xreadgroup"}
    await pg.catalogue.learn(bytes(info[0]) for info in under)
    for info in under:
        assert pg.catalogue.commands[bytes(info[0]).lower()].undeclared_writes


@pytest.mark.asyncio
async def test_a_command_on_connections_is_ordered_against_every_line_of_another_client(pg):
    kill, pause, ping, echo, get = await pg.catalogue.effects(
        [argv("CLIENT KILL USER default"), argv("CLIENT PAUSE 100"), argv("PING"), argv("ECHO x"), argv("GET k")])
    for acts in (kill, pause):
        assert acts.everyone and all(acts.conflicts(o) and o.conflicts(acts) for o in (ping, echo, get))
    assert not ping.conflicts(echo) and not ping.conflicts(get)


@pytest.mark.asyncio
async def test_nondeterministic_results_as_the_server_tips_them(pg):
    lines = {"SPOP s": b"nondeterministic_output", "SRANDMEMBER s": b"nondeterministic_output",
             "RANDOMKEY": b"nondeterministic_output", "HRANDFIELD h": b"nondeterministic_output",
             "TIME": b"nondeterministic_output", "XADD s * f v": b"nondeterministic_output",
             "XADD s 5-* f v": None, "XADD s 1-1 f v": None,
             "SMEMBERS s": b"nondeterministic_output_order", "GET k": None, "SADD s a": None}
    await pg.catalogue.learn(argv(line)[0] for line in lines)
    assert {line: pg.catalogue.nondeterministic(argv(line)) for line in lines} == lines


@pytest.mark.asyncio
async def test_every_command_the_server_flags_blocking_has_its_timeout_place(pg):
    reply, = await pg.reader.run([[b"COMMAND"]])
    blocking = {bytes(info[0]).lower() for info in reply if b"blocking" in {bytes(f) for f in info[2]}}
    assert blocking - {b"xread", b"xreadgroup"} <= set(BLOCK_TIMEOUT_AT)
    assert {b"blpop", b"bzmpop", b"xread"} <= blocking   # the server did answer


@pytest.mark.asyncio
async def test_the_subscribe_family_is_what_the_server_flags_pubsub_and_noscript(pg):
    """Every command the server flags `pubsub` and `noscript` is a (un)subscribe the
    catalogue knows, and no other: a new one would show here. PUBLISH is `pubsub` only."""
    reply, = await pg.reader.run([[b"COMMAND"]])
    flags = {bytes(info[0]).lower(): {bytes(f) for f in info[2]} for info in reply}
    assert {name for name, f in flags.items() if {b"pubsub", b"noscript"} <= f} == SUBSCRIBE_FAMILY
    assert b"pubsub" in flags[b"publish"]
    assert set(SUBSCRIBES.values()) == set(UNSUBSCRIBES.values())   # each kind entered can be left


@pytest.mark.asyncio
async def test_what_may_close_its_own_connection_is_a_subcommand_the_server_has_and_goes_alone(pg):
    """CLIENT KILL, ACL DELUSER ... (after whose reply the server asks whether the
    sender's connection was closed): each a subcommand the server describes, never
    sent ahead of the replies before it; other subcommands, other commands are not."""
    names = [b"%s|%s" % (command, sub) for command, subs in CLOSES_OWN_CONNECTION.items() for sub in subs]
    reply, = await pg.reader.run([[b"COMMAND", b"INFO", *names]])
    assert len(reply) == len(names) and all(isinstance(info, list) and info for info in reply), reply
    for line in ("CLIENT KILL TYPE normal SKIPME no", "client kill 127.0.0.1:1", "ACL DELUSER u", "acl setuser u off"):
        assert may_close_own_connection(argv(line)) and not pipelinable(argv(line)), line
    for line in ("CLIENT ID", "CLIENT", "ACL WHOAMI", "KILL x", "GET k"):
        assert not may_close_own_connection(argv(line)), line


def test_block_timeouts_as_the_server_reads_them():
    assert block_timeout(argv("BLPOP a b 0")) == 0.0          # for ever
    assert block_timeout(argv("BLMPOP 2.5 1 a LEFT")) == 2.5
    assert block_timeout(argv("WAITAOF 1 0 1500")) == 1.5
    assert block_timeout(argv("XREADGROUP GROUP g c BLOCK 0 STREAMS s >")) == 0.0
    assert block_timeout(argv("XREAD STREAMS s 0")) is None and not may_block(argv("XREAD STREAMS s 0"))
    assert block_timeout(argv("GET k")) is None and not may_block(argv("GET k"))
    assert block_timeout(argv("BLPOP q soon")) is None and may_block(argv("BLPOP q soon"))


@pytest.mark.asyncio
async def test_asked_once_per_name(pg):
    sent = []
    pg.reader.on_send = sent.append
    await pg.catalogue.effects([argv("GET a"), argv("SET b 1")])
    await pg.catalogue.effects([argv("GET c"), argv("set d 2")])
    assert [c for batch in sent for c in batch if c[:1] == [b"COMMAND"]] == [[b"COMMAND", b"INFO", b"get", b"set"]]


@pytest.mark.asyncio
async def test_the_ttl_a_line_gives_as_the_server_gives_it(a):
    """ttl_set's seconds are the server's: its PTTL just after the line is at most that
    (and not half of it gone: a unit mistaken, seconds for milliseconds, is 1000 times off)."""
    await a.execute(list(argv("MSET k5 v k6 v")))
    lines = ["SETEX k1 1000 v", "PSETEX k2 1000000 v", "SET k3 v EX 1000", "set k4 v nx px 1000000",
             "EXPIRE k5 1000", "PEXPIRE k6 1000000"]
    for line in lines:
        assert await a.execute(list(argv(line))) in (b"OK", 1), line
        key, seconds = ttl_set(argv(line))
        pttl = await a.execute([b"PTTL", key])
        assert key == argv(line)[1] and seconds == 1000 and seconds * 1000 / 2 < pttl <= seconds * 1000, line
    for line in ("SET k v", "SET k v KEEPTTL", "GET k", "SETEX k soon v", "SET k v EX", "EXPIRE k"):
        assert ttl_set(argv(line)) is None, line
