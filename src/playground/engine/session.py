"""One client (A, B, ...): its own connection, what it sends, and what it knows of itself.

Each session owns exactly one connection (no pool), so WATCH, MULTI and subscriptions
stay where the user put them. What only the client can know (how many commands were
QUEUED, which keys it WATCHed) is tracked here from the replies; what the server knows
(flags x, d, b) is filled in by `observer.Observer`.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from playground.engine.catalogue import SCRIPT_COMMANDS, SUBSCRIBES
from playground.engine.client_state import ClientState as ClientState  # (re-exported: a client's state)
from playground.engine.client_state import replace
from playground.engine.lua_debugger import LuaDebugging
from playground.engine.session_stream import ConnectionLost as ConnectionLost  # (re-exported: what a read raises,
from playground.engine.session_stream import MonitorLine as MonitorLine  # and what it gives in MONITOR)
from playground.engine.session_stream import SubscriptionStream
from playground.engine.units import Unit, UnitTracker, hello_protocol
from playground.i18n import tr
from playground.resp.connection import Address, TypedConnection, pack_pipeline
from playground.resp.replies import Err, Int, Reply, Status


# Commands whose reply may change the client-side state (see Session.track and
# UnitTracker.note): every other command outside MULTI and WATCH changes none of it.
_TRACKED = frozenset((b"multi", b"exec", b"discard", b"watch", b"unwatch", b"reset", b"select", b"hello"))


class NoReply(enum.Enum):
    """What `execute` returns instead of a reply (each compared by identity)."""

    STREAMING = "streaming"
    LATE = "late"


STREAMING: Final = NoReply.STREAMING
"""What `execute` returns for a command whose replies arrive on the subscription stream."""

LATE: Final = NoReply.LATE
"""What `execute(argv, late=...)` returns when no byte of the reply came in time."""


class Session:
    """A named client with one dedicated connection to the server."""

    def __init__(self, name: str, address: Address | None = None,
                 on_stream: Callable[["Session", object], None] | None = None) -> None:
        self.name = name
        self.address = address
        self.on_stream = on_stream or (lambda session, frame: None)
        self.state = ClientState(name)
        self._conn: TypedConnection | None = None
        self.stream = SubscriptionStream(self)
        """Its replies after SUBSCRIBE or MONITOR, as they stream in."""
        self.running: asyncio.Task[Any] | None = None
        self.dropped: str | None = None  # why the connection was found closed, until it is reopened
        self.lost: str | None = None   # set when the stream reader lost the connection
        self._start_resp = 2
        self.units = UnitTracker(name)
        self.last_unit: Unit | None = None  # the unit the last command closed, if any
        self.keep_units = True
        """False: a single command outside MULTI closes no unit (`repl`: nobody reads the
        server order); transactions and the client's state are followed as always."""
        self.named = True
        """False: the connection gets no CLIENT SETNAME (`repl`: CLIENT GETNAME answers
        (nil), as to redis-cli); the playground knows it by its client id either way."""
        self.cancelling: asyncio.Task[Any] | None = None  # the task `cancel()` is cancelling (Ctrl+C)
        self.waited = 0.0  # seconds the last reply took to start arriving (the server's time)
        self._sent_at = 0.0  # when the command whose reply is awaited was sent
        self._debugging = False  # ... and whether it runs under redis-cli's Lua debugger
        self.ldb = LuaDebugging()
        self.script_sent: tuple[bytes, ...] | None = None  # a script line sent whose reply has not come (url_guard)

    # -- connection ---------------------------------------------------------------

    async def connect(self, address: Address | None = None, resp: int | None = None) -> None:
        """(Re)connect with a fresh server-side client: no MULTI, WATCH or subscriptions.

        `resp=3` starts the client in RESP3 (like `redis-cli -3`); a reconnect keeps the
        protocol the session was started with.
        """
        await self.close()
        self.dropped = None
        self.script_sent = None
        if address is not None:
            self.address = address
        if resp is not None:
            self._start_resp = resp
        if self.address is None:
            raise ConnectionLost(tr("client {name} is not connected", name=self.name))
        conn = TypedConnection(self.address)
        hello = [[b"CLIENT", b"SETNAME", self.name.encode()]] if self.named else []
        hello.append([b"CLIENT", b"ID"])
        if self._start_resp == 3:
            hello.append([b"HELLO", b"3"])
        try:
            await conn.connect()
            replies = await conn.pipeline(hello)  # one round trip
        except OSError as exc:
            await conn.close()
            raise ConnectionLost(tr("client {name}: {error}", name=self.name, error=exc)) from None
        checked = replies[:len(hello) - 1] if self._start_resp == 3 else replies  # (SETNAME and) CLIENT ID
        client_id = checked[-1]
        for reply in checked:
            if isinstance(reply, Err):
                await conn.close()
                hint = tr(" (the server is running a script: wait for it to end, or SCRIPT KILL it; "
                          "once it has written, only SHUTDOWN NOSAVE stops it)") if reply.code == "BUSY" else ""
                raise ConnectionLost(tr("client {name}: cannot connect: ", name=self.name)
                                     + f"{reply.message.decode(errors='replace')}{hint}")
        conn.on_push = lambda frame: self.on_stream(self, frame)
        self._conn = conn
        self.lost = None
        self.stream.restart()
        self.ldb.active = False
        self.units.clear()
        self.state = ClientState(self.name, client_id=int(client_id) if isinstance(client_id, Int) else None,
                                 db=self._db, resp=self._start_resp)

    # -- a clean client on the same connection ----------------------------------------
    # RESET, then its name and a --url's database back: a scenario part's fresh start
    # (Playground.reset sends every client's in one wait: fresh_start.reset_together).
    # Reconnects instead when the connection is busy or the server has no RESET (before 6.2).

    async def reset(self, then: Iterable[Sequence[bytes]] = ()) -> Sequence[Reply | NoReply]:
        """A clean client (no MULTI, WATCH, subscriptions, tracking; db 0; RESP2), then its
        name and a --url's database back, in one round trip.

        Args:
            then: more commands sent in that round trip; the client's state follows
                them as `execute` would.

        Returns:
            The replies to `then`.
        """
        lines = [list(argv) for argv in then]
        conn = self._reset_connection()
        if conn is None:
            return await self._anew(lines)
        commands = self._reset_commands()
        try:
            replies = await conn.pipeline(commands + lines)
        except OSError:
            return await self._anew(lines)
        if any(isinstance(r, Err) for r in replies[:self._reset_own()]):
            return await self._anew(lines)
        self._reset_done()
        for argv, reply in zip(lines, replies[len(commands):], strict=True):  # (a reply per command)
            self.track(argv, reply)
        return replies[len(commands):]

    async def send_reset(self) -> int | None:
        """Send what `reset` sends without waiting for its replies.

        Returns:
            How many replies `read_reset` is to read; None when the client is to be
            `reset` the long way.
        """
        conn = self._reset_connection()
        if conn is None:
            return None
        commands = self._reset_commands()
        try:
            await conn.send_packed_command(pack_pipeline(commands))
        except OSError:
            return None
        return len(commands)

    async def read_reset(self, sent: int | None) -> None:
        """The end of a reset that `send_reset` began.

        Args:
            sent: what `send_reset` returned.
        """
        if sent is None:
            await self.reset()
            return
        conn = self._conn
        try:
            if conn is None:  # (dropped meanwhile)
                raise ConnectionError("not connected")
            replies = [await conn.read_response() for _ in range(sent)]
        except OSError:
            await self.connect()
            return
        if any(isinstance(r, Err) for r in replies[:self._reset_own()]):
            await self.connect()
            return
        self._reset_done()

    def _reset_connection(self) -> TypedConnection | None:
        """The connection a reset goes on; None when the client is to be reset the long way
        (a new connection: none open, streaming, or a reply pending)."""
        if self.streaming or self.state.pending is not None:
            return None
        return self._conn

    @property
    def _db(self) -> int:
        """The database a new connection starts in (a --url's /db)."""
        return self.address.db if self.address is not None else 0

    def _reset_own(self) -> int:
        """How many of `_reset_commands` are RESET and the name (whose errors mean: reconnect)."""
        return 2 if self.named else 1

    def _reset_commands(self) -> list[list[bytes]]:
        commands = [[b"RESET"], [b"CLIENT", b"SETNAME", self.name.encode()]] if self.named else [[b"RESET"]]
        if self._start_resp == 3:
            commands.append([b"HELLO", b"3"])
        if self._db:            # a --url's /db: where a new connection starts
            commands.append([b"SELECT", b"%d" % self._db])
        return commands

    async def _anew(self, then: list[list[bytes]]) -> list[Reply | NoReply]:
        await self.connect()
        return [await self.execute(argv) for argv in then]

    def _reset_done(self) -> None:
        self.units.clear()
        self.state = ClientState(self.name, client_id=self.state.client_id, db=self._db,
                                 resp=self._start_resp)

    async def close(self) -> None:
        self.ldb.active = False  # the server ends a debugging session whose connection closes
        await self.stream.close()
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.close()

    @property
    def connected(self) -> bool:
        return self._conn is not None

    @property
    def start_resp(self) -> int:
        """The protocol each new connection of this client starts in (3: like redis-cli -3)."""
        return self._start_resp

    @property
    def connection(self) -> TypedConnection | None:
        """The open connection (None when not connected): for a caller that pipelines."""
        return self._conn

    def forget_connection(self, why: str) -> None:
        """The connection failed under a caller that pipelines, or the server closed it
        after a line's reply (`Playground.closed_by_own_line`): forget it (the next
        command meets it closed, reconnects, and says `why` it was lost)."""
        self.dropped = why
        self._conn = None
        self.state = replace(self.state, pending=None)

    @property
    def streaming(self) -> bool:
        """True while replies arrive on the stream (after SUBSCRIBE or MONITOR)."""
        return self.stream.active

    @property
    def monitoring(self) -> bool:
        return self.stream.monitoring and self.streaming

    async def wait_stream_drained(self) -> None:
        """Wait until every frame owed to the commands sent so far has arrived."""
        await self.stream.wait_drained()

    async def sync(self) -> None:
        """Make sure every message the server sent this client so far has been delivered."""
        await self.stream.sync()

    # -- what its stream asks of it (session_stream.StreamOwner) -------------------

    def in_multi(self) -> bool:
        return self.state.in_multi

    def stream_frame(self, frame: object) -> None:
        self.on_stream(self, frame)

    def subscriptions_changed(self, total: int) -> None:
        self.state = replace(self.state, subscriptions=total)

    def reset_seen(self) -> None:
        self.units.clear()
        self.state = ClientState(self.name, client_id=self.state.client_id)

    def stream_lost(self, why: str) -> None:
        self._conn = None
        self.lost = why

    # -- commands -----------------------------------------------------------------

    async def execute(self, argv: list[bytes], late: float | None = None) -> Reply | NoReply:
        """Send one command and return its typed reply (STREAMING while subscribed or
        monitoring). `last_unit` is then the unit the command closed, if any.

        `late`: if no byte of the reply has come within `late` seconds, return LATE at
        once, the command sent and its reply still to come: `reply_to(argv)` waits for
        it (in whatever task takes the line over: engine/settled_line.py). Until then
        the command is not marked pending nor its task running: a reply that comes at
        once costs no copy of the state, and Ctrl+C finds nothing to cancel yet.

        Raises ConnectionLost if the connection drops before the reply arrives.
        """
        self.last_unit = None
        if self._conn is None:
            raise ConnectionLost(tr("client {name} is not connected", name=self.name))
        cmd = argv[0].lower()
        if self.streaming or cmd in SUBSCRIBES or (cmd == b"monitor" and self.units.open is None):
            if cmd == b"monitor":
                self.stream.monitoring = True
                self.state = replace(self.state, monitoring=True)
            await self.stream.send(self._conn, argv)
            return STREAMING
        if cmd in SCRIPT_COMMANDS:
            self.script_sent = tuple(argv)
        if late is None:
            self.state = replace(self.state, pending=tuple(argv))
            self.running = asyncio.current_task()
        self._debugging = self.ldb.before(argv)
        try:
            self._sent_at = time.monotonic()
            await self._conn.send_command(*argv)
            if late is not None and not await self._conn.first_bytes(late):
                self.state = replace(self.state, pending=tuple(argv))  # waiting, as anyone may see from now on
                return LATE
        except OSError as exc:
            return self._dropped(cmd, exc)
        finally:
            self.running = None
        return await self.reply_to(argv)

    async def reply_to(self, argv: list[bytes]) -> Reply:
        """The reply to `argv`, which `execute` sent (as `execute` returns it)."""
        cmd = argv[0].lower()
        if self._conn is None:  # (dropped while the reply was late)
            return self._dropped(cmd, ConnectionError(tr("client {name} is not connected", name=self.name)))
        self.running = asyncio.current_task()
        try:
            reply = await self._conn.read_response()
            self.waited = self._conn.first_line_at - self._sent_at
            if self._debugging and self.ldb.after(reply):  # the session ended: the EVAL's own reply follows
                self.ldb.final = await self._conn.read_response()
        except OSError as exc:
            return self._dropped(cmd, exc)
        finally:
            self.running = None
        self.track(argv, reply)  # pending=None too: one state copy per reply
        if cmd == b"quit" and isinstance(reply, Status):
            self._after_quit()
        elif self.ldb.ended:  # the server closes the connection after a debugging session
            self._after_quit()
        return reply

    def _dropped(self, cmd: bytes, exc: OSError) -> Reply:
        """The connection dropped under `cmd`: ConnectionLost (QUIT's OK, which the server
        may not have sent before closing, excepted)."""
        self._conn = None
        self.state = replace(self.state, pending=None)
        if cmd == b"quit":  # the server may close before its OK reaches us
            self._after_quit()
            return Status(b"OK")
        raise ConnectionLost(str(exc)) from None

    def _after_quit(self) -> None:
        """QUIT: the server closes the connection after its OK; the client is shown
        disconnected until its next command reconnects it."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            asyncio.ensure_future(conn.close())
        self.units.clear()
        self.state = ClientState(self.name, disconnected=True, resp=self._start_resp)

    def track(self, argv: Sequence[bytes], reply: object) -> None:
        """Client-side state and units from one command and its reply (the reply has
        arrived: nothing is pending any more)."""
        units = self.units
        cmd = argv[0].lower()
        state = self.state
        if self.script_sent is not None and cmd in SCRIPT_COMMANDS:
            self.script_sent = None
        if (units.open is None and cmd not in _TRACKED and not units.watched and state.pending is None
                and not state.in_multi and not state.dirty and not state.watched and not state.exec_will_abort
                and not state.queued):  # a plain command: nothing to change but the unit
            self.last_unit = units.note(argv, reply) if self.keep_units else None
            return
        self.last_unit = units.note(argv, reply)
        if cmd == b"reset" and isinstance(reply, Status):
            self.state = ClientState(self.name, client_id=state.client_id)
            return
        tx = units.open
        changes = dict(pending=None, in_multi=tx is not None, queued=len(tx.commands) if tx else 0,
                       exec_will_abort=bool(tx and tx.rejected), watched=units.watched)
        if (tx is None and state.in_multi) or not units.watched:
            changes["dirty"] = False
            changes["dirty_keys"] = ()
        if cmd == b"select" and isinstance(reply, Status) and len(argv) == 2:
            changes["db"] = int(argv[1])
        elif cmd == b"hello":
            proto = hello_protocol(reply)
            if proto is not None:
                changes["resp"] = proto
        self.state = replace(state, **changes)

    async def cancel(self, may_have_run: str | None = None, dropped: bool = False) -> str:
        """Abandon a pending command: close the connection and open a new one; what the
        client lost, in words. `may_have_run`: the command (as shown) that was sent, may
        have written and whose reply never came: named, and never followed by "nothing
        else lost"; `dropped`: the connection was lost, not cancelled."""
        task = self.running
        # (not the task asking: a pipelined run that found the connection dropped
        # reconnects from the task that is marked as running it, and a task that awaits
        # its own cancellation recurses without end)
        if task is not None and not task.done() and task is not asyncio.current_task():
            self.cancelling = task  # (the line's LineRun ends with "cancelled"; any other cancellation stands)
            try:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            finally:
                self.cancelling = None
        old = self.state
        await self.connect()
        lost = []
        if old.in_multi:
            lost.append(tr("its MULTI"))
        if old.watched:
            lost.append(tr("its WATCH"))
        if old.subscribed:
            lost.append(tr("its subscriptions"))
        if may_have_run is None and not dropped:
            what = tr(", ").join(lost) if lost else tr("nothing else")
            return tr("client {name}: cancelled; reconnected as a new client ({what} lost)", name=self.name, what=what)
        if may_have_run is not None:
            text = tr("client {name}: {command} may have run (its reply never came); reconnected as a new client",
                      name=self.name, command=may_have_run)
        else:
            text = tr("client {client}: reconnected as a new client", client=self.name)
        return text + (" " + tr("({what} lost)", what=tr(", ").join(lost)) if lost else "")
