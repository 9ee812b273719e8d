"""`repl` as fast as redis-cli and still exact: pipelined lines keep every client's order
and the exact output; big replies are read and written in pieces; "(N.NNs)" counts the
server's time only; long status lines are accepted. (The differences redis-cli shows on
its own are in the goldens: tests/golden/cases.)"""

import pytest
import io
import re
import tracemalloc

from playground.cli.repl import run_repl
from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.resp.cli_format import render, render_chunks
from playground.resp.replies import Array, Bulk, Int
from timing_lines import timing_dropped



async def repl(private_server, text: bytes, code: int = 0) -> tuple[bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    got = await run_repl(Playground(server=private_server), stdin=io.BytesIO(text), stdout=out, stderr=err)
    assert got == code, err.getvalue()
    return out.getvalue(), err.getvalue()


class CountingPipelines:
    """Counts the lines that went through Executor.run_pipelined (the real method runs)."""

    def __init__(self, monkeypatch):
        self.lines = 0
        self.runs = []
        real = Executor.run_pipelined

        async def counted(executor, lines, overlap=True, settle_last=False):
            self.lines += len(lines)
            self.runs.append((len(lines), settle_last))
            return await real(executor, lines, overlap, settle_last)

        monkeypatch.setattr(Executor, "run_pipelined", counted)


async def test_pipelined_lines_keep_order_across_clients(private_server, monkeypatch):
    """A's runs are sent ahead, but B's line waits for the A lines before it (it reads
    what they wrote) and A's next run waits for B's: the output is as line by line."""
    counter = CountingPipelines(monkeypatch)
    lines = []
    expected = []
    for i in range(300):
        lines.append(b"A> INCR n")
        expected.append(b"(integer) %d\n" % (2 * i + 1))
        lines.append(b"A> INCR n")
        expected.append(b"(integer) %d\n" % (2 * i + 2))
        if i % 50 == 49:  # B reads what A just wrote, then writes what A reads next
            lines.append(b"B> GET n")
            expected.append(b'"%d"\n' % (2 * i + 2))
            lines.append(b"B> SET flag %d" % i)
            expected.append(b"OK\n")
            lines.append(b"A> GET flag")
            expected.append(b'"%d"\n' % i)
    out, _ = await repl(private_server, b"\n".join(lines) + b"\n")
    assert out == b"".join(expected)
    assert counter.lines == len(lines)  # every line here could be pipelined, and was


async def test_a_blocking_line_in_the_middle_stops_pipelining(private_server, monkeypatch):
    """BLPOP goes alone (it may wait for B); the lines around it are still pipelined and
    everything prints in input order, errors included."""
    counter = CountingPipelines(monkeypatch)
    text = (b"A> SET k 1\nA> INCR k\nA> LPUSH k x\nA> BLPOP q 0\nB> RPUSH q job\n"
            b"B> GET k\nA> INCR k\nA> HSET\nA> GET k\n")
    out, _ = await repl(private_server, text)
    assert timing_dropped(out) == (
        b"OK\n(integer) 2\n(error) WRONGTYPE Operation against a key holding the wrong kind of value\n"
        b'(integer) 1\n1) "q"\n2) "job"\n"2"\n(integer) 3\n'
        b"(error) ERR wrong number of arguments for 'hset' command\n\"3\"\n")
    assert 0 < counter.lines < 9  # BLPOP was not pipelined, others were


async def test_repeat_counts_are_pipelined_exactly(private_server):
    out, _ = await repl(private_server, b"MULTI\n3000 INCR n\nEXEC\nGET n\n")
    lines = out.split(b"\n")
    assert lines[0] == b"OK" and lines[1:3001] == [b"QUEUED"] * 3000
    assert lines[3001] == b"   1) (integer) 1" and lines[6000] == b"3000) (integer) 3000"
    assert lines[6001:] == [b'"3000"', b""]


async def test_status_line_longer_than_16_mib_is_printed(private_server):
    """redis-cli prints a 17 MB status line from a script (it used to be refused)."""
    script = b"EVAL \"return {ok=string.rep('y', 17000000)}\" 0\nPING\n"
    out, _ = await repl(private_server, script)
    assert timing_dropped(out) == b"y" * 17_000_000 + b"\nPONG\n"


async def test_big_value_is_printed_exactly(private_server):
    """12 MB with every byte value (escapes everywhere), made by the server itself."""
    make = (b"EVAL \"local s={} for i=0,255 do s[#s+1]=string.char(i) end "
            b"redis.call('SET','big',string.rep(table.concat(s),48000)..'tail') return 1\" 0\n")
    out, _ = await repl(private_server, make + b"GET big\nPING\n")
    value = bytes(range(256)) * 48_000 + b"tail"
    assert timing_dropped(out) == b"(integer) 1\n" + render(Bulk(value)) + b"PONG\n"


def test_rendering_in_pieces_needs_memory_of_a_piece_not_of_the_value():
    value = Bulk(b"\x00\xff" * 10_000_000)  # 20 MB that renders to 80 MB
    reply = Array([Int(1), value, Bulk(b"x")])
    tracemalloc.start()
    try:
        total = 0
        for piece in render_chunks(reply):
            total += len(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == 15 + 4 + 80_000_000 + 2 + 7  # '1) (integer) 1\n2) "…"\n3) "x"\n'
    assert peak < 24_000_000  # a few MiB pieces, never the 80 MB rendering
    assert b"".join(render_chunks(reply)) == render(reply)


@pytest.mark.slow
async def test_timing_counts_the_server_not_our_rendering(private_server):
    """300,000 elements take us a while to parse and render, not the server (LRANGE sends
    them in milliseconds, even on a busy machine): no "(N.NNs)" line after them; a reply the
    server really keeps back 0.6 s gets one. (The list is built first by a script, whose
    own time may show or not: only what follows is asserted.)"""
    build = (b"EVAL \"local t={} for i=1,300000 do t[i]=i end "
             b"for i=1,300000,5000 do redis.call('RPUSH',KEYS[1],unpack(t,i,i+4999)) end return 1\" 1 big\n")
    out, _ = await repl(private_server, build + b"LRANGE big 0 -1\nBLPOP nothing 0.6\n")
    assert re.search(rb"\n300000\) \"300000\"\n\(nil\)\n\(\d+\.\d\ds\)\n$", out), out[-80:]


async def test_a_script_ends_its_run_unless_its_own_clients_line_follows(private_server, monkeypatch):
    """EVAL then A's next line: pipelined together. EVAL then a B line (which may have to
    kill it) or at the end of input: the last line of its run, waited for as a script
    (tests/cli/test_repl.py: a busy one is handed over still running, and B kills it)."""
    counter = CountingPipelines(monkeypatch)
    text = (b"A> EVAL \"return redis.call('INCR', KEYS[1])\" 1 n\nA> GET n\n"
            b"A> EVAL \"return redis.call('INCR', KEYS[1])\" 1 n\nB> GET n\n"
            b"A> EVAL \"return redis.call('INCR', KEYS[1])\" 1 n\n")
    out, _ = await repl(private_server, text)
    assert out == b'(integer) 1\n"1"\n(integer) 2\n"2"\n(integer) 3\n'
    # (EVAL GET EVAL) ends at the EVAL before B's line, (GET EVAL) at the end of input
    assert counter.runs == [(3, True), (2, True)]


def _encode(reply) -> bytes:
    from playground.resp.replies import Err, Nil, Status

    if reply is Nil:
        return b"$-1\r\n"
    if isinstance(reply, Status):
        return b"+" + reply + b"\r\n"
    if isinstance(reply, Err):
        return b"-" + reply.message + b"\r\n"
    if isinstance(reply, Int):
        return b":%d\r\n" % reply
    if isinstance(reply, Bulk):
        return b"$%d\r\n%s\r\n" % (len(reply), reply)
    return b"*%d\r\n" % len(reply) + b"".join(_encode(x) for x in reply)


async def test_replies_read_from_the_buffer_at_once_equal_those_read_line_by_line():
    """A whole reply already buffered is parsed at once (resp/buffer_parser.py);
    one arriving in pieces goes the general way: the same typed replies either way, also
    when `buffered_response` (no coroutine) and `read_response` take turns."""
    import asyncio
    import random

    from playground.resp.connection import MORE, Address, TypedConnection
    from playground.resp.reply_stream import ReplyStream
    from playground.resp.replies import Err, Nil, Status

    rnd = random.Random(16)

    def make(depth=0):
        k = rnd.random()
        if depth < 3 and k < 0.25:
            return Array([make(depth + 1) for _ in range(rnd.randrange(4))])
        return rnd.choice([Nil, Status(b"OK"), Err(b"ERR x y"), Int(rnd.randrange(-9, 99)),
                           Bulk(bytes(rnd.randrange(256) for _ in range(rnd.randrange(12)))), Bulk(b"a\r\nb")])

    replies = [make() for _ in range(400)]
    data = b"".join(_encode(r) for r in replies)
    async def read(conn, taking: bool):
        reply = conn.buffered_response() if taking else MORE
        return reply if reply is not MORE else await conn.read_response()

    for piece, taking in [(p, t) for p in (len(data), 1, 5, 7, 64) for t in (False, True)]:
        stream = ReplyStream()  # (all at once: the fast path; then in small pieces)
        conn = TypedConnection(Address(path="/nowhere"))
        conn.attach(stream)
        async def feed(stream: ReplyStream = stream, piece: int = piece) -> None:
            for start in range(0, len(data), piece):
                stream.feed(data[start:start + piece])
                await asyncio.sleep(0)  # the reader runs between pieces: often mid-reply
            stream.feed_eof()

        feeding = asyncio.ensure_future(feed())
        got = [await read(conn, taking) for _ in replies]
        await feeding
        assert got == replies
        assert [type(x) for x in got] == [type(x) for x in replies]
