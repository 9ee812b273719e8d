"""One per-type value reader (engine/value_reads.py), whole or bounded, on both servers;
the explorer's snapshots, the scenario checks and the inspector's detail view ask it."""

from playground.engine.value_reads import SIZE, TYPES, read_value

SETUP = [[b"RPUSH", b"list", *[b"%d" % i for i in range(10)]],
         [b"SADD", b"set", *[b"m%d" % i for i in range(10)]],
         [b"HSET", b"hash", *[x for i in range(10) for x in (b"f%d" % i, b"%d" % i)]],
         [b"ZADD", b"zset", *[x for i in range(10) for x in (b"%d" % i, b"z%d" % i)]],
         [b"SET", b"string", b"0123456789"]]


async def test_whole_and_bounded_reads_of_every_type(pg):
    await pg.admin.run(SETUP + [[b"XADD", b"stream", b"%d-1" % i, b"n", b"%d" % i] for i in range(1, 11)])
    types = await pg.reader.run([[b"TYPE", t.encode()] for t in TYPES])
    assert [bytes(t).decode() for t in types] == list(TYPES)   # one reader for each type the server names
    for type_ in TYPES:
        key = type_.encode()
        size, whole, first = await pg.reader.run([[SIZE[type_], key], read_value(type_, key),
                                                  read_value(type_, key, items=3, nbytes=3)])
        assert size == 10 and len(whole) == (20 if type_ in ("hash", "zset") else 10)
        if type_ == "string":
            assert (bytes(whole), bytes(first)) == (b"0123456789", b"012")
        elif type_ in ("set", "hash"):          # a first SCAN page: [cursor, items]
            assert len(first) == 2
        else:
            assert len(first) == (6 if type_ == "zset" else 3)
    assert read_value("none", b"k") is None and read_value("none", b"k", items=3) is None


def test_the_readers_ask_the_one_table():
    from playground.engine import key_detail
    from playground.explore import snapshot
    from playground.scenario import checks

    assert not hasattr(snapshot, "_READS") and not hasattr(key_detail, "_SIZE")
    assert checks.READS["list"](b"k") == read_value("list", b"k") and checks.READS["llen"](b"k") == [b"LLEN", b"k"]


async def test_a_keys_detail_is_in_the_interface_language(pg):
    """The key detail view's words (its TTL, memory, size, what is shown) are the
    interface's: in Chinese they were English."""
    from commands import send
    from playground.i18n import set_language

    await send(pg, "A", [b"SADD", b"s", b"a", b"b", b"c"])
    english = await pg.reader.detail(b"s")
    assert (english["ttl"], english["size"], english["shown"]) == ("no expiry", "3 members", "all 3 members")
    assert english["memory"].endswith(" bytes")
    try:
        set_language("zh")
        chinese = await pg.reader.detail(b"s")
    finally:
        set_language("en")
    assert (chinese["ttl"], chinese["size"], chinese["shown"]) == ("不过期", "3 个成员", "全部 3 个成员")
    assert chinese["memory"].endswith(" 字节")
