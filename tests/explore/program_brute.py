"""An independent brute force for programs: the test's own gate (a unix socket per
program, a connection of its own to the real server for each connection the program
opens) holds every command a real program sends and lets them through one at a time, in
every order of the commands they send; each order from a flushed server and the setup,
with every program started afresh (no tree, no reduction, nothing of the explorer's or of
the playground's gate). A program's next command is the oldest one it holds; the
library's handshake (HELLO, AUTH, SELECT, CLIENT SETNAME/SETINFO) goes through at once.
Orders are searched depth first: each run notes who could have gone at each point, and
each other choice becomes the prefix of an order still to run."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

TIMEOUT = 20.0


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


def _handshake(argv: list[bytes]) -> bool:
    name = argv[0].lower()
    return name in (b"hello", b"auth", b"select") or (
        name == b"client" and len(argv) > 1 and argv[1].lower() in (b"setname", b"setinfo"))


class _Connection:
    def __init__(self, program: "_Program", reader, writer) -> None:
        self.program = program
        self.reader, self.writer = reader, writer
        self.held: list[tuple[int, list[bytes], bytes]] = []   # (arrival, argv, raw)
        self.waiting: list[asyncio.Future] = []                 # replies due, in order
        self.up_reader = self.up_writer = None


class _Program:
    def __init__(self, run: "_Run", name: str) -> None:
        self.run, self.name = run, name
        self.connections: list[_Connection] = []
        self.process = None

    def next(self):
        held = [(c.held[0][0], c) for c in self.connections if c.held and not c.waiting]
        return min(held, key=lambda x: x[0])[1] if held else None


class _Run:
    """One order: the programs started, their commands let through as `choose` says."""

    def __init__(self, server, programs: dict[str, list[str]], cwd: Path, folder: Path) -> None:
        self.server, self.programs, self.cwd, self.folder = server, programs, cwd, folder
        self.state = {name: _Program(self, name) for name in programs}
        self.arrivals = 0
        self.changed = asyncio.Event()
        self.listeners = []

    async def _upstream(self):
        reader, writer = await asyncio.open_unix_connection(self.server.path)
        if self.server.password is not None:
            argv = [b"AUTH", *([self.server.username.encode()] if self.server.username else []),
                    self.server.password.encode()]
            writer.write(b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv))
            line = await reader.readline()
            assert line.startswith(b"+OK"), line
        return reader, writer

    async def _serve(self, program: _Program, reader, writer) -> None:
        conn = _Connection(program, reader, writer)
        conn.up_reader, conn.up_writer = await self._upstream()
        program.connections.append(conn)
        pump = asyncio.ensure_future(self._replies(conn))
        buf = bytearray()
        try:
            while data := await reader.read(1 << 16):
                buf += data
                while buf and (got := _request(buf)) is not None:
                    argv, end = got
                    raw = bytes(buf[:end])
                    del buf[:end]
                    if _handshake(argv):
                        self._send(conn, raw)
                    else:
                        self.arrivals += 1
                        conn.held.append((self.arrivals, argv, raw))
                self.changed.set()
        finally:
            conn.up_writer.close()
            pump.cancel()
            await asyncio.gather(pump, return_exceptions=True)
            self.changed.set()

    def _send(self, conn: _Connection, raw: bytes) -> asyncio.Future:
        done = asyncio.get_running_loop().create_future()
        conn.waiting.append(done)
        conn.up_writer.write(raw)
        return done

    async def _replies(self, conn: _Connection) -> None:
        buf = bytearray()
        while data := await conn.up_reader.read(1 << 16):
            conn.writer.write(data)
            buf += data
            while (end := _reply_end(buf)) is not None:
                del buf[:end]
                conn.waiting.pop(0).set_result(None)
            self.changed.set()

    async def start(self) -> None:
        for name, argv in self.programs.items():
            path = str(self.folder / f"brute-{name}.sock")
            self.listeners.append(await asyncio.start_unix_server(
                lambda r, w, p=self.state[name]: self._serve(p, r, w), path=path))
            env = dict(os.environ, REDIS_URL=f"unix://{path}?socket_timeout=60", PYTHONHASHSEED="0")
            self.state[name].process = await asyncio.create_subprocess_exec(
                *[sys.executable if a == "python" else a for a in argv], cwd=self.cwd, env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            asyncio.ensure_future(self._exited(self.state[name]))

    async def _exited(self, program: _Program) -> None:
        await program.process.wait()
        self.changed.set()

    async def movable(self) -> list[str]:
        """Once every program holds a command or has exited: those that hold one."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while True:
            out, settled = [], True
            for name, p in self.state.items():
                if p.next() is not None:
                    out.append(name)
                elif p.process.returncode is None:
                    settled = False
            if settled:
                return out
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), deadline - loop.time())

    async def release(self, name: str) -> None:
        conn = self.state[name].next()
        _, _, raw = conn.held.pop(0)
        await asyncio.wait_for(self._send(conn, raw), TIMEOUT)

    async def close(self) -> dict[str, int]:
        codes = {n: await asyncio.wait_for(p.process.wait(), TIMEOUT) for n, p in self.state.items()}
        for listener in self.listeners:
            listener.close()
        for name in self.programs:
            (self.folder / f"brute-{name}.sock").unlink(missing_ok=True)
        return codes


async def every_order(pg, setup: list[list[str]], programs: dict[str, list[str]], cwd: Path,
                      read) -> dict[tuple[str, ...], object]:
    """For each order of the commands the programs send (as its client letters):
    `read(admin, exit_codes)` after it ran."""
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
            await run.start()
            order: list[str] = []
            while can := await run.movable():
                pick = prefix[len(order)] if len(order) < len(prefix) else can[0]
                assert pick in can, (prefix, order, can)
                if len(order) >= len(prefix):
                    to_run += [(*order, c) for c in reversed(can) if c != pick]
                order.append(pick)
                await run.release(pick)
            codes = await run.close()
            out[tuple(order)] = await read(admin, codes)
    finally:
        await admin.flushall()
        await admin.aclose()
    return out
