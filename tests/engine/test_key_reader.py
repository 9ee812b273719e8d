"""The key inspector's reads: one round trip (a read-only script), the same picture as
the pipelined reads, bounded work, and no disturbance of the clients."""

from playground.engine.key_reader import Inspector
from commands import send


async def fill(pg):
    a = "A"
    for argv in ([b"SET", b"s", b"x" * 100], [b"RPUSH", b"l", *[b"%d" % i for i in range(9)]],
                 [b"SADD", b"set", b"1"], [b"ZADD", b"z", b"1", b"one", b"2", b"two"],
                 [b"HSET", b"h", b"f", b"v"], [b"XADD", b"st", b"1-1", b"k", b"v"],
                 [b"SET", b"ttl", b"v", b"EX", b"100"], [b"SET", b"bin\x00\xff", b"\x01"]):
        await send(pg, a, argv)


async def test_script_and_pipeline_agree(pg):
    await fill(pg)
    inspector = pg.reader
    via_script = await inspector.snapshot()
    assert inspector._script_ok is True
    piped_reader = Inspector(pg.address)
    await piped_reader.connect()
    piped_reader._script_ok = False  # as on a server without EVAL_RO
    piped = await piped_reader.snapshot()
    await piped_reader.close()
    strip = lambda snap: [(k.name, k.type, k.size, k.preview, k.pttl > 0) for k in snap.keys]  # noqa: E731
    assert strip(via_script) == strip(piped)
    assert via_script.total == 8 and via_script.more == 0
    by_name = {k.name: k for k in via_script.keys}
    assert by_name[b"s"].preview.endswith("…") and by_name[b"s"].size == 100
    assert by_name[b"l"].preview == '["0", "1", "2", "3", "4", …]'
    assert by_name[b"h"].preview == '{"f": "v"}'
    assert by_name[b"bin\x00\xff"].preview == '"\\x01"'
    assert 0 < by_name[b"ttl"].pttl <= 100_000


async def test_one_round_trip_and_no_writes(pg):
    await fill(pg)
    inspector = Inspector(pg.address)
    await inspector.connect()
    await inspector.snapshot()  # loads the script once
    before = await send(pg, "B", [b"INFO", b"commandstats"])
    await send(pg, "A", [b"WATCH", b"s"])
    await inspector.snapshot()
    after = await send(pg, "B", [b"INFO", b"commandstats"])
    calls = lambda info: {line.split(":")[0]: int(line.split("calls=")[1].split(",")[0])  # noqa: E731
                          for line in bytes(info).decode().splitlines() if line.startswith("cmdstat_")}
    grown = {k: calls(after)[k] - calls(before).get(k, 0) for k in calls(after)}
    assert grown.get("cmdstat_evalsha_ro") == 1
    assert not pg.session("A").state.dirty  # the inspector's reads never dirty a WATCH
    await pg.refresh_states()
    assert not pg.session("A").state.dirty
    await inspector.close()


async def test_bounded_with_many_keys(pg):
    await send(pg, "A", [b"EVAL", b"for i = 1, 5000 do redis.call('SET', 'k:' .. i, i) end", b"0"])
    snap = await pg.reader.snapshot()
    assert len(snap.keys) == pg.reader.cap and snap.total == 5000 and snap.more != 0
    assert [k.name for k in snap.keys] == sorted(k.name for k in snap.keys)
