"""Our RESP connection on real servers: the handshake an address asks for, failures as
one clear OSError, and no reply ever taken for the answer to another command."""

import asyncio

import pytest

from playground.resp.connection import Address, TypedConnection
from playground.resp.side_connection import SideConnection
from playground.resp.replies import Bulk, Err, Int, Nil, Status
from commands import send


async def test_replies_keep_their_types_and_pipelines_keep_their_order(private_server):
    conn = TypedConnection(Address(path=private_server.socket_path))
    await conn.connect()
    await conn.send_command(b"SET", b"k", b"two words")
    assert await conn.read_response() == Status(b"OK")
    side = SideConnection(Address(path=private_server.socket_path), "side")
    replies = await side.run([[b"GET", b"k"], [b"INCR", b"k"], [b"GET", b"nope"], [b"STRLEN", b"k"]])
    assert replies[0] == Bulk(b"two words") and isinstance(replies[0], Bulk)
    assert isinstance(replies[1], Err) and replies[1].code == "ERR"
    assert replies[2] is Nil and replies[3] == Int(9)
    await side.close()
    await conn.close()


async def test_password_name_and_db_from_the_address(private_server):
    admin = TypedConnection(private_server.admin_address)  # learners may not CONFIG SET (server/sandbox.py)
    await admin.connect()
    await admin.send_command(b"CONFIG", b"SET", b"requirepass", b"s3cret")
    assert await admin.read_response() == Status(b"OK")
    path = private_server.socket_path
    conn = TypedConnection(Address(path=path, db=3, password="s3cret"), client_name="named")
    await conn.connect()
    await conn.send_command(b"CLIENT", b"INFO")
    info = bytes(await conn.read_response())
    assert b"name=named" in info and b"db=3" in info
    await conn.close()
    wrong = TypedConnection(Address(path=path, password="wrong"))
    with pytest.raises(ConnectionError, match="AUTH failed"):
        await wrong.connect()
    assert not wrong.connected
    await admin.close()


async def test_nothing_listening_is_one_clear_error(tmp_path):
    conn = TypedConnection(Address(path=str(tmp_path / "no.sock")))
    with pytest.raises(ConnectionError, match="cannot connect to .*no.sock"):
        await conn.connect()


async def _blocked(admin: SideConnection, name: bytes) -> None:
    """Until the server says client `name` is blocked (CLIENT LIST flag b), bounded."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while True:
        listing, = await admin.run([[b"CLIENT", b"LIST"]])
        clients = [dict(field.partition(b"=")[::2] for field in line.split()) for line in bytes(listing).splitlines()]
        if any(c.get(b"name") == name and b"b" in c.get(b"flags", b"") for c in clients):
            return
        assert loop.time() < deadline, f"{name!r} never blocked"
        await asyncio.sleep(0.01)


async def test_a_cancelled_read_never_hands_its_reply_to_the_next_command(private_server):
    address = Address(path=private_server.socket_path)
    side, other = SideConnection(address, "side"), SideConnection(address, "other")
    task = asyncio.create_task(side.run([[b"BLPOP", b"empty-list", b"0"]]))
    await _blocked(other, b"side")  # the BLPOP is waiting on the server
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    # a reply for that BLPOP, on the old connection, would come before the next command's
    assert await other.run([[b"RPUSH", b"empty-list", b"x"]]) == [Int(1)]
    assert await side.run([[b"ECHO", b"mine"]]) == [Bulk(b"mine")]
    await side.close()
    await other.close()


async def test_the_server_going_away_is_a_connection_error(private_server):
    other = TypedConnection(Address(path=private_server.socket_path))
    await other.connect()
    conn = TypedConnection(Address(path=private_server.socket_path))
    await conn.connect()
    await conn.send_command(b"CLIENT", b"KILL", b"SKIPME", b"yes")  # every client but this one
    assert isinstance(await conn.read_response(), Int)
    with pytest.raises(ConnectionError, match="closed by server"):
        await other.send_command(b"PING")
        await other.read_response()
    assert not other.connected
    await conn.close()


@pytest.fixture
def tcp_server(server_binary, tmp_path):
    """A throwaway server of the test's own on a loopback TCP port (the app never opens
    one; this is for --url redis://host:port)."""
    import socket
    import subprocess
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([server_binary.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.02)
    yield port
    proc.kill()
    proc.wait()


async def test_a_url_over_tcp_with_a_db(tcp_server):
    from playground.engine.playground import Playground

    pg = Playground.create(url=f"redis://127.0.0.1:{tcp_server}/2")
    async with pg:
        assert await send(pg, "A", [b"SET", b"k", b"v"]) == Status(b"OK")
        assert await send(pg, "B", [b"GET", b"k"]) == Bulk(b"v")
        info = bytes(await send(pg, "A", [b"CLIENT", b"INFO"]))
        assert b"db=2" in info and b"name=A" in info
        snap = await pg.reader.snapshot(b"*")
        assert [k.name for k in snap.keys] == [b"k"]


class Peer:
    """A socket at the other end that sends what the test says, when it says (no Redis:
    what is tested is how pieces, an end and a push frame meet the quick read)."""

    def __init__(self, tmp_path) -> None:
        self.path = str(tmp_path / "peer.sock")
        self.connected = asyncio.Event()
        self.writer = None

    async def start(self):
        async def accepted(reader, writer):
            self.reader, self.writer = reader, writer
            self.connected.set()
        self.server = await asyncio.start_unix_server(accepted, self.path)
        return self

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()


async def test_first_bytes_reads_a_quick_reply_in_place_and_leaves_pieces_and_ends_to_the_reader(tmp_path):
    """`first_bytes` reads what is already there without a turn of the event loop: a whole
    reply, the first piece of one (the rest read as it comes), the connection's end (a
    ConnectionError on reading), a push frame (not a reply: False); nothing within the
    time asked: False, and the reply is still read whole when it comes."""
    peer = await Peer(tmp_path).start()
    conn = TypedConnection(Address(path=peer.path))
    await conn.connect()
    await asyncio.wait_for(peer.connected.wait(), 10)

    await peer.send(b"+OK\r\n")
    assert await conn.first_bytes(5) is True
    assert await conn.read_response() == Status(b"OK")

    await peer.send(b"*2\r\n$3\r\nab")
    assert await conn.first_bytes(5) is True
    rest = asyncio.ensure_future(conn.read_response())
    await asyncio.sleep(0)
    await peer.send(b"c\r\n:7\r\n")
    assert await asyncio.wait_for(rest, 10) == [Bulk(b"abc"), Int(7)]

    assert await conn.first_bytes(0.001) is False   # nothing sent: late
    late = asyncio.ensure_future(conn.read_response())
    await asyncio.sleep(0)
    await peer.send(b"$-1\r\n")
    assert await asyncio.wait_for(late, 10) is Nil

    await peer.send(b">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n")
    assert await conn.first_bytes(5) is False       # a push frame is not the reply

    peer.writer.close()
    peer.connected.clear()
    conn2 = TypedConnection(Address(path=peer.path))
    await conn2.connect()
    await asyncio.wait_for(peer.connected.wait(), 10)
    peer.writer.close()
    await peer.writer.wait_closed()                  # (this test's peer shares the event loop)
    assert await conn2.first_bytes(5) is True       # the end: read_response says what went wrong
    with pytest.raises(ConnectionError):
        await conn2.read_response()
    await conn.close()
    await conn2.close()
    peer.server.close()


# Every RESP type the general reader and the buffer parser take, one after another: a
# push frame (handed to on_push, never a reply), then replies.
STREAM_REPLIES = (b">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n"
                  b"*3\r\n$3\r\nabc\r\n:-7\r\n*-1\r\n"
                  b"%1\r\n+k\r\n~2\r\n,1.5\r\n(123\r\n"
                  b"|1\r\n+ttl\r\n:3\r\n#t\r\n"
                  b"=8\r\ntxt:a\r\nb\r\n"
                  b"!5\r\nERR x\r\n"
                  b"$2\r\n\r\n\r\n"
                  b"_\r\n")


def stream_expected():
    from playground.resp.replies import Array, BigNumber, Bool, Double, Map, Set, Verbatim

    return [Array([Bulk(b"abc"), Int(-7), Nil]),
            Map([(Status(b"k"), Set([Double(b"1.5"), BigNumber(b"123")]))]),
            Bool(True), Verbatim(b"a\r\nb", b"txt"), Err(b"ERR x"), Bulk(b"\r\n"), Nil]


async def read_fed(pieces: list[bytes]):
    """The replies a connection reads from a stream fed these pieces, each fed only once
    the reading waits for more (so every split is met mid-read), then the end."""
    from playground.resp.reply_stream import ReplyStream

    stream, pushes = ReplyStream(), []
    conn = TypedConnection(Address(path="/nowhere"))
    conn.attach(stream)
    conn.on_push = pushes.append
    expected = len(stream_expected())

    async def read_all():
        return [await conn.read_response() for _ in range(expected)]

    reading = asyncio.ensure_future(read_all())
    for piece in pieces:
        while not stream.waiting and not reading.done():  # noqa: ASYNC110 (a state nothing signals)
            await asyncio.sleep(0)
        stream.feed(piece)
    stream.feed_eof()
    replies = await reading
    assert pushes == [[Bulk(b"message"), Bulk(b"x")]]
    return replies, stream


async def test_replies_split_at_every_byte_are_read_as_whole_ones():
    """However the bytes are cut (a CR in one piece, its LF in the next; a length line
    cut in two), the replies and their types are those of the stream read whole."""
    data = STREAM_REPLIES
    for cut in range(1, len(data)):
        replies, _ = await read_fed([data[:cut], data[cut:]])
        assert replies == stream_expected(), cut
        assert [type(r) for r in replies] == [type(r) for r in stream_expected()], cut
    replies, _ = await read_fed([data[i:i + 1] for i in range(len(data))])
    assert replies == stream_expected()


async def test_several_replies_in_one_piece_are_each_read_once():
    replies, stream = await read_fed([STREAM_REPLIES + b"+extra\r\n"])
    assert replies == stream_expected()
    assert bytes(stream.buffer) == b"+extra\r\n"  # the next reply stays for the next read


async def test_a_connection_dropped_mid_reply_fails_the_read_and_stays_closed(tmp_path):
    """The server goes away in the middle of a reply: the read fails with one
    ConnectionError, the connection is closed, and a later command is refused rather
    than paired with what was left."""
    peer = await Peer(tmp_path).start()
    conn = TypedConnection(Address(path=peer.path))
    await conn.connect()
    await asyncio.wait_for(peer.connected.wait(), 10)
    await conn.send_command(b"MGET", b"a", b"b")
    assert await peer.reader.readexactly(28) == b"*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nb\r\n"
    await peer.send(b"*2\r\n$3\r\nabc\r\n$5\r\nhe")
    peer.writer.close()
    with pytest.raises(ConnectionError, match="closed by server"):
        await conn.read_response()
    assert not conn.connected
    with pytest.raises(ConnectionError, match="not connected"):
        await conn.send_command(b"PING")
    with pytest.raises(ConnectionError, match="not connected"):
        await conn.read_response()
    peer.server.close()


async def test_a_cancelled_read_closes_the_connection(tmp_path):
    """A read cancelled half-way (Ctrl+C) closes the socket: the rest of its reply is never
    read as the answer to the next command, and the other end sees the close."""
    from playground.resp.reply_stream import ReplyStream

    peer = await Peer(tmp_path).start()
    conn = TypedConnection(Address(path=peer.path))
    _, stream = await asyncio.get_running_loop().create_unix_connection(ReplyStream, peer.path)
    conn.attach(stream)  # (the socket connect() would open; the test watches its stream)
    await asyncio.wait_for(peer.connected.wait(), 10)
    await peer.send(b"*2\r\n$3\r\nabc\r\n")
    reading = asyncio.ensure_future(conn.read_response())
    while not (stream.waiting and stream.buffer):  # noqa: ASYNC110 (a state nothing signals) — the read has the first part and waits for the rest
        await asyncio.sleep(0)
    reading.cancel()
    await asyncio.gather(reading, return_exceptions=True)
    assert reading.cancelled() and not conn.connected and stream.transport.is_closing()
    assert await asyncio.wait_for(peer.reader.read(), 10) == b""   # the server's side: closed
    with pytest.raises(ConnectionError, match="not connected"):
        await conn.read_response()
    peer.server.close()


async def test_a_connect_cancelled_at_any_turn_of_the_loop_ends_cancelled(tmp_path):
    """`settle` cancels the observer's refresh when the line's own reply comes first, and
    waits for it to end; behind a `CLIENT PAUSE ALL` that refresh may be reconnecting. A
    cancel that came the very turn the socket opened was swallowed (asyncio.wait_for in 3.11
    hands back the result of an inner future already done), the handshake went out and
    waited 600 s behind the pause: CI's settled-line test timed out. Cancelled at whichever
    turn, connect ends cancelled at once (a peer that never answers stands for the pause)."""
    peer = await Peer(tmp_path).start()
    for turns in range(12):
        conn = TypedConnection(Address(path=peer.path), client_name="observer")
        connecting = asyncio.ensure_future(conn.connect())
        for _ in range(turns):
            await asyncio.sleep(0)
        connecting.cancel()
        done, _ = await asyncio.wait([connecting], timeout=10)
        assert done and connecting.cancelled(), f"cancelled after {turns} turns: not ended by it"
        assert not conn.connected
    peer.server.close()
