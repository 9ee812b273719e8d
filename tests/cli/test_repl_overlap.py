"""Two clients' pipelined lines overlap only where they commute (engine/commuting.py), and
`repl` stays fast where Python's defaults would slow it down. (That the output is
redis-cli's is the golden case two_clients.prefixed.)"""

import io

from playground.cli.repl import run_repl
from playground.engine.commuting import in_order, waits
from playground.engine.playground import Playground
from playground.resp.connection import TypedConnection


async def waits_of(private_server, text: str) -> list[int]:
    lines = []
    for raw in text.strip().splitlines():
        client, _, command = raw.strip().partition(" ")
        lines.append((client, tuple(w.encode() for w in command.split())))
    async with Playground(server=private_server) as pg:
        return await waits(pg.catalogue, lines)


async def test_a_line_waits_for_the_last_line_of_another_client_it_does_not_commute_with(private_server):
    waits = await waits_of(private_server, """
        A SET k1 x
        B GET k2
        B GET k1
        A INCR n
        B PING
        A DBSIZE
        B GET k3
        A GET k3
        A SET k3 y
        B MSET a 1 k1 2
        A MGET a zz
        A EVAL return 0
        B GET qq
        B SORT list BY w_*
        A GET
    """)
    assert waits == [
        -1,   # 0 A SET k1
        -1,   # 1 B GET k2: another key
        0,    # 2 B GET k1: A's SET k1 wrote it
        -1,   # 3 A INCR n: B only read k2 and k1
        -1,   # 4 B PING: touches nothing
        4,    # 5 A DBSIZE: names no key, so it may read everything: after B's last line
        5,    # 6 B GET k3: after A's DBSIZE
        -1,   # 7 A GET k3: two readers commute
        6,    # 8 A SET k3: B read k3 at 6
        5,    # 9 B MSET a 1 k1 2: keys at odd places (a, k1); A's DBSIZE (5) is later than its SET k1 (0)
        9,    # 10 A MGET a zz: B's MSET wrote a
        9,    # 11 A EVAL: a script may touch any key
        11,   # 12 B GET qq: after A's script
        11,   # 13 B SORT ... BY: reads beyond its key
        13,   # 14 A GET without its key: not placed, so unknown
    ]


def test_in_order_waits_at_every_switch():
    lines = [("A", ()), ("A", ()), ("B", ()), ("B", ()), ("A", ()), ("C", ()), ("A", ())]
    assert in_order(lines) == [-1, -1, 1, 1, 3, 4, 5]


class CountingWrites:
    """Counts the writes of every client connection (the real ones run)."""

    def __init__(self, monkeypatch):
        self.writes = 0
        real = TypedConnection.send_packed_command

        async def counted(conn, data):
            self.writes += 1
            return await real(conn, data)

        monkeypatch.setattr(TypedConnection, "send_packed_command", counted)


async def repl(private_server, text: bytes, stdout=None) -> bytes:
    out, err = stdout or io.BytesIO(), io.StringIO()
    code = await run_repl(Playground(server=private_server), stdin=io.BytesIO(text), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return out.getvalue() if stdout is None else b""


async def test_lines_on_other_keys_do_not_wait_at_each_switch(private_server, monkeypatch):
    """A and B taking turns on keys of their own: each client's lines go out together.
    Taking turns on one key, every switch waits for the other client's reply."""
    own = b"".join(b"A> SET a%d 1\nB> SET b%d 1\n" % (i, i) for i in range(200))
    counter = CountingWrites(monkeypatch)
    assert await repl(private_server, own) == b"OK\n" * 400
    apart = counter.writes
    counter.writes = 0
    shared = b"A> INCR n\nB> INCR n\n" * 200
    assert await repl(private_server, shared) == b"".join(b"(integer) %d\n" % i for i in range(1, 401))
    assert apart < 40 <= 400 <= counter.writes  # (handshakes and side connections included)


async def test_a_client_killed_mid_run_runs_each_later_line_once(private_server):
    """CLIENT KILL from outside drops A's connection while both clients have lines in
    flight: A reconnects, and no line runs twice (the counters say so)."""
    async with Playground(server=private_server) as pg:
        killer = TypedConnection(pg.address)
        await killer.connect()
        out, err = io.BytesIO(), io.StringIO()
        from playground.cli.repl import Repl

        await killer.send_command(b"CLIENT", b"KILL", b"ID", b"%d" % pg.sessions["A"].state.client_id)
        assert await killer.read_response() == 1
        await killer.close()
        r = Repl(pg, out, err)
        assert await r.feed_many([b"A> INCR a\n", b"B> INCR b\n", b"A> INCR a\n", b"B> INCR b\n", b"A> GET a\n",
                                  b"B> GET b\n"])
        await r.finish()
    # A's first INCR went to a closed connection (reported lost); the rest ran once each
    assert out.getvalue() == b'(integer) 1\n(integer) 1\n(integer) 2\n"1"\n"2"\n', err.getvalue()
    assert "connection lost" in err.getvalue()


class RawOut(io.RawIOBase):
    """What sys.stdout.buffer is under `python -u` or PYTHONUNBUFFERED: every write a syscall."""

    def __init__(self):
        self.chunks = []

    def writable(self):
        return True

    def write(self, data):
        self.chunks.append(bytes(data))
        return len(data)


async def test_an_unbuffered_stdout_gets_a_few_big_writes_not_one_per_reply(private_server):
    out = RawOut()
    await repl(private_server, b"INCR n\n" * 2000, stdout=out)
    assert b"".join(out.chunks) == b"".join(b"(integer) %d\n" % i for i in range(1, 2001))
    assert len(out.chunks) < 20 and not out.closed  # (the caller's stdout is left open)


async def test_a_line_that_may_have_run_is_never_sent_again(private_server):
    """The server drops A for its output buffer (the pipelined GETs' replies pile up;
    the limit is set on the app's own connection: the learner may not CONFIG SET): the
    lines already sent may have run, so none is re-sent (INCR counted twice before),
    stderr names each line that got no reply, and the exit status is 1 (redis-cli, a
    line at a time, would have run them)."""
    from playground.cli.repl import run_repl
    from playground.resp.connection import TypedConnection

    admin = TypedConnection(private_server.admin_address)
    await admin.connect()
    try:
        await admin.pipeline([[b"CONFIG", b"SET", b"client-output-buffer-limit", b"normal 65536 65536 0"]])
    finally:
        await admin.close()
    lines = ["SETRANGE v 2000 x", "INCR n", *["GET v"] * 200, "INCR n", "GET n"]
    out, err = io.BytesIO(), io.StringIO()
    pg = Playground(server=private_server)
    assert await run_repl(pg, stdin=io.BytesIO("".join(f"{line}\n" for line in lines).encode()),
                          stdout=out, stderr=err) == 1, err.getvalue()
    replies = [line for line in out.getvalue().splitlines() if not line.startswith(b'"\\x00')]
    lost = [line for line in err.getvalue().splitlines() if "no reply to" in line]
    assert all("may have run" in line for line in lost) and "connection lost" in err.getvalue(), err.getvalue()
    # every line once: printed, or named (the one whose reply was awaited when the drop was found too)
    assert len(out.getvalue().splitlines()) + len(lost) == len(lines), (replies, err.getvalue())
    counted = [r for r in replies if r.startswith(b"(integer) ") and r != b"(integer) 2001"]
    assert counted == [b"(integer) %d" % n for n in range(1, len(counted) + 1)]  # never one count twice
    assert b'"3"' not in replies
