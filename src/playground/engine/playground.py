"""The playground: one server, named client sessions, and the observer of their state.

Commands are sent by the one command path (engine/executor.py), which asks
`check_allowed` and `note_scripts` here first; `refresh_states` asks the server once
for every client's state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from playground.engine import fresh_start
from playground.engine.attribution import WriteTracker
from playground.engine import url_guard
from playground.engine.catalogue import Catalogue, may_load_scripts, script_run
from playground.engine.guard import refusal
from playground.engine.key_reader import Inspector
from playground.engine.observer import Observer
from playground.engine.own_traffic import OwnTraffic
from playground.engine.server_order import ServerOrder
from playground.resp.address import Address
from playground.resp.connection import CLOSED_BY_SERVER
from playground.resp.side_connection import SideConnection
from playground.errors import ServerError
from playground.engine.session import NoReply, Session
from playground.resp.replies import Int, Reply
from playground.i18n import tr
from playground.topology_kinds import SINGLE

if TYPE_CHECKING:  # (imported when used: `repl --url` needs neither)
    from playground.engine.changes import ChangeFeed
    from playground.engine.help import HelpIndex
    from playground.server import PrivateServer as PrivateServer  # (re-exported: the TUI's make_app takes
    from playground.server import ServerBinary                     # either, as the CLI spawned it)
    from playground.server.topology import Topology as Topology

_POLL_MIN, _POLL_MAX = 0.001, 0.05


class Refused(Exception):
    """A command the playground will not send to a server the user did not give it."""


class Playground:
    """A server plus clients A, B, ... each on its own connection."""

    def __init__(self, server: PrivateServer | Topology | None = None, url: Address | None = None,
                 clients: Iterable[str] = ("A", "B"), allow_flush: bool = False,
                 on_stream: Callable[[Session, object], None] | None = None, resp: int = 2) -> None:
        if (server is None) == (url is None):
            raise ValueError("give exactly one of server or url")
        self.server = server
        self.url = url
        self.allow_flush = allow_flush
        self.resp = resp
        self.sessions = {name: Session(name, on_stream=on_stream) for name in clients}
        self.observer: Observer | None = None
        self.reader: Inspector | None = None  # read-only connection: inspector and checks
        self.admin: SideConnection | None = None  # flushes: never through a client's connection
        self.writes: WriteTracker | None = None  # who last wrote each key (write attribution)
        self.changes: ChangeFeed | None = None  # the server's key events, when an executor records them
        self._help: HelpIndex | None = None
        self.scripts_seen: dict[str, bytes | None] = {}  # sha1 -> source (None if only the sha was seen)
        self.scripts_clean = False  # no line since the last flush could have cached a script (note_scripts)
        self.shutdown_asked = False  # a client sent SHUTDOWN and no reply said it failed: a connection that
        # closes now is looked at as the server's end (engine/executor.py's connection_lost)
        self.own_traffic = OwnTraffic()
        self.order = ServerOrder()  # every unit in server order, and the playground's own resets
        self._seq = 0
        self.follows_redirects = False  # like redis-cli -c: a cluster (engine/redirect.py)
        self.dangerous: frozenset[bytes] = frozenset()  # a --url server's @dangerous commands (guard.py)
        self._catalogue: Catalogue | None = None
        self._catalogue_of: Inspector | None = None  # the reader `_catalogue` was made for
        self.script_limit: int | None = None        # what reset() last set (None: as the server started)
        self.script_limit_start: bytes | None = None  # lua-time-limit as the server started
        self.restart_listeners: list[Callable[[], None]] = []  # told after every restart, whoever asked
        # awaited first on close: a lesson's running programs (scenario/programs/lesson.py)
        self.closing: list[Callable[[], Awaitable[None]]] = []

    def next_seq(self) -> int:
        """The next server-order number: one counter for every client, in reply order."""
        self._seq += 1
        self.order.last_seq = self._seq
        return self._seq

    def restart_numbering(self) -> None:
        """Server-order numbers start again at #1 and the server order forgets its rows: a
        lesson back at its start numbers its replies (and its why-notes' #N) as it did on
        its first run."""
        self._seq = 0
        self.order.rows.clear()
        self.order.last_seq = 0
        self.order.version += 1

    @property
    def catalogue(self) -> Catalogue:
        """What each command does, asked of this server once per name (engine/catalogue.py)."""
        if self._catalogue is None or self._catalogue_of is not self.reader:
            own = self.reader.catalogue if self.reader is not None else None   # a cluster's reader routes by its own
            self._catalogue = own if own is not None else Catalogue(self.reader)
            self._catalogue_of = self.reader
        return self._catalogue

    @classmethod
    def create(cls, server_choice: str | None = None, url: "str | Address | None" = None,
               topology: str = SINGLE.name, replicas: int | None = None, **kwargs: Any) -> "Playground":
        """From command-line options: a private server (default) or an explicit --url;
        `topology` replica or cluster: private nodes on 127.0.0.1 (server/topology.py)."""
        if url:
            return cls(url=url if isinstance(url, Address) else Address.from_url(url), **kwargs)
        from playground.server import choose_binary
        from playground.server import make_server
        return cls(server=make_server(choose_binary(server_choice), topology, replicas), **kwargs)

    @property
    def topology(self) -> Topology | None:
        """The private Topology (replica or cluster), or None (one server, or --url)."""
        # (told by its nodes: the Topology class is not imported, as with --url nothing of the servers is)
        return cast("Topology", self.server) if hasattr(self.server, "nodes") else None

    @property
    def _given_url(self) -> Address:
        assert self.url is not None  # (no server: a url, __init__ says)
        return self.url

    @property
    def address(self) -> Address:
        """Where the learners' clients connect (the sandbox's restricted user on a private server)."""
        if self.server is not None:
            return self.server.address
        return self._given_url

    @property
    def admin_address(self) -> Address:
        """Where the app's own connections (observer, inspector, admin) connect: on a
        private server as the app's own ACL user (server/sandbox.py); under --url, the URL."""
        if self.server is not None:
            return self.server.admin_address
        return self._given_url

    @property
    def label(self) -> str:
        """What the server is, e.g. "Valkey 9.1.2 (bundled)"."""
        if self.server is not None:
            return self.server.label
        return tr("external server at {url}", url=self._given_url.describe())

    @property
    def private(self) -> bool:
        return self.server is not None

    def session(self, name: str) -> Session:
        return self.sessions[name]

    async def start(self) -> "Playground":
        """Server up (started here unless already spawned), every client connected."""
        if self.server is not None:
            if not self.server.alive():
                self.server.start()
            else:
                self.server.wait_ready()  # spawned early by the CLI
        address, own = self.address, self.admin_address
        self.observer = Observer(own)
        self.reader = Inspector(own, scripts=self.private)  # a --url server's script cache is not ours
        if self.topology is not None and self.topology.kind.sharded:
            from playground.engine.cluster_reader import ClusterInspector
            self.reader = ClusterInspector(own, self.topology)
        self.reader.no_scripts = lambda: any(s.ldb.on_eval or s.ldb.active for s in self.sessions.values())
        self.admin = SideConnection(own, "playground-admin")  # opened when first used
        self.writes = WriteTracker(self.reader, lambda: self.catalogue)
        for side in (self.observer, self.reader, self.admin):
            side.on_send = self.side_sent
        outcomes = await asyncio.gather(*(session.connect(address, resp=self.resp)
                                          for session in self.sessions.values()),
                                        self.observer.connect(), self.reader.connect(), return_exceptions=True)
        for outcome in outcomes:  # every connection tried to the end: none fails unseen after we return
            if isinstance(outcome, BaseException):
                raise outcome
        if self.topology is not None:
            self.follows_redirects = self.topology.kind.sharded
        elif self.url is not None:
            from playground.engine.topology_ops import url_is_cluster
            self.follows_redirects = await url_is_cluster(self)
            if not self.allow_flush:
                self.dangerous = await url_guard.dangerous_commands(self)
        return self

    def side_sent(self, commands: list[list[bytes]]) -> None:
        """The playground's own commands on their way (MONITOR does not show them)."""
        self.own_traffic.active = any(s.monitoring for s in self.sessions.values())
        self.own_traffic.sent(commands)

    async def close(self) -> None:
        for stop in list(self.closing):
            await stop()
        await self.stop_own_script()
        for session in self.sessions.values():
            await session.close()
        if self.observer is not None:
            await self.observer.close()
        if self.reader is not None:
            await self.reader.close()
        if self.admin is not None:
            await self.admin.close()
        if self.changes is not None:
            await self.changes.close()
        if self.server is not None:
            self.server.stop()

    async def __aenter__(self) -> "Playground":
        try:
            return await self.start()
        except BaseException:
            await self.close()
            raise

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _where(self) -> str:
        return tr("the private server") if self.private else self._given_url.describe()

    async def prepare_guard(self, lines: Iterable[Sequence[bytes]]) -> None:
        """Before `check_allowed` on a --url server (engine/url_guard.py)."""
        if not self.private and not self.allow_flush:
            await url_guard.prepare(self, lines)

    def check_allowed(self, argv: Sequence[bytes]) -> None:
        """Raise Refused for what the playground will not send (policy: engine/guard.py)."""
        catalogue = self._catalogue
        dangerous, named, identified = self.dangerous, None, False
        if argv and catalogue is not None:
            dangerous = dangerous | catalogue.dangerous(argv[0])
            named, identified = catalogue.own_name(argv[0]), catalogue.identified(argv[0])
        message = refusal(argv, private=self.private, allow_flush=self.allow_flush, where=self._where,
                          dangerous=dangerous, named=named, cluster=self.follows_redirects,
                          identified=identified,
                          not_described=catalogue.not_described if catalogue is not None else b"")
        if message:
            raise Refused(message)

    async def stop_own_script(self, sessions: Iterable[Session] | None = None) -> None:
        """SCRIPT KILL for a script a client still waits for on a --url server (engine/url_guard.py)."""
        if not self.private and self.admin is not None:
            await url_guard.stop_own_script(self, self.sessions.values() if sessions is None else sessions)

    def note_scripts(self, argv: Sequence[bytes]) -> None:
        """Remember the scripts clients use, to show which are still cached (and that a
        fresh start is to flush them)."""
        if may_load_scripts(argv):
            self.scripts_clean = False
        script = script_run(argv)
        if script is not None and script[1] is not None:
            self.scripts_seen[script[0]] = script[1]
        elif script is not None:
            self.scripts_seen.setdefault(script[0], None)

    async def cached_scripts(self) -> list[tuple[str, bytes | None, bool]]:
        """(sha1, source, still cached?) for every script seen, via SCRIPT EXISTS."""
        shas = list(self.scripts_seen)
        if not shas:
            return []
        assert self.reader is not None  # (started)
        reply, = await self.reader.run([[b"SCRIPT", b"EXISTS", *[s.encode() for s in shas]]])
        flags = [isinstance(x, Int) and bool(x) for x in reply] if isinstance(reply, list) else [False] * len(shas)
        return [(sha, self.scripts_seen[sha], cached)  # (a server answering fewer flags: those scripts left out)
                for sha, cached in zip(shas, flags, strict=False)]

    async def settle(self, name: str, pending: asyncio.Future[Any]) -> bool:
        """Wait until `pending` (an execute of client `name`) is done, or the server says
        that client is blocked (flag b) or running a busy script. True when done.

        Polls the observer with a growing interval: a reply that comes at once costs
        nothing, a blocked client is noticed within a few round trips.
        """
        holder = next((s for s in self.sessions.values() if s.ldb.holds_server), None)
        if holder is not None:  # a SYNC Lua debugging session: no one else is served, not even the observer
            if holder.name == name:
                await asyncio.wait([pending])
            return pending.done()
        delay = _POLL_MIN
        while not pending.done():
            if no_reply_coming(self.sessions[name]):  # it waits for ever, as redis-cli does (asked each
                await asyncio.wait([pending], timeout=_POLL_MAX)  # time: it is sent only after a reconnect)
                return pending.done()  # (an error still comes at once)
            done, _ = await asyncio.wait([pending], timeout=delay)
            if done:
                break
            refresh = asyncio.ensure_future(self.refresh_states())
            await asyncio.wait([pending, refresh], return_when=asyncio.FIRST_COMPLETED)
            if not refresh.done():  # the reply came while the observer waited (e.g. behind a CLIENT PAUSE ALL
                refresh.cancel()  # this very line asked for): done; the observer reconnects when next asked
                await asyncio.wait([refresh])
                break
            state = self.sessions[name].state
            if state.blocked or state.busy_script:
                return False
            delay = min(delay * 2, _POLL_MAX)
        return True

    async def help_index(self) -> HelpIndex:
        """The server's command help (COMMAND DOCS), read once per server."""
        from playground.engine.help import HelpIndex, load_help

        if self._help is None:
            if self.reader is None:  # (not started)
                return HelpIndex.bundled()
            try:
                self._help = await load_help(self.reader)
            except OSError:
                return HelpIndex.bundled()
        return self._help

    async def refresh_states(self) -> None:
        """Ask the server once for every client's flags (x, d, b)."""
        if self.observer is None:
            return
        sessions = list(self.sessions.values())
        if self.topology is not None:  # client ids are per node: only those on the observer's
            on = self.observer.address
            sessions = [s for s in sessions
                        if s.address is not None and (s.address.host, s.address.port) == (on.host, on.port)]
        try:
            await self.observer.refresh(sessions)
        except OSError:
            pass  # the server is gone or restarting; the next command will say so

    async def closed_by_own_line(self, session: Session) -> bool:
        """After the reply to a line that may close its own connection (the catalogue's
        `may_close_own_connection`: CLIENT KILL ... SKIPME no): did the server close it?
        Asked of the server (its client list, on the observer's connection), not of the
        socket, whose end may come after the client's next line went out: the server
        flags the connection before it writes the reply, and reads nothing more of it.
        If closed, the connection is forgotten (`Session.dropped`): the client's next line
        meets it closed and is lost, as in redis-cli, and a new one is opened; either way
        the same, however late the end arrives. False when the server cannot say (busy,
        no CLIENT LIST ID, the client on another node of a topology): the socket tells later."""
        client_id = session.state.client_id
        if self.observer is None or client_id is None or session.connection is None:
            return False
        if self.topology is not None:  # client ids are per node
            on, at = self.observer.address, session.address
            if at is None or (at.host, at.port) != (on.host, on.port):
                return False
        try:
            closed = await self.observer.closed(client_id)
        except OSError:
            return False  # the server is gone: the next command says so
        conn = session.connection
        if not closed or conn is None:
            return False
        session.forget_connection(CLOSED_BY_SERVER)
        await conn.close()  # (our end of it)
        return True

    def _server_stopped(self, wait: bool = False) -> bool:
        if self.server is None or self.server.process is None:
            return False
        if wait:
            try:
                self.server.process.wait(timeout=3)
            except Exception:
                pass
        return not self.server.alive()

    def server_stopped(self) -> bool:
        """True when our private server's process has exited."""
        return self._server_stopped()

    def server_stopped_now(self, wait: bool = False) -> bool:
        """After a lost connection: has the server stopped? (`wait`: give a SHUTDOWN a
        moment to finish.)"""
        return self._server_stopped(wait=wait)

    def gone_message(self) -> str:
        if self.topology is not None and self.topology.crashed():
            from playground.engine.topology_ops import crash_message
            return crash_message(self.topology)
        return tr("every key, cached script and client state (MULTI, WATCH, subscriptions) is gone")

    def binary_apart(self) -> ServerBinary:
        """The server binary a server of its own (an exploration's) runs: this playground's
        private server's, or under --url the one chosen as for a private server.

        Raises:
            ServerError: no server binary to run (under --url).
        """
        if self.server is not None:
            return self.server.binary
        from playground.server import choose_binary
        return choose_binary(None)

    async def restart(self) -> str:
        """A fresh private server; every client reconnects as a new client."""
        if self.server is None:
            raise ServerError(tr("cannot restart a server the playground does not own (--url)"))
        await self._close_connections()
        self.server.restart()
        self.shutdown_asked = False
        self.order.mark("restart")
        self._help = None
        self.script_limit = None
        await self.start()
        for listener in list(self.restart_listeners):  # the app's bar and inspector follow at once
            listener()
        names = ", ".join(self.sessions)
        return tr("started a fresh server ({label}); clients {names} reconnected with empty state",
                  label=self.label, names=names)

    async def _close_connections(self) -> None:
        for session in self.sessions.values():
            await session.close()
        for conn in (self.observer, self.reader, self.admin):
            if conn is not None:
                await conn.close()

    async def reconnect_all(self) -> None:
        """Every connection anew, the server as it is (after a time-out on --url)."""
        await self._close_connections()
        await self.start()

    async def reconnect(self, name: str, may_have_run: str | None = None, dropped: bool = False) -> str:
        """Reopen one client's connection (after it was cancelled or dropped); what it lost,
        in words (`Session.cancel`: `may_have_run`, the command that may have written)."""
        await self.stop_own_script([self.sessions[name]])
        return await self.sessions[name].cancel(may_have_run, dropped)

    async def flushall(self) -> None:
        """Empty the server: FLUSHALL, SCRIPT FLUSH and FUNCTION FLUSH (refused on a --url server without
        --allow-flush), on the playground's own connection: a client inside MULTI would
        queue them, a blocked one could not send them."""
        self.check_allowed([b"flushall"])
        if self.topology is not None:
            from playground.engine.topology_ops import flush_primaries
            await flush_primaries(self.topology)
        else:
            assert self.admin is not None  # (started)
            await self.admin.run(fresh_start.empties(self))
            self.scripts_clean = True
        self.order.mark("flush")
        if self.writes is not None:
            self.writes.forget()

    async def set_script_time_limit(self, ms: int | None) -> None:
        """How long a script runs before other clients get BUSY: `ms`, or (None) the value
        the private server started with (engine/fresh_start.py)."""
        await fresh_start.set_script_time_limit(self, ms)

    async def reset(self, setup: Sequence[Sequence[bytes]] = (), by: str | None = None, label: str = "",
                    script_time_limit_ms: int | None = None) -> Sequence[Reply | NoReply]:
        """A fresh start for a scenario part, then `setup` run by client `by` (default: the
        first); the setup's replies (engine/fresh_start.py)."""
        return await fresh_start.reset(self, setup, by, label, script_time_limit_ms)


def no_reply_coming(session: Session) -> bool:
    """The client's pending command is CLIENT REPLY OFF or SKIP, outside MULTI: the
    server sends it no reply at all (and redis-cli waits for one for ever)."""
    argv = session.state.pending
    return (argv is not None and len(argv) == 3 and not session.state.in_multi
            and bytes(argv[0]).lower() == b"client" and bytes(argv[1]).lower() == b"reply"
            and bytes(argv[2]).lower() in (b"off", b"skip"))
