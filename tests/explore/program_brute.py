"""An independent brute force for programs: the test's own gate (a unix socket per
program, a connection of its own to the real server for each connection the program
opens) holds every command a real program sends and lets them through one at a time, in
every order of the commands they send; each order from a flushed server and the setup,
with every program started afresh (no tree, no reduction, nothing of the explorer's or of
the playground's gate). A program's next command is the oldest one it holds; the
library's handshake (HELLO, AUTH, SELECT, CLIENT SETNAME/SETINFO, and a bare INFO before
anything else on a connection: ioredis's ready check) goes through at once.
Orders are searched depth first: each run notes who could have gone at each point, and
each other choice becomes the prefix of an order still to run.

A program waiting for what the server pushes is a waiting client too: one whose command
blocks at the server (the server's CLIENT LIST says so: flag b), or one subscribed that
holds no command and has been quiet QUIET seconds. The others move while it waits (a
message published reaches it, a push unblocks it), and its own move is its wait ending
by itself first: a blocked command's timeout, a subscriber's own timeout (given
WAIT_ALONE seconds while others could move, else up to ALONE_LIMIT; one whose wait did not
end is not offered again until it is sent something), or, for a command blocked for ever
(BLPOP q 0), the program's own socket timeout closing that connection (given ALONE_LIMIT;
one whose wait did not end is not offered again while that command waits). One still waiting
when nobody else can move is killed: its exit code is None."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

TIMEOUT = 20.0
QUIET = 0.3
WAIT_ALONE = 1.0
ALONE_LIMIT = 10.0
_MESSAGE_HEADS = (b"*3\r\n$7\r\nmessage\r\n", b"*4\r\n$8\r\npmessage\r\n", b"*3\r\n$8\r\nsmessage\r\n",
                  b">3\r\n$7\r\nmessage\r\n", b">4\r\n$8\r\npmessage\r\n", b">3\r\n$8\r\nsmessage\r\n")


def _request(buf: bytearray) -> tuple[list[bytes], int] | None:
    """One RESP array of bulk strings (what redis-py sends) at the start of `buf`."""
    if not buf.startswith(b"*"):
        raise ValueError(f"not a RESP request: {bytes(buf[:20])!r}")
    nl = buf.find(b"\r\n")
    if nl < 0:
        return None
    n, pos, out = int(buf[1:nl]), nl + 2, []
    for _ in range(n):
        nl = buf.find(b"\r\n", pos)
        if nl < 0:
            return None
        size = int(buf[pos + 1:nl])
        if len(buf) < nl + 2 + size + 2:
            return None
        out.append(bytes(buf[nl + 2:nl + 2 + size]))
        pos = nl + 2 + size + 2
    return out, pos


def _reply_end(buf: bytearray, pos: int = 0) -> int | None:
    """Past the RESP2 or RESP3 reply at `pos`, or None when it is not all there."""
    nl = buf.find(b"\r\n", pos)
    if nl < 0:
        return None
    kind = buf[pos:pos + 1]
    if kind in (b"+", b"-", b":", b"_", b",", b"#", b"("):
        return nl + 2
    n = int(buf[pos + 1:nl])
    if kind in (b"$", b"!", b"="):
        end = nl + 2 if n < 0 else nl + 2 + n + 2
        return end if len(buf) >= end else None
    if kind in (b"%", b"|"):
        n *= 2
    pos = nl + 2
    for _ in range(max(n, 0)):
        pos = _reply_end(buf, pos)
        if pos is None:
            return None
    return pos


def _no_timeout(argv: list[bytes] | None) -> bool:
    """A blocking pop or move that waits for ever (its timeout, the last argument, is 0)."""
    return bool(argv) and argv[0].lower() in (b"blpop", b"brpop", b"bzpopmin", b"bzpopmax", b"brpoplpush",
                                               b"blmove") and float(argv[-1]) == 0


def _handshake(argv: list[bytes], first: bool) -> bool:
    """`first`: nothing of the connection was held yet (a bare INFO then: ioredis's ready check)."""
    name = argv[0].lower()
    return name in (b"hello", b"auth", b"select") or (first and len(argv) == 1 and name == b"info") or (
        name == b"client" and len(argv) > 1 and argv[1].lower() in (b"setname", b"setinfo"))


class _Connection:
    def __init__(self, program: "_Program", reader, writer) -> None:
        self.program = program
        self.reader, self.writer = reader, writer
        self.held: list[tuple[int, list[bytes], bytes]] = []   # (arrival, argv, raw)
        self.waiting: list[asyncio.Future] = []                 # replies due, in order
        self.frames: list[int] = []                             # frames each due reply takes
        self.up_reader = self.up_writer = None
        self.server_id = 0
        self.last: list[bytes] | None = None                    # its last command let through (not handshake)
        self.closed = False


class _Program:
    def __init__(self, run: "_Run", name: str) -> None:
        self.run, self.name = run, name
        self.connections: list[_Connection] = []
        self.process = None
        self.touched = 0.0   # when something last went to or came from it
        self.pushes = 0      # messages it was sent
        self.stuck = -1      # its wait did not end by itself at this count of pushes
        self.alone_tried = -1   # nor when nobody else could move (up to the limit): not offered again
        self.stuck_blocked: set[int] = set()   # its blocked commands (their replies due) whose wait did not end

    def next(self):
        held = [(c.held[0][0], c) for c in self.connections if c.held and not c.waiting]
        return min(held, key=lambda x: x[0])[1] if held else None

    def subscribed(self) -> bool:
        return any(not c.closed and not c.waiting and c.last is not None
                   and c.last[0].lower() in (b"subscribe", b"psubscribe", b"ssubscribe") for c in self.connections)


class _Run:
    """One order: the programs started, their commands let through as `choose` says."""

    def __init__(self, server, programs: dict[str, list[str]], cwd: Path, folder: Path) -> None:
        self.server, self.programs, self.cwd, self.folder = server, programs, cwd, folder
        self.state = {name: _Program(self, name) for name in programs}
        self.arrivals = 0
        self.changed = asyncio.Event()
        self.listeners = []
        self.admin = None
        self.alone_limit = ALONE_LIMIT

    async def _upstream(self):
        reader, writer = await asyncio.open_unix_connection(self.server.path)
        if self.server.password is not None:
            argv = [b"AUTH", *([self.server.username.encode()] if self.server.username else []),
                    self.server.password.encode()]
            writer.write(b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv))
            line = await reader.readline()
            assert line.startswith(b"+OK"), line
        writer.write(b"*2\r\n$6\r\nCLIENT\r\n$2\r\nID\r\n")
        line = await reader.readline()
        return reader, writer, int(line[1:])

    async def _serve(self, program: _Program, reader, writer) -> None:
        conn = _Connection(program, reader, writer)
        conn.up_reader, conn.up_writer, conn.server_id = await self._upstream()
        program.connections.append(conn)
        pump = asyncio.ensure_future(self._replies(conn))
        buf = bytearray()
        first = True   # (nothing of this connection held yet)
        try:
            while data := await reader.read(1 << 16):
                buf += data
                while buf and (got := _request(buf)) is not None:
                    argv, end = got
                    raw = bytes(buf[:end])
                    del buf[:end]
                    if _handshake(argv, first):
                        self._send(conn, raw, argv)
                    else:
                        first = False
                        self.arrivals += 1
                        conn.held.append((self.arrivals, argv, raw))
                program.touched = asyncio.get_running_loop().time()
                self.changed.set()
        finally:
            conn.closed = True
            conn.up_writer.close()
            writer.close()   # (its end seen: ioredis's disconnect waits for the socket's close)
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)
            self.changed.set()

    def _send(self, conn: _Connection, raw: bytes, argv: list[bytes]) -> asyncio.Future:
        done = asyncio.get_running_loop().create_future()
        conn.waiting.append(done)
        subscribing = argv[0].lower() in (b"subscribe", b"psubscribe", b"ssubscribe")
        conn.frames.append(max(1, len(argv) - 1) if subscribing else 1)
        conn.up_writer.write(raw)
        return done

    async def _replies(self, conn: _Connection) -> None:
        buf = bytearray()
        while data := await conn.up_reader.read(1 << 16):
            conn.writer.write(data)
            buf += data
            while (end := _reply_end(buf)) is not None:
                frame = bytes(buf[:end])
                del buf[:end]
                if frame.startswith(_MESSAGE_HEADS) or not conn.waiting:
                    conn.program.pushes += 1   # (a message: no command asked for it)
                    continue
                conn.frames[0] -= 1
                if not conn.frames[0]:
                    conn.frames.pop(0)
                    conn.waiting.pop(0).set_result(None)
            conn.program.touched = asyncio.get_running_loop().time()
            self.changed.set()

    async def start(self) -> None:
        for name, argv in self.programs.items():
            path = str(self.folder / f"brute-{name}.sock")
            self.listeners.append(await asyncio.start_unix_server(
                lambda r, w, p=self.state[name]: self._serve(p, r, w), path=path))
            env = dict(os.environ, REDIS_URL=f"unix://{path}?socket_timeout=60", REDIS_SOCKET=path,
                       PYTHONHASHSEED="0")   # (REDIS_SOCKET: ioredis takes a path, not unix://)
            self.state[name].process = await asyncio.create_subprocess_exec(
                *[sys.executable if a == "python" else a for a in argv], cwd=self.cwd, env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            asyncio.ensure_future(self._exited(self.state[name]))

    async def _exited(self, program: _Program) -> None:
        await program.process.wait()
        self.changed.set()

    async def _blocked(self, conn: _Connection) -> bool:
        """The server says `conn`'s server connection is blocked (not when it is gone: its
        program gave up on it, its own timeout)."""
        listed = await self.admin.execute_command("CLIENT", "LIST", "ID", conn.server_id)
        flags = next((f for f in listed.decode().split() if f.startswith("flags=")), "flags=")
        return "b" in flags[len("flags="):]

    async def _state(self, p: _Program) -> str:
        """held, exited, blocked, listening (quiet), or busy (not settled yet)."""
        if p.next() is not None:
            return "held"
        if p.process.returncode is not None:
            return "exited"
        due = [c for c in p.connections if c.waiting and not c.closed]
        if due:
            return "blocked" if all([await self._blocked(c) for c in due]) else "busy"
        if p.subscribed() and asyncio.get_running_loop().time() - p.touched >= QUIET:
            return "listening"
        return "busy"

    async def movable(self) -> list[str]:
        """Once every program holds a command, has exited or waits (blocked, listening):
        those that hold one or wait (a listening one whose wait did not end by itself, until
        it is sent something, not)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while True:
            out, settled = [], True
            for name, p in self.state.items():
                state = await self._state(p)
                blocked_anew = state == "blocked" and not p.stuck_blocked >= {
                    id(c.waiting[-1]) for c in p.connections if c.waiting and not c.closed}
                if state == "held" or blocked_anew or state == "listening" and p.stuck != p.pushes:
                    out.append(name)
                elif state == "busy":
                    settled = False
            if settled:
                alone = [n for n, p in self.state.items() if p.stuck == p.pushes != p.alone_tried
                         and await self._state(p) == "listening"]
                return out or alone[:1]   # (nobody else can move: a stuck one's wait, alone)
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(QUIET / 3, deadline - loop.time()))
            except asyncio.TimeoutError:
                assert loop.time() < deadline, "programs did not settle"

    async def release(self, name: str, alone: bool) -> None:
        """Its next command through (until its reply, or the server says it blocks), or,
        waiting, its wait ends by itself."""
        p = self.state[name]
        conn = p.next()
        if conn is None:
            due = [c for c in p.connections if c.waiting and not c.closed]
            if due and not any(_no_timeout(c.last) for c in due):   # its blocking command times out
                await asyncio.wait_for(asyncio.gather(*[c.waiting[-1] for c in due]), TIMEOUT)
                return
            if due:   # no timeout of the command's own: one of the program's (it closes the connection)?
                loop = asyncio.get_running_loop()   # (given its time limit, alone or not: a margin of seconds
                end = loop.time() + self.alone_limit   # over a socket timeout of tenths, on a busy machine too)
                while any(c.waiting and not c.closed for c in due) and loop.time() < end:
                    self.changed.clear()
                    try:
                        await asyncio.wait_for(self.changed.wait(), end - loop.time())
                    except asyncio.TimeoutError:
                        break
                if any(c.waiting and not c.closed for c in due):
                    p.stuck_blocked = {id(c.waiting[-1]) for c in due}
                return
            loop = asyncio.get_running_loop()
            end = loop.time() + (self.alone_limit if alone else WAIT_ALONE)
            while p.next() is None and p.process.returncode is None and loop.time() < end:
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), end - loop.time())
                except asyncio.TimeoutError:
                    break
            if p.next() is None and p.process.returncode is None:
                p.stuck = p.pushes
                if alone:
                    p.alone_tried = p.pushes
            return
        _, argv, raw = conn.held.pop(0)
        conn.last = argv
        done = self._send(conn, raw, argv)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not done.done():
            try:
                await asyncio.wait_for(asyncio.shield(done), 0.05)
            except asyncio.TimeoutError:
                if conn.closed or await self._blocked(conn):   # (closed: its program gave up on the reply,
                    return                                     # its own timeout, before it was seen blocked)
                assert loop.time() < deadline, "no reply"

    async def close(self) -> dict[str, int | None]:
        codes: dict[str, int | None] = {}
        for n, p in self.state.items():
            if p.process.returncode is None and p.subscribed() and p.next() is None:
                p.process.kill()   # still waiting for a message: nobody is left to send one
                await p.process.wait()
                codes[n] = None
            else:
                codes[n] = await asyncio.wait_for(p.process.wait(), TIMEOUT)
        for listener in self.listeners:
            listener.close()
        for name in self.programs:
            (self.folder / f"brute-{name}.sock").unlink(missing_ok=True)
        return codes


async def every_order(pg, setup: list[list[str]], programs: dict[str, list[str]], cwd: Path,
                      read, alone_limit: float = ALONE_LIMIT) -> dict[tuple[str, ...], object]:
    """For each order of the commands the programs send (as its client letters):
    `read(admin, exit_codes)` after it ran. `alone_limit`: how long a subscriber is
    waited for when nobody else can move (the lesson's program time limit)."""
    import redis.asyncio as aredis

    server = pg.address
    admin = aredis.Redis(unix_socket_path=server.path, username=server.username, password=server.password)
    out: dict[tuple[str, ...], object] = {}
    to_run: list[tuple[str, ...]] = [()]
    try:
        while to_run:
            prefix = to_run.pop()
            await admin.flushall()
            await admin.script_flush()
            for argv in setup:
                await admin.execute_command(*argv)
            run = _Run(server, programs, cwd, Path(server.path).parent)
            run.admin, run.alone_limit = admin, alone_limit
            await run.start()
            order: list[str] = []
            while can := await run.movable():
                pick = prefix[len(order)] if len(order) < len(prefix) else can[0]
                assert pick in can, (prefix, order, can)
                if len(order) >= len(prefix):
                    to_run += [(*order, c) for c in reversed(can) if c != pick]
                order.append(pick)
                await run.release(pick, alone=len(can) == 1)
            codes = await run.close()
            out[tuple(order)] = await read(admin, codes)
    finally:
        await admin.flushall()
        await admin.aclose()
    return out
