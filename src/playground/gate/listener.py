"""The gate's listening sockets, and what they accept: the gate must be able to tell, at
any turn of the event loop, that nothing a program sent is on its way to it (Gate.quiet).

asyncio's own servers accept a connection in one turn of the loop and hand it over a few
turns later (a task makes its transport, which calls back later still): in between, the
connection is in no list of the gate's, and its first request may even have been read
already. So the gate accepts here: `Listener` counts a connection as it accepts it
(`arriving`), and the connection's reader (`Received`) counts the bytes read from the
socket, which the gate's own reading counts again as it takes them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
from collections.abc import Awaitable, Callable, Iterable
from typing import SupportsIndex


class Received(asyncio.StreamReader):
    """A program connection's reader that counts the bytes it was given (`fed`)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit=limit)
        self.fed = 0

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        self.fed += len(data) if isinstance(data, (bytes, bytearray, memoryview)) else len(bytes(data))
        super().feed_data(data)


class Listener:
    """A listening socket whose connections are accepted at once, in the loop's turn that
    finds them: each is counted (`arriving`) until `serve(reader, writer)` starts to take
    it (it calls `arrived`)."""

    def __init__(self, sock: socket.socket, serve: Callable[[Received, asyncio.StreamWriter], Awaitable[None]],
                 limit: int) -> None:
        self.sockets = [sock]
        self.path: tuple[str, int] | None = None   # a unix socket's path and its inode there: removed as it closes
        self.arriving = 0
        self._serve = serve
        self._limit = limit
        self._loop = asyncio.get_running_loop()
        self._tasks: set[asyncio.Task] = set()
        sock.setblocking(False)
        self._loop.add_reader(sock.fileno(), self._accept)

    def _accept(self) -> None:
        while self.sockets:
            try:
                conn, _ = self.sockets[0].accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:   # (out of descriptors ...: the connection waits in the backlog)
                return
            self.arriving += 1
            task = asyncio.ensure_future(self._open(conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _open(self, conn: socket.socket) -> None:
        try:
            reader = Received(self._limit)
            protocol = asyncio.StreamReaderProtocol(reader)
            transport, _ = await self._loop.connect_accepted_socket(lambda: protocol, sock=conn)
        except BaseException:
            self.arrived()
            conn.close()
            raise
        self.arrived()   # (`serve` takes it in this same step: no turn of the loop in between)
        await self._serve(reader, asyncio.StreamWriter(transport, protocol, reader, self._loop))

    def arrived(self) -> None:
        """A connection accepted is taken now (or gone)."""
        self.arriving -= 1

    def close(self) -> None:
        """Stop listening; its socket's path removed, unless another listener's is there now."""
        if self.sockets:
            self._loop.remove_reader(self.sockets[0].fileno())
            self.sockets.pop().close()
        if self.path is not None:
            path, inode = self.path
            self.path = None
            with contextlib.suppress(OSError):
                if os.stat(path).st_ino == inode:
                    os.unlink(path)
        for task in self._tasks:
            task.cancel()

    async def wait_closed(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _listening(family: int, address, serve, limit: int) -> Listener:
    """A Listener on a new socket of `family` bound to `address` (the socket closed if
    that fails)."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if family == socket.AF_INET:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(100)
        return Listener(sock, serve, limit)
    except BaseException:
        sock.close()
        raise


def listen_unix(path: str, serve, limit: int) -> Listener:
    """A Listener on a unix socket at `path` (created with the process's umask); a socket
    left at that path (an earlier gate's) is replaced, as asyncio's own servers do."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISSOCK(os.stat(path).st_mode):
            os.remove(path)
    listener = _listening(socket.AF_UNIX, path, serve, limit)
    listener.path = (path, os.stat(path).st_ino)
    return listener


def listen_tcp(host: str, serve, limit: int) -> Listener:
    """A Listener on `host` (127.0.0.1), on a free port."""
    return _listening(socket.AF_INET, (host, 0), serve, limit)
