"""The stepping gate: a RESP endpoint that programs connect to as if it were Redis.

Each accepted connection becomes a client of the playground (a `GateClient`, named after
the program and its connection) with a connection of its own to the private server, as
the learner user, exactly like a pane's. Every command a program sends is held at the
gate until it is released (`Gate.release`, `Gate.release_next`), or at once while the
gate is free-running (`Gate.free_running`); either way `Gate.log` has them in server
order (reply order, numbered by the playground's own counter). The client library's
handshake (HELLO, AUTH, SELECT, CLIENT SETNAME/SETINFO, and a bare INFO before the
connection's first step: ioredis's ready check) passes without a step; a
pipeline is one step per command; MULTI … EXEC is one step per command too; blocking
commands block on the server for real. Requests and replies go through byte for byte:
nothing is decoded and re-encoded, frames.py only finds where each one ends.

The endpoint listens on unix sockets in a 0700 directory (the private server's own), and
on request on 127.0.0.1 with a random password (gate/auth.py), never on another address.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import secrets
import select
import socket
import struct
import termios
from typing import Callable

from playground.engine.catalogue import SUBSCRIBE_FAMILY, may_block
from playground.engine.pipeline import pipelinable
from playground.engine.settled_line import QUICK_LATE
from playground.gate.frames import FrameError, reply_end, request
from playground.gate.listener import Listener, Received, listen_tcp, listen_unix
from playground.gate.peer import Origin, peer_pid, process_name
from playground.gate.peer import origin as peer_origin
from playground.gate.program_connection import RECV, GateClient, Held, Upstream  # noqa: F401 (Held: re-exported)
from playground.gate.reply_order import ReplyOrder
from playground.gate.upstream_pool import UpstreamPool
from playground.resp.address import Address
from playground.resp.connection import pack_command, pack_pipeline

MAX_HELD = 10_000          # a program that floods stops being read until some are released
CONNECT_TIMEOUT = 5.0
MAX_BEFORE = 100           # handshake requests kept before a stepped command (explore/program_tree.py)
_MESSAGES = (b"$7\r\nmessage\r\n", b"$8\r\npmessage\r\n", b"$8\r\nsmessage\r\n")


def replies_expected(argv: list[bytes]) -> int:
    """How many frames answer this command: one a channel for (UN)SUBSCRIBE and kin (an
    UNSUBSCRIBE of every channel: the first; the others come as messages do)."""
    if argv and argv[0].lower() in SUBSCRIBE_FAMILY:
        return max(1, len(argv) - 1)
    return 1


def is_message(frame: bytes, head: "Held | None") -> bool:
    """A frame no command asked for: a published message (RESP2 or RESP3), or a RESP3
    push while the next reply due is not a subscription's."""
    body = frame[frame.find(b"\n") + 1:]
    if frame[:1] in (b"*", b">") and body.startswith(_MESSAGES):
        return True
    return frame[:1] == b">" and (head is None or head.argv[0].lower() not in SUBSCRIBE_FAMILY)


def _quick(argv: list[bytes]) -> bool:
    """A command whose reply comes at once (engine/pipeline.py's `pipelinable`: no blocking
    read, script, subscription ...; and nothing the catalogue says may block)."""
    return bool(argv) and pipelinable(argv) and not may_block(argv)


def _setinfo(argv: list[bytes]) -> bytes | None:
    """The attribute a CLIENT SETINFO sets (lib-name, lib-ver), or None."""
    if len(argv) == 4 and argv[0].lower() == b"client" and argv[1].lower() == b"setinfo":
        return argv[2].lower()
    return None


def passes_unstepped(argv: list[bytes], first: bool = False) -> bool:
    """The client library's own handshake: no step of the lesson. `first`: nothing of this
    connection was stepped yet, so a bare INFO is the library's ready check (ioredis)."""
    name = argv[0].lower() if argv else b""
    if name in (b"hello", b"auth", b"select") or (first and argv == [argv[0]] and name == b"info"):
        return True
    return name == b"client" and len(argv) > 1 and argv[1].lower() in (b"setname", b"setinfo")


HOLD_QUERY = "?socket_timeout=86400"
"""Asked of the client library in the unix URL: a command may wait at the gate as long as
the teacher talks (redis-py 8 gives up on a reply after 5 s by default, and the program
died mid-lesson). Libraries that take the socket's path (REDIS_SOCKET) get it without."""


def _unread_by_peer(fd: int) -> int:
    """Bytes sent on socket `fd` that its peer has not read yet (SIOCOUTQ: a unix socket's
    sent bytes count until the receiver takes them); 0 where that cannot be asked."""
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0"))[0]
    except OSError:
        return 0


class _NoTransport:
    @staticmethod
    def get_write_buffer_size() -> int:
        return 0

    @staticmethod
    def is_closing() -> bool:
        return False


class _NoProgram:
    """Where an attached connection's replies go: nowhere (its commands' `done` has them)."""

    transport = _NoTransport()

    def write(self, data: bytes) -> None:
        pass

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass

    @staticmethod
    def get_extra_info(name: str, default=None):
        return default


def _wake(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


_INTERPRETERS = re.compile(r"(python[0-9.]*|node|nodejs|ruby|perl|php)")


def _script_name(origin: Origin | None) -> str | None:
    """The script an interpreter runs (`python3 rmw.py`: rmw.py), or None."""
    if origin is None or len(origin.argv) < 2:
        return None
    script = origin.argv[1]
    if not _INTERPRETERS.fullmatch(os.path.basename(origin.argv[0])) or script.startswith("-"):
        return None
    return os.path.basename(script) or None


def socket_path(url: str) -> str:
    """The unix socket's path in a gate URL (unix://PATH?…)."""
    return url[len("unix://"):].partition("?")[0]


class Gate:
    """Listeners, their clients, and the server order of every command they ran."""

    def __init__(self, address: Callable[[], Address], directory: str,
                 next_seq: Callable[[], int] | None = None) -> None:
        self.address = address
        self.directory = directory
        self._seq = 0
        self.next_seq = next_seq or self._own_seq
        self.clients: list[GateClient] = []
        self.log: list[Held] = []                  # in server order
        self.dropped: list[Held] = []              # never let through: the program closed their connection
        # while they were held (it gave up on them: a timeout of its own)
        self._servers: dict[str | tuple[str, str], Listener] = {}  # label or ("tcp", label) -> its listener
        self._passwords: dict[str, str] = {}  # label -> its TCP listener's password
        self._tasks: set[asyncio.Task] = set()  # one per program connection
        self._splicing: dict[str, tuple[dict[int, GateClient], Callable[[], None], list[int]]] = {}  # label ->
        # (attached connections its real program takes over, by number; told of a mismatch; connections opened)
        self._arrivals = 0
        self._counts: dict[str, int] = {}
        self._hand_labels: dict[tuple, str] = {}  # (pid, argv) -> a program started by hand's name (_name_by_hand)
        self._waiters: list[asyncio.Future] = []  # wait_for calls waiting for the next change
        self.free_running = False
        self.listeners: list[Callable[[], None]] = []  # told of every change (a UI)
        self.noted: Callable[[list[bytes]], None] = lambda argv: None   # told of every request as it comes
        self._order = ReplyOrder(self._numbered)
        self.answered: list[Callable[[GateClient, Held], None]] = []
        """Told of every command answered, as its reply arrives, in server order (the
        handshake too: `Held.unstepped`): engine/program_lines.py records them."""
        self.pool: UpstreamPool | None = None
        """Where an ended client's server connection is kept for the next client of its
        name (gate/upstream_pool.py: the explorer's schedules), else closed."""
        self.anonymous = False
        """A program's socket is named so that it cannot tell which client it is (the
        explorer's: programs of one identity share what they did, explore/program_tree.py),
        not after its client."""
        self.ended: list[Callable[[GateClient], None]] = []
        """Told once of each client whose connection ended (its program closed it, the
        server did, or the gate closed), after every command of its that was answered."""

    @classmethod
    def for_playground(cls, pg) -> "Gate":
        """A gate in front of `pg`'s private server (and nothing else)."""
        directory = getattr(pg.server, "dir", None) if pg.server is not None else None
        if not directory:
            raise ValueError("the gate forwards only to the playground's private server")
        gate = cls(lambda: pg.address, directory, pg.next_seq)
        gate.noted = pg.note_scripts   # (a program's EVAL caches a script as a typed one does: flushed next time)
        return gate

    def _own_seq(self) -> int:
        self._seq += 1
        return self._seq

    async def listen(self, label: str | None = None, tcp: bool = False) -> str:
        """A socket for program `label` (None: for any program, each named after its
        process); returns the URL to give it (unix://…). `tcp`: on 127.0.0.1 (never another
        address), on a free port, with a random password (redis://:PASSWORD@127.0.0.1:PORT)."""
        key = label or ""
        if tcp:
            if ("tcp", key) not in self._servers:
                password = secrets.token_hex(16)
                server = listen_tcp("127.0.0.1", lambda r, w: self._serve(r, w, label, password.encode()), RECV)
                self._passwords[key] = password
                self._servers[("tcp", key)] = server
            server = self._servers[("tcp", key)]
            return f"redis://:{self._passwords[key]}@127.0.0.1:{server.sockets[0].getsockname()[1]}"
        if key not in self._servers:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key) or "any"
            if self.anonymous and label:
                safe = secrets.token_hex(6)
            path = os.path.join(self.directory, f"gate-{safe}.sock")
            old = os.umask(0o077)
            try:
                self._servers[key] = listen_unix(path, lambda r, w: self._serve(r, w, label), RECV)
            finally:
                os.umask(old)
        return "unix://" + self._servers[key].sockets[0].getsockname() + HOLD_QUERY

    async def close(self) -> None:
        """Stop listening, fail what is still held, and remove the unix sockets: nothing of
        the gate stays in the server's directory (it may outlive this gate), but a socket a
        later gate made at the same path (Listener.close)."""
        for server in self._servers.values():
            server.close()
        for client in list(self.clients):
            client.fail_pending()
        if self._tasks:  # each ends once its sockets are closed
            await asyncio.wait(self._tasks, timeout=CONNECT_TIMEOUT)
        for server in self._servers.values():
            await server.wait_closed()
        self._servers.clear()

    # ---- waiting and releasing

    def changed(self) -> None:
        """Something of the gate changed: each wait_for looks at its predicate again."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        for listener in list(self.listeners):
            listener()

    async def wait_for(self, predicate: Callable[[], object], timeout: float):  # noqa: ASYNC109 (None at the deadline: a value, not an exception)
        """predicate()'s first true value, or None after `timeout` seconds (looked at
        again at each change)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value or loop.time() >= deadline:
                return value or None
            waiter = loop.create_future()
            self._waiters.append(waiter)
            timer = loop.call_at(deadline, _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()

    def quiet(self, label: str, inflight: bool = False) -> bool:
        """Nothing of program `label` is on its way through the gate: no connection of it
        waiting to be accepted or for its server connection, no byte it sent unread by the
        gate (in the kernel: what the gate's reader already has is taken in this turn of
        the loop, before a caller that yields once), none the gate sent it unread by it,
        none the server sent it unread by the gate, no command of it waiting for its
        reply (`inflight`: but those, blocked at the server)."""
        fds = []
        for key in (label, ("tcp", label), "", ("tcp", "")):   # (a program started by hand: any listener's)
            server = self._servers.get(key)
            if server is not None and server.arriving:
                return False   # (accepted, not taken yet: it is no client yet, and may have sent already)
            fds += [sock.fileno() for sock in (server.sockets if server is not None else ())]
        for client in self.clients:
            if client.label != label or client.closed:
                continue
            if client.to_server is None or client.inflight and not inflight or client.to_program is None:
                return False
            if client.received is not None and client.received.fed != client.taken:
                return False   # (read from its socket, not taken by the gate yet)
            if client.to_program.transport.get_write_buffer_size():
                return False   # (what the gate sent it: not all written yet)
            if client.to_program.transport.is_closing():
                return False   # (closed under the gate, a write to it failed: its end is on its way to the
                # gate's reader; and its socket may be closed already, fd -1)
            sock = client.to_program.get_extra_info("socket")
            if sock is not None:
                if _unread_by_peer(sock.fileno()):
                    return False   # (written, not yet read by the program)
                fds.append(sock.fileno())
            upstream = client.to_server.get_extra_info("socket")
            if upstream is not None:
                fds.append(upstream.fileno())   # (what the server sent it, unread by the gate)
        poll = select.poll()
        for fd in fds:
            poll.register(fd, select.POLLIN)
        return not poll.poll(0)

    def held(self, label: str | None = None) -> list[Held]:
        """The commands waiting at the gate (each connection's next), oldest first."""
        heads = [h for c in self.clients if not c.closed and (label is None or c.label == label)
                 and (h := c.next) is not None]
        if len(heads) > 1:
            heads.sort(key=lambda h: h.arrived)
        return heads

    def release(self, held: Held) -> Held:
        """Send one held command to the server (its connection's next)."""
        client = held.client
        if client.next is not held:
            raise ValueError(f"{client.name}: only its next command can be released")
        held.released = True
        client.pump()
        return held

    async def release_next(self, label: str, timeout: float) -> Held | None:  # noqa: ASYNC109 (as wait_for)
        """Wait (up to `timeout` s) for program `label`'s next command, and release it."""
        first = await self.wait_for(lambda: next(iter(self.held(label)), None), timeout)
        return self.release(first) if first is not None else None

    def run_free(self, free: bool = True) -> None:
        """Release every command at once from now on (run mode), or hold them again."""
        self.free_running = free
        for client in list(self.clients):
            client.pump()

    # ---- a program's connection with no socket: a replay's (explore/program_tree.py)

    async def attach(self, label: str, number: int) -> GateClient:
        """Connection `number` of program `label`, with no program at its other end: what
        it sends is handed to `hand`, its replies are its commands' `done`. It has a server
        connection of its own and is held, released, logged and recorded as a program's
        connection is (OSError, ConnectionError: the server cannot be reached)."""
        client = self._attached(label, number)
        try:
            await self._connect_upstream(client)
        except (OSError, asyncio.TimeoutError, ConnectionError) as exc:
            client.fail_pending()
            raise ConnectionError(str(exc)) from exc
        self.changed()
        return client

    def attach_kept(self, label: str, number: int) -> GateClient | None:
        """`attach` at once, on a server connection kept from the last schedule
        (gate/upstream_pool.py) when one is ready for it; else None (`attach` it)."""
        kept = self.pool.take(f"{label}#{number}") if self.pool is not None else None
        if kept is None:
            return None
        client = self._attached(label, number)
        self._take_upstream(client, kept)
        self.changed()
        return client

    def _attached(self, label: str, number: int) -> GateClient:
        self._counts[label] = max(self._counts.get(label, 0), number)
        client = GateClient(self, label, number)
        client.to_program = _NoProgram()   # type: ignore[assignment]  # (what of a writer the gate uses)
        self.clients.append(client)
        return client

    def unsettled(self, client: GateClient, handshake: tuple[bytes, ...]) -> tuple[bytes, ...]:
        """Of a replay's handshake requests for attached `client`, those that would change
        something on its server connection: not a CLIENT SETINFO that connection was
        answered OK for with the same bytes (a kept one's, from the schedule before: RESET
        keeps the library's name and version, gate/upstream_pool.py), whose reply nobody
        reads (`hand`)."""
        upstream = client.to_server
        if upstream is None or not upstream.library:
            return handshake
        done = set(upstream.library.values())
        return tuple(r for r in handshake if r not in done)

    def hand(self, client: GateClient, requests: bytes) -> list[Held]:
        """Whole requests sent on an attached connection, as if its program sent them;
        each one's Held (its `done`: the reply). The handshake handed before a stepped
        command goes to the server with it, in one write, when it is released: no process
        waits for the handshake's replies (a replay's, explore/program_tree.py), and what
        it sets is its connection's own (passes_unstepped)."""
        if client.closed:
            raise ConnectionError(f"{client.name}: connection closed")
        helds: list[Held] = []
        buf = bytearray(requests)
        if self._hold_requests(client, buf, helds) != len(buf):
            raise FrameError("not whole requests")
        stepped = None
        for held in reversed(helds):   # (each with the next stepped one after it)
            if not held.unstepped:
                stepped = held
            elif held.local is None:
                held.goes_with = stepped
        client.pump()
        return helds

    async def splice(self, label: str, clients: dict[int, GateClient], failed: Callable[[], None]) -> str:
        """A socket for the real program `label`, taking over the attached connections
        `clients` (by number: its connections in the order it opens them): on each, what
        the program sends is answered with what the attached connection was answered,
        request by request, without the server (it went there already); past that the
        connection is the program's own. `failed()` if it sends anything else than was
        sent there (then it is not let on). The URL to give it, as `listen`'s."""
        self._splicing[label] = (dict(clients), failed, [0])
        return await self.listen(label)

    async def _serve_spliced(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                             client: GateClient, failed: Callable[[], None]) -> None:
        """An attached connection taken over by its program (`splice`)."""
        sent = [h for h in self.log if h.client is client]   # (what it was answered, in its order)
        client.to_program = writer
        client.received = reader if isinstance(reader, Received) else None
        try:
            await self._take_requests(client, reader, lambda: client.closed, sent, failed)
        except (FrameError, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            client.fail_pending()

    async def _take_requests(self, client: GateClient, reader: asyncio.StreamReader, over: Callable[[], bool],
                             answered: list[Held] | None = None, failed: Callable[[], None] | None = None) -> None:
        """Each request the program sends on `reader`, held as its connection's next
        (`_hold`), until it closes or `over()`; the first ones answered with `answered`'s
        replies instead, each only if it is that Held's request byte for byte (else
        `failed()`, and no more is read)."""
        answered = answered or []
        buf = bytearray()
        while not over():
            data = await reader.read(RECV)
            if not data:
                return
            client.taken += len(data)
            buf += data
            while answered and (got := request(buf, 0)) is not None:
                raw = bytes(buf[:got[1]])
                if raw != answered[0].raw:
                    if client.to_server is not None and raw in client.to_server.library.values():
                        client.to_program.write(b"+OK\r\n")   # type: ignore[union-attr]  # (a CLIENT SETINFO the
                        del buf[:got[1]]   # replay left out, `unsettled`: answered as the server answered it)
                        continue
                    if failed is not None:
                        failed()
                    return
                client.to_program.write(answered.pop(0).reply or b"")   # type: ignore[union-attr]  # (set)
                del buf[:got[1]]
            if answered:
                continue
            del buf[:self._hold_requests(client, buf)]
            client.pump()
            if len(client.queue) > MAX_HELD:
                await self.wait_for(lambda: len(client.queue) <= MAX_HELD or client.closed, 3600)

    # ---- one program's connection

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     label: str | None, password: bytes | None = None) -> None:
        task = asyncio.current_task()
        assert task is not None  # (the connection's own)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if label is not None and (splicing := self._splicing.get(label)) is not None:   # (a replay's real
            clients, failed, opened = splicing   # program: its connections, in the order it opens them)
            opened[0] += 1
            if opened[0] in clients:
                await self._serve_spliced(reader, writer, clients[opened[0]], failed)
                return
            self._counts[label] = max(self._counts.get(label, 0), opened[0] - 1)   # (its own number next)
        origin: Origin | None = None
        if label is None:  # a program started by hand: named after itself, and how it was started kept
            named = await self._name_by_hand(writer)
            if named is None:
                return
            label, origin = named
        number = self._counts[label] = self._counts.get(label, 0) + 1
        client = GateClient(self, label, number, password)
        client.origin = origin
        client.to_program = writer
        client.received = reader if isinstance(reader, Received) else None
        self.clients.append(client)
        try:
            try:
                await self._connect_upstream(client)
            except (OSError, asyncio.TimeoutError, ConnectionError) as exc:
                writer.write(b"-ERR the playground's server cannot be reached: %s\r\n"
                             % str(exc).replace("\r", " ").replace("\n", " ").encode())
                await writer.drain()
                return
            self.changed()
            await self._take_requests(client, reader, lambda: client.closed)
        except (FrameError, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:  # the loop is ending (the app quits): asyncio's stream
            pass                        # callback would log a cancelled handler as an error
        finally:
            client.fail_pending()

    async def _name_by_hand(self, writer: asyncio.StreamWriter) -> tuple[str, Origin | None] | None:
        """A program started by hand: its name and how it was started; None, its connection
        refused and closed, for an exploration's run of a program that came to the gate
        instead of the server it was given. Its name is its script's for an interpreter
        (`python rmw.py`: rmw.py), else its process's; a second process of the same name
        is "rmw.py (2)" (its connections are numbered apart: not rmw.py#2, which would
        read as the first one's second connection)."""
        pid = peer_pid(writer)
        origin = peer_origin(pid)
        process = (pid, origin.argv if origin is not None else None)
        label = self._hand_labels.get(process) if pid is not None else None
        if label is None:
            base = _script_name(origin) or process_name(pid) or "program"
            taken = set(self._hand_labels.values())
            label = base if base not in taken else next(
                f"{base} ({n})" for n in range(2, len(taken) + 3) if f"{base} ({n})" not in taken)
            if pid is not None:
                self._hand_labels[process] = label
        if origin is not None and origin.rerun is not None:  # an exploration's run of a program, astray
            try:
                writer.write(b"-ERR redis-playground: this program is run again by an exploration and must use "
                             b"the server it is given (REDIS_URL), not the playground's own gate\r\n")
                await writer.drain()
            except (OSError, ConnectionError):
                pass
            writer.close()
            return None
        return label, origin

    def _hold_requests(self, client: GateClient, buf: bytearray, into: list[Held] | None = None) -> int:
        """Each whole request at the start of `buf`, in turn, the client's next command
        (`_hold`; each also into `into`); how many bytes they took (FrameError: one is not
        a request)."""
        pos = 0
        while pos < len(buf):
            got = request(buf, pos)
            if got is None:
                break
            (argv, end), start = got, pos
            pos = end
            held = self._hold(client, argv, bytes(buf[start:end]))
            if into is not None:
                into.append(held)
        return pos

    def _hold(self, client: GateClient, argv: list[bytes], raw: bytes) -> Held:
        """One request queued as a Held command: stepped (a move of the program), or
        passing unstepped (its connection's setup, answered here or let through), and then
        kept among the commands sent before its next stepped one (explore/program_tree.py
        replays them)."""
        local = None
        if client.password is not None:
            from playground.gate.auth import admit
            client.authed, local, instead = admit(argv, client.password, client.authed)
            if instead is not None:  # HELLO … AUTH: the password stays here
                argv, raw = instead, pack_command(instead)
        self._arrivals += 1
        self.noted(argv)
        unstepped = local is not None or passes_unstepped(argv, first=not client.stepped)
        client.stepped = client.stepped or not unstepped
        held = Held(client, argv, raw, self._arrivals, unstepped, local=local,
                    pushes=sum(c.pushes for c in self.clients if c.label == client.label))
        client.queue.append(held)
        if unstepped:
            client.before.append(raw)
        else:   # (more than MAX_BEFORE: explore/program_tree.py does not replay it)
            held.before = tuple(client.before) if len(client.before) <= MAX_BEFORE else None
            client.before.clear()
        if len(client.before) > MAX_BEFORE:
            client.before[:] = client.before[-MAX_BEFORE - 1:]
        return held

    async def _connect_upstream(self, client: GateClient) -> None:
        """`client`'s own connection to the server (`Upstream`), named after it, and its
        CLIENT ID. The handshake's replies are read at once when they come within
        QUICK_LATE (else waited for, up to CONNECT_TIMEOUT: a script may hold the server)."""
        kept = self.pool.take(client.name) if self.pool is not None else None
        if kept is not None:
            self._take_upstream(client, kept)
            return
        address = self.address()
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_UNIX if address.path else socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            async with asyncio.timeout(CONNECT_TIMEOUT):   # (no task: a unix socket connects at once)
                await loop.sock_connect(sock, address.path or (address.host, address.port))
            hello = [*self._hello(client), [b"CLIENT", b"ID"]]
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await loop.sock_sendall(sock, pack_pipeline(hello))
            buf = bytearray()
            for _ in hello:
                while (end := reply_end(buf)) is None:
                    if select.select([sock], [], [], QUICK_LATE)[0]:
                        data = sock.recv(RECV)
                    else:
                        async with asyncio.timeout(CONNECT_TIMEOUT):
                            data = await loop.sock_recv(sock, RECV)
                    if not data:
                        raise ConnectionError("closed by the server")
                    buf += data
                if buf[:1] == b"-":
                    raise ConnectionError(bytes(buf[1:end - 2]).decode("utf-8", "replace"))
                last = bytes(buf[:end])
                del buf[:end]
        except BaseException:
            sock.close()
            raise
        client.server_id = int(last[1:-2])  # (CLIENT ID's :<id>)
        client.to_server = Upstream(sock, lambda data: self._from_server(client, data))

    def _take_upstream(self, client: GateClient, kept: tuple[Upstream, int]) -> None:
        """A kept server connection (and its CLIENT ID) is `client`'s from now on."""
        upstream, client.server_id = kept
        upstream.rebind(lambda data: self._from_server(client, data))
        client.to_server = upstream

    def _hello(self, client: GateClient) -> list[list[bytes]]:
        """What makes a server connection `client`'s: AUTH as the learner (where the
        server asks for it) and its name."""
        address = self.address()
        hello = []
        if address.password is not None:
            hello.append([b"AUTH", *([address.username.encode()] if address.username else []),
                          address.password.encode()])
        # the server takes only ! to ~ in a name: a program named "my prog", 程序 or with a
        # control character connects all the same (the panel shows its name as it is)
        hello.append([b"CLIENT", b"SETNAME", re.sub(r"[^!-~]", "_", client.name).encode()])
        return hello

    def let_go(self, client: GateClient, upstream: Upstream, reusable: bool) -> None:
        """`client` ended: its server connection kept in the pool for the next client of
        its name (`reusable`: nothing of it on its way), else closed."""
        if self.pool is not None and reusable and client.server_id and not upstream.closed:
            self.pool.put(client.name, upstream, client.server_id, self._hello(client))
        else:
            upstream.close()

    def answer_now(self, client: GateClient) -> None:
        """Right after `client`'s requests went to the server: read their replies here while
        none of them can block and each comes within QUICK_LATE (the event loop reads the
        rest): a step's reply is in before its release returns."""
        up = client.to_server
        if up is not None:   # (the library's handshake too: HELLO, AUTH, CLIENT SETINFO ... are answered at once)
            up.read_now(lambda: bool(client.inflight) and all(h.unstepped or _quick(h.argv) for h in client.inflight),
                        QUICK_LATE)

    def _finish(self, client: GateClient, head: Held) -> None:
        """`head`'s reply is back: numbered in server order (a blocked command's only
        after the reply of the command that freed it: gate/reply_order.py)."""
        self._order.answered(client, head, self.clients)

    def _numbered(self, client: GateClient, head: Held) -> None:
        """`head` is done: its server-order number (the library's handshake is no line of
        the program's: none), the log, who listens, and whoever waits for it."""
        if not head.unstepped:
            head.seq = self.next_seq()
            if head.argv:
                client.last_answered = head
        elif head.reply == b"+OK\r\n" and client.to_server is not None and (attr := _setinfo(head.argv)):
            client.to_server.library[attr] = head.raw
        self.log.append(head)
        for listener in self.answered:
            listener(client, head)
        if not head.done.done():
            head.done.set_result(head.reply)

    def settle_silent(self, client: GateClient) -> None:
        """Commands the server answers with nothing (after CLIENT REPLY OFF or SKIP) are
        done once every command before them is: no reply of a later one is theirs."""
        while client.inflight and client.inflight[0].silent:
            head = client.inflight.popleft()
            head.reply = b""
            self._finish(client, head)

    def _from_server(self, client: GateClient, data: bytes) -> None:
        """What the server sent `client` (b"": it closed the connection): to the program as
        it comes, each whole reply matched to its command. Each frame is taken off the
        buffer before anyone is told of it: a reply told may lead to a request whose
        reply is read (and taken) meanwhile."""
        up, program = client.to_server, client.to_program
        if up is None or program is None or client.closed:
            return
        if not data:
            up.close()   # (the server closed it: nothing to keep)
            client.fail_pending()
            return
        program.write(data)
        up.buf += data
        try:
            while (end := reply_end(up.buf)) is not None:
                frame = bytes(up.buf[:end])
                del up.buf[:end]
                head = client.inflight[0] if client.inflight else None
                if head is None or is_message(frame, head):
                    client.pushed = True
                    client.pushes += 1
                    continue  # a push: a message, an invalidation
                head.reply = frame if head.reply is None else head.reply + frame
                head.frames += 1
                if head.frames < replies_expected(head.argv):
                    continue  # SUBSCRIBE a b: a confirmation each
                client.inflight.popleft()
                self._finish(client, head)
                self.settle_silent(client)
                if not client.inflight:
                    client.pump()  # a reply of the gate's own may be next
        except FrameError:
            up.close()
            client.fail_pending()
            return
        self.changed()
