"""The real servers the suite runs against: the bundled Valkey always, Debian's
redis-server when it is installed. Shared by the fixtures and the golden generator.

One private server per binary serves the whole session (`shared`): before each test that
asks for it, it is put back to the state it started in (`SharedServer.reset`), or started
afresh when that is not possible (it died, a script is still running, its users or a
setting that cannot be set back changed). A test that needs a process of its own (it
stops the server, or reads what only a new process has) is marked `fresh_server`.
"""

from __future__ import annotations

import shutil
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from playground.server import PrivateServer, ServerBinary, bundled_binary_path, identify


def available_binaries() -> list[ServerBinary]:
    binaries = []
    bundled = bundled_binary_path()
    if bundled:
        binaries.append(ServerBinary(bundled, "bundled", *identify(bundled)))
    system = shutil.which("redis-server")
    if system:
        binaries.append(ServerBinary(system, "system", *identify(system)))
    return binaries


def golden_dir_name(binary: ServerBinary) -> str:
    """Goldens differ between servers only in error texts: one folder per server version."""
    return f"{binary.flavour.lower()}-{binary.version}"


class NotReset(Exception):
    """The shared server could not be put back as it started: start it afresh."""


# settings a CONFIG SET cannot put back, or that the server sets on its own
_NOT_SETTABLE = frozenset((b"unixsocket", b"dir", b"logfile", b"pidfile", b"port", b"aclfile", b"daemonize",
                           b"supervised", b"databases", b"io-threads", b"unixsocketperm", b"bind"))


class SharedServer(PrivateServer):
    """A private server that outlives the playgrounds of the tests using it: their
    `close()` leaves it running (`stop` does nothing); `shutdown` ends it at the end of
    the session. A restart (F5, the app after a SHUTDOWN) is a real one."""

    def __init__(self, binary: ServerBinary) -> None:
        super().__init__(binary)
        self.pristine_config: dict[bytes, bytes] = {}
        self.pristine_acl: list[bytes] = []
        self.resets = 0  # times put back without a new process (a test of the fixture reads it)

    def stop(self) -> None:
        """Left running for the next test (`shutdown` really stops it)."""

    def shutdown(self) -> None:
        PrivateServer.stop(self)

    def restart(self) -> PrivateServer:
        PrivateServer.stop(self)
        return self.start()

    def start(self) -> PrivateServer:
        super().start()
        with self._admin() as r:
            self.pristine_config = _config(r)
            self.pristine_acl = r.execute_command("ACL", "LIST")
        return self

    def _admin(self) -> redis.Redis:
        address = self.admin_address
        # No retries and a short wait: a server a test left paused (CLIENT PAUSE ... ALL holds the
        # admin's commands too) or busy is restarted at once, not after redis-py's retries of a 5 s
        # wait on each command (a minute's setup for the next test on that worker).
        return redis.Redis(unix_socket_path=address.path, username=address.username, password=address.password,
                           socket_timeout=2, retry=Retry(NoBackoff(), 0))

    def reset(self) -> None:
        """The state it started in: no other client, no pause, no keys, scripts or
        functions, every setting as it was, statistics zeroed. NotReset when that cannot
        be done on this process."""
        try:
            with self._admin() as r:
                for kill in (("SCRIPT", "KILL"), ("FUNCTION", "KILL")):
                    try:
                        r.execute_command(*kill)
                    except redis.ResponseError:
                        pass   # (NOTBUSY; UNKILLABLE shows at the next command as BUSY)
                for kind in ("normal", "pubsub", "replica"):   # (a MONITOR is a replica)
                    r.execute_command("CLIENT", "KILL", "TYPE", kind, "SKIPME", "yes")
                r.execute_command("CLIENT", "UNPAUSE")
                r.execute_command("FLUSHALL", "SYNC")
                r.execute_command("SCRIPT", "FLUSH")
                r.execute_command("FUNCTION", "FLUSH")
                now = _config(r)
                changed = [(k, v) for k, v in self.pristine_config.items() if now.get(k) != v]
                if any(k in _NOT_SETTABLE for k, _ in changed) or set(now) != set(self.pristine_config):
                    raise NotReset(f"settings changed: {[k for k, _ in changed]}")
                for k, v in changed:
                    r.execute_command("CONFIG", "SET", k, v)
                if _config(r) != self.pristine_config:
                    raise NotReset("settings did not go back")
                if r.execute_command("ACL", "LIST") != self.pristine_acl:
                    raise NotReset("users changed")
                r.execute_command("CONFIG", "RESETSTAT")
                r.execute_command("SLOWLOG", "RESET")
                if _memory_tight(r):   # (no command sets the peak back: the explorer would take every
                    raise NotReset("its memory's peak reached half its maxmemory")   # write as one OOM may refuse)
        except (redis.RedisError, OSError) as exc:
            raise NotReset(str(exc)) from None
        self.resets += 1


def _memory_tight(r: redis.Redis) -> bool:
    """The server's memory peak reached half its maxmemory: as the explorer judges it
    (explore/fresh_state.py's memory_tight), every reduced exploration on it then runs
    again with every order."""
    limit = int(_config(r).get(b"maxmemory", b"0"))
    peak = int(r.info("memory")["used_memory_peak"])
    return limit > 0 and peak * 2 >= limit


def _config(r: redis.Redis) -> dict[bytes, bytes]:
    flat = r.execute_command("CONFIG", "GET", "*")
    if isinstance(flat, dict):
        return dict(flat)
    return dict(zip(flat[::2], flat[1::2], strict=True))


class SharedServers:
    """One SharedServer per binary for the session; each test that asks gets it reset."""

    def __init__(self) -> None:
        self._servers: dict[str, SharedServer] = {}
        self._epoch = 0
        self._reset_at: dict[str, int] = {}

    def next_test(self) -> None:
        self._epoch += 1

    def get(self, binary: ServerBinary) -> SharedServer:
        server = self._servers.get(binary.path)
        if server is None:
            server = self._servers[binary.path] = SharedServer(binary)
        if self._reset_at.get(binary.path) == self._epoch and server.alive():
            return server   # (asked twice in one test: the same state)
        if not server.alive():
            server.restart()
        else:
            try:
                server.reset()
            except NotReset:
                server.restart()
        self._reset_at[binary.path] = self._epoch
        return server

    def shutdown(self) -> None:
        for server in self._servers.values():
            server.shutdown()
        self._servers.clear()


SHARED = SharedServers()


def shared(binary: ServerBinary) -> SharedServer:
    """This test's shared server of `binary`, in the state it started in."""
    return SHARED.get(binary)
