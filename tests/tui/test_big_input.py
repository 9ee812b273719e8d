"""Bad or huge input from the user: secrets kept off disk, big keys and keyspaces read
in bounded steps, big replies rendered in proportion to their size."""

from __future__ import annotations

import stat
import tomllib

import pytest

from playground.history import History
from playground.resp.cli_lines import format_argv, parse_line
from playground.resp.cli_secrets import is_sensitive, redact
from playground.resp.replies import Bulk, Err, Status
from playground.scenario.loader import load_scenario
from playground.scenario.recorder import Recorder
from commands import send

# -- 1. secrets never on disk ---------------------------------------------------------

# (line, isSensitiveCommand) as redis-cli's own rule decides it
SENSITIVE = [
    ("AUTH s3cret", True),
    ("auth default s3cret", True),
    ("AUTH", True),
    ("3 AUTH s3cret", True),                                   # after the repeat count
    ("ACL SETUSER alice on >pw ~* +@all", True),
    ("ACL GETUSER alice", True),
    ("ACL DELUSER alice", True),
    ("ACL LIST", False),
    ("CONFIG SET requirepass hunter2", True),
    ("CONFIG SET maxmemory 0 requirepass hunter2", True),     # not only the first parameter
    ("config set maxmemory 0 MASTERAUTH x", True),
    ("CONFIG SET maxmemory 0 tls-key-file-pass x", True),
    ("CONFIG SET tls-client-key-file-pass x", True),
    ("CONFIG SET masteruser u", True),
    ("CONFIG SET maxmemory requirepass", False),               # a value, not a parameter name
    ("CONFIG GET requirepass", False),
    ("HELLO 3 AUTH default pw", True),
    ("HELLO 3 SETNAME me AUTH default pw", True),
    ("HELLO 3 AUTH default", False),
    ("HELLO 3 SETNAME me", False),
    ("MIGRATE h 6379 k 0 5000 AUTH pw", True),
    ("MIGRATE h 6379 \"\" 0 5000 AUTH2 u pw KEYS a", True),
    ("MIGRATE h 6379 \"\" 0 5000 KEYS a AUTH pw", False),      # after KEYS: key names
    ("SENTINEL CONFIG SET sentinel-pass pw", True),
    ("SENTINEL SET mymaster auth-pass pw", True),
    ("SET requirepass hunter2", False),
]


@pytest.mark.parametrize("line,expected", SENSITIVE)
def test_sensitive_commands_follow_redis_cli(line, expected):
    assert is_sensitive(parse_line(line).argv) is expected


def test_redaction_replaces_only_the_secret():
    def red(line):
        return format_argv(redact(parse_line(line).argv))
    assert red("AUTH default s3cret") == "AUTH default <secret>"
    assert red("CONFIG SET maxmemory 0 requirepass hunter2") == "CONFIG SET maxmemory 0 requirepass <secret>"
    assert red("HELLO 3 AUTH default pw SETNAME me") == "HELLO 3 AUTH default <secret> SETNAME me"
    assert red("ACL SETUSER alice on >pw ~* +@all") == "ACL SETUSER alice on <secret> ~* +@all"
    assert red("MIGRATE h 6379 k 0 5000 AUTH2 u pw") == "MIGRATE h 6379 k 0 5000 AUTH2 u <secret>"
    assert red("SET k v") == "SET k v"


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_history_keeps_no_secret_and_no_unparsed_line(tmp_path):
    path = tmp_path / "state" / "history-A"
    history = History(path)
    for line in ["SET a 1", "CONFIG SET maxmemory 0 requirepass hunter2", "AUTH default s3cret",
                 "2 AUTH s3cret", "GET a"]:
        history.add(line, parse_line(line).argv)
    history.add('AUTH "unbalanced', None)       # did not parse: not kept at all
    assert history.lines == ["SET a 1", "GET a"]
    assert path.read_text() == "SET a 1\nGET a\n"
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700


def test_an_old_history_file_is_tightened_and_cleaned(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "history-A"
    path.write_text("SET a 1\nCONFIG SET maxmemory 0 requirepass hunter2\nAUTH \"unbalanced\nGET a\n")
    path.chmod(0o644)
    history = History(path)
    assert history.lines == ["SET a 1", "GET a"]
    assert "hunter2" not in path.read_text() and "unbalanced" not in path.read_text()
    assert _mode(path) == 0o600 and _mode(folder) == 0o700


def test_recording_leaves_secrets_out(tmp_path):
    recorder = Recorder()
    for client, line, rendered, reply in [
            ("A", "AUTH default s3cret", "OK\n", Status(b"OK")),
            ("B", "CONFIG SET maxmemory 0 requirepass hunter2", "OK\n", Status(b"OK")),
            ("B", "CONFIG GET requirepass", '1) "requirepass"\n2) "hunter2"\n', None),
            ("A", "GET k", "(nil)\n", None)]:
        recorder.sent(client, line)
        recorder.replied(client, rendered, reply)
    path = recorder.save(tmp_path / "rec", "Secrets", ("A", "B"))
    text = path.read_text()
    assert "s3cret" not in text and "hunter2" not in text
    assert "secret was left out" in text.splitlines()[0]
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700
    steps = load_scenario(path).steps
    assert steps[0].argv == (b"AUTH", b"default", b"<secret>")
    assert steps[1].argv == (b"CONFIG", b"SET", b"maxmemory", b"0", b"requirepass", b"<secret>")
    assert steps[2].reply is None and steps[3].reply == "(nil)"


def test_recording_round_trips_any_text(tmp_path):
    lines = ["SET k 😀", 'SET "\\x00\\x7f" "tab\\there"', "SET 'quote\"d' é"]
    recorder = Recorder()
    for line in lines:
        recorder.sent("A", line)
        recorder.replied("A", '"😀\x7f"\n', Bulk(b"x"))
    recorder.sent("B", "GET nothing")
    recorder.replied("B", "(error) ERR x\n", Err(b"ERR x"))
    path = recorder.save(tmp_path, "Emoji ✓", ("A", "B"))
    tomllib.loads(path.read_text(encoding="utf-8"))
    scenario = load_scenario(path)
    assert scenario.title == "Emoji ✓"
    assert [s.argv for s in scenario.steps[:3]] == [tuple(parse_line(line).argv) for line in lines]
    assert scenario.steps[0].argv == (b"SET", b"k", "😀".encode())
    assert scenario.steps[0].reply == '"😀\x7f"' and scenario.steps[3].error == "ERR"


# -- 5. big replies render in proportion to their size --------------------------------

def reference_escape(byte: int) -> bytes:
    """sdscatrepr's rule for one byte, written out plainly."""
    char = bytes([byte])
    if char in b'\\"':
        return b"\\" + char
    if char in b"\n\r\t\a\b":
        return {b"\n": b"\\n", b"\r": b"\\r", b"\t": b"\\t", b"\a": b"\\a", b"\b": b"\\b"}[char]
    if 0x20 <= byte <= 0x7E:
        return char
    return b"\\x%02x" % byte


REFERENCE = [reference_escape(b) for b in range(256)]


def reference_repr(data: bytes) -> bytes:
    """sdscatrepr byte by byte (the straightforward way the renderer used to take)."""
    return b'"' + b"".join([REFERENCE[b] for b in data]) + b'"'


def test_big_value_with_every_byte_renders_like_redis_cli():
    from playground.resp.cli_format import render, repr_bytes, repr_length
    block = bytes(range(256))
    value = block * (5 * 1024 * 1024 // 256) + b"tail\n"
    expected = reference_repr(value) + b"\n"
    assert render(Bulk(value), [b"GET", b"k"]) == expected
    assert repr_length(value) == len(expected) - 1 == len(repr_bytes(value))
    assert repr_bytes(block) == reference_repr(block)


def _nested_replies():
    from playground.resp.replies import Array, Int, Map, Nil, Set
    big = Bulk(bytes(range(256)) * 3000)
    yield big
    yield Bulk(b"")
    yield Array([Bulk(b"a"), big, Int(7), Array([Bulk(b"x\n"), Nil]), Err(b"ERR bad")])
    yield Map([(Bulk(b"k" * 70), Array([Int(1), Int(2)])), (big, Bulk(b"v")), (Bulk(b"s"), Set([big, Bulk(b"y")]))])
    yield Array([Array([Bulk(b"%d" % i) for i in range(12)]) for _ in range(12)])


@pytest.mark.parametrize("limit", [1, 2, 5, 17, 100, 4096, 65536, 10**9])
def test_render_head_is_a_prefix_and_counts_the_rest(limit):
    from playground.resp.cli_format import render, render_head, tty_length
    for reply in _nested_replies():
        full = render(reply, [b"LRANGE", b"k"])
        head, left = render_head(reply, [b"LRANGE", b"k"], limit)
        assert head == full[:limit]
        assert left == max(0, len(full) - limit)
        assert tty_length(reply) == len(full)
    info = Bulk(b"# Server\r\nredis_version:9\r\n")  # a raw command: cut the same way
    assert render_head(info, [b"INFO"], 10) == (bytes(info)[:10], len(info) - 10)


def test_render_head_of_a_big_value_reads_only_its_start():
    import tracemalloc

    from playground.resp.cli_format import render_head
    reps = 20 * 1024 * 1024 // 256
    value = Bulk(bytes(range(256)) * reps)
    tracemalloc.start()
    head, left = render_head(value, [b"GET", b"k"], 65536)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert head == reference_repr(value[:65536])[:65536]
    per_block = 93 + 7 * 2 + 156 * 4  # plain bytes, \n-style escapes, \xhh escapes
    assert left == 2 + per_block * reps + 1 - 65536
    assert peak < 20 * 1024 * 1024  # far below the 60 MB the whole rendering takes


# -- 3. the detail of a huge key is read in bounded steps -----------------------------

FILL_BIG_KEYS = b"""
local n = tonumber(ARGV[1])
for i = 1, n, 1000 do
  local members, fields, scored, items = {}, {}, {}, {}
  for j = i, math.min(i + 999, n) do
    members[#members + 1] = 'm' .. j
    fields[#fields + 1] = 'f' .. j; fields[#fields + 1] = 'v' .. j
    scored[#scored + 1] = j; scored[#scored + 1] = 'm' .. j
    items[#items + 1] = 'e' .. j
  end
  redis.call('SADD', 'big:set', unpack(members))
  redis.call('HSET', 'big:hash', unpack(fields))
  redis.call('ZADD', 'big:zset', unpack(scored))
  redis.call('RPUSH', 'big:list', unpack(items))
end
redis.call('SETRANGE', 'big:string', 5000000, 'x')
for i = 1, 2000 do redis.call('XADD', 'big:stream', '*', 'n', i) end
return n
"""


async def test_detail_of_huge_keys_is_bounded(pg):
    from playground.engine.key_detail import DETAIL_BYTES, DETAIL_ITEMS
    assert await send(pg, "A", [b"EVAL", FILL_BIG_KEYS, b"0", b"200000"]) == 200000
    reader = pg.reader
    detail = await reader.detail(b"big:set")
    shown = detail["value"].count("\n")
    assert DETAIL_ITEMS // 2 <= shown <= DETAIL_ITEMS
    assert detail["size"] == "200,000 members"
    assert detail["shown"] == f"{shown:,} of 200,000 members (as SSCAN/HSCAN hands them out)"
    detail = await reader.detail(b"big:hash")
    pairs = detail["value"].count("\n") // 2
    assert DETAIL_ITEMS // 2 <= pairs <= DETAIL_ITEMS and detail["size"] == "200,000 fields"
    assert detail["shown"] == f"{pairs:,} of 200,000 fields (as SSCAN/HSCAN hands them out)"
    detail = await reader.detail(b"big:zset")
    assert detail["value"].count("\n") == 2 * DETAIL_ITEMS and detail["value"].startswith('   1) "m1"\n')
    assert detail["shown"] == "first 1,000 of 200,000 members"
    detail = await reader.detail(b"big:list")
    assert detail["value"].count("\n") == DETAIL_ITEMS and detail["shown"] == "first 1,000 of 200,000 elements"
    detail = await reader.detail(b"big:string")
    assert detail["value"] == '"' + "\\x00" * DETAIL_BYTES + '"\n'
    assert detail["shown"] == f"first {DETAIL_BYTES:,} of 5,000,001 bytes"
    detail = await reader.detail(b"big:stream")
    assert detail["shown"] == "first 1,000 of 2,000 entries"
    await send(pg, "A", [b"SADD", b"small", b"x", b"y"])
    detail = await reader.detail(b"small")
    assert detail["shown"] == "all 2 members" and detail["size"] == "2 members"
    assert {line.split(") ", 1)[1] for line in detail["value"].splitlines()} == {'"x"', '"y"'}


# -- 4. a filter finds a key among 200,000, and the header says what is shown ---------

MANY_KEYS = b"for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'key:' .. i, i) end return 1"


async def _reader(pg, how: str):
    from playground.engine.key_reader import Inspector
    reader = Inspector(pg.address)
    await reader.connect()
    if how == "pipelined":
        reader._script_ok = False  # as on a server before 7.0 (no EVAL_RO)
    return reader


@pytest.mark.fresh_server  # (where SCAN finds the key depends on the table's history: a new one's)
@pytest.mark.parametrize("how", ["script", "pipelined"])
async def test_filter_finds_a_key_among_many(pg, how):
    from playground.tui.widgets.key_inspector import summary_line
    await send(pg, "A", [b"EVAL", MANY_KEYS, b"0", b"200000"])
    reader = await _reader(pg, how)
    seen_progress = []
    for _ in range(200_000 // (reader.scan_count * reader.scan_rounds) + 5):  # bounded
        snap = await reader.snapshot(b"key:123457")
        if snap.progress is None:
            break
        seen_progress.append(snap.progress)
        assert not snap.complete and summary_line(snap, "key:123457").startswith(
            f"{len(snap.keys)} key")
        assert "so far (scanning… " in summary_line(snap, "key:123457")
    assert seen_progress and all(0 < p < 1 for p in seen_progress)
    assert seen_progress == sorted(seen_progress)
    assert snap.complete and [k.name for k in snap.keys] == [b"key:123457"]
    assert summary_line(snap, "key:123457") == "1 key matching key:123457 (200,000 in db)"
    assert "%" in f"{seen_progress[0]:.0%}"
    sample = await reader.snapshot(b"*")
    assert len(sample.keys) == reader.cap and not sample.complete and sample.progress is None
    assert summary_line(sample, "*") == "100 of 200,000 keys shown (a sample: SCAN)"
    await reader.close()


@pytest.mark.fresh_server  # (which keys SCAN samples depends on the table's history: a new one's)
@pytest.mark.parametrize("how", ["script", "pipelined"])
async def test_pinned_keys_are_always_read(pg, how):
    from playground.tui.widgets.key_inspector import summary_line
    await send(pg, "A", [b"EVAL", MANY_KEYS, b"0", b"200000"])
    reader = await _reader(pg, how)
    pinned = [b"key:199999", b"key:7", b"missing"]
    snap = await reader.snapshot(b"*", pinned=pinned)
    names = [k.name for k in snap.keys]
    assert b"key:199999" in names and b"key:7" in names and b"missing" not in names
    assert len(names) == reader.cap and names == sorted(names)
    assert {k.name: k.preview for k in snap.keys}[b"key:199999"] == '"199999"'
    snap = await reader.snapshot(b"key:1999??", pinned=pinned)  # pinned keys obey the filter
    names = [k.name for k in snap.keys]
    assert b"key:199999" in names and b"key:7" not in names
    await send(pg, "A", [b"DEL", b"key:199999"])
    snap = await reader.snapshot(b"*", pinned=pinned)
    assert b"key:199999" not in [k.name for k in snap.keys]
    assert summary_line(snap, "*") == "100 of 199,999 keys shown (a sample: SCAN)"
    await reader.close()


@pytest.mark.parametrize("how", ["script", "pipelined"])
async def test_small_keyspace_is_shown_whole(pg, how):
    from playground.tui.widgets.key_inspector import summary_line
    for i in range(10):
        await send(pg, "A", [b"SET", b"other:%d" % i, b"x"])
    await send(pg, "A", [b"SET", b"user:1", b"ada"])
    await send(pg, "A", [b"SET", b"user:2", b"bob"])
    reader = await _reader(pg, how)
    snap = await reader.snapshot(b"*")
    assert snap.complete and len(snap.keys) == 12 and summary_line(snap, "*") == "12 keys"
    snap = await reader.snapshot(b"user:*", pinned=[b"other:1"])
    assert [k.name for k in snap.keys] == [b"user:1", b"user:2"]
    assert summary_line(snap, "user:*") == "2 keys matching user:* (12 in db)"
    await send(pg, "A", [b"EVAL", MANY_KEYS, b"0", b"250"])
    snap = await reader.snapshot(b"key:*")
    assert snap.complete and snap.more == 150
    assert [k.name for k in snap.keys] == sorted(b"key:%d" % i for i in range(1, 251))[:100]
    assert summary_line(snap, "key:*") == "100 of 250 keys matching key:* shown (the first by name; 262 in db)"
    await reader.close()


async def test_glob_match_agrees_with_scan(pg):
    from playground.engine.key_reader import glob_match
    names = [b"user:1", b"user:12", b"user:a", b"hello", b"hallo", b"hxllo", b"h*llo", b"h\nllo",
             b"a[b", b"x-y", b"b", b"\xff\x00"]
    for name in names:
        await send(pg, "A", [b"SET", name, b"v"])
    for pattern in [b"*", b"user:?", b"user:*", b"h[ae]llo", b"h[^e]llo", b"h[a-e]llo", b"h[e-a]llo",
                    b"h\\*llo", b"*[[]*", b"[a-c]", b"x[-]y", b"h?llo", b"\xff*"]:
        reply = await send(pg, "A", [b"SCAN", b"0", b"MATCH", pattern, b"COUNT", b"1000"])
        assert {bytes(k) for k in reply[1]} == {n for n in names if glob_match(pattern, n)}, pattern


@pytest.mark.slow
async def test_inspector_filter_finds_a_key_among_many_in_the_app(server_binary):
    from textual.widgets import Static

    from playground.tui.app import make_app
    from playground.tui.widgets.key_inspector import KeyInspector
    from playground.tui.widgets.key_table import KeyTable
    from pilot import started, type_command, wait_until
    app = make_app(server_binary.path)  # a server of its own: what SCAN samples depends on the table's history
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        await send(app.executor, "B", [b"EVAL", MANY_KEYS, b"0", b"200000"], quiet=True)
        await type_command(pilot, app, "A", "SET zzz:mine 1")  # written by a client: pinned
        inspector = app.mode_screen.query_one(KeyInspector)
        table = inspector.query_one(KeyTable)
        summary = inspector.query_one("#summary", Static)
        # the key A wrote is listed although the SCAN sample is far from it (the
        # inspector reads again once the write is attributed, after the line)
        await wait_until(pilot, lambda: "a sample: SCAN" in str(summary.render())
                         and any(table.row_key(i) == "zzz:mine" for i in range(table.row_count)))
        await pilot.press("f4", "slash")
        await pilot.press(*"key:123457", "enter")
        await wait_until(pilot, lambda: str(summary.render()) == "1 key matching key:123457 (200,001 in db)")
        assert table.row_count == 1 and table.row_key(0) == "key:123457"
