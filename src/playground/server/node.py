"""One server process of a topology: a node on 127.0.0.1 with the sandbox's two ACL users
(server/sandbox.py), and a small blocking RESP client (`NodeLink`, the app's own user) the
app uses to form and act on the topology.

A node is a direct child of the app, in its own process group, tied to the app with
PR_SET_PDEATHSIG like the single private server. Its settings are in a config file in its
own 0700 directory, mode 0600: the password never appears on a command line (ps shows
those) nor anywhere outside the app's temp dir.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from playground.i18n import tr
from playground.server.sandbox import ADDRESS_SPACE, ADMIN_USER, Credentials, acl_config, limit_config
from playground.server.children import die_with_parent, kill_escaped, start_watchdog, stop_group, stop_watchdog
from playground.server.private import DEFAULT_SCRIPT_TIME_LIMIT_MS, STOP_GRACE, ServerBinary, ServerError
from playground.resp.info_text import parse_info

LOOPBACK = "127.0.0.1"


class NodeError(Exception):
    """An error reply from a node (the message as the server wrote it)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now (the kernel's choice).
    Another process may take it before the node binds it: the caller retries."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


class NodeLink:
    """A blocking RESP2 connection to one node, authenticated as the app's own user: for
    start-up, readiness checks and server actions (never a learner's client)."""

    def __init__(self, port: int, password: str, timeout: float = 2.0) -> None:
        self.sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        try:
            self.call("AUTH", ADMIN_USER, password)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> "NodeLink":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def call(self, *args: bytes | str | int) -> Any:
        """Send one command; its reply (bytes, int, list, None: as the command answers),
        NodeError for an error."""
        reply = self.pipeline([args])[0]
        if isinstance(reply, NodeError):
            raise reply
        return reply

    def pipeline(self, commands) -> list:
        out = bytearray()
        for args in commands:
            words = [a if isinstance(a, bytes) else str(a).encode() for a in args]
            out += b"*%d\r\n" % len(words)
            for word in words:
                out += b"$%d\r\n%s\r\n" % (len(word), word)
        self.sock.sendall(out)
        return [self._read() for _ in commands]

    def _read(self):
        line = self.file.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest
        if kind == b"-":
            return NodeError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            if rest == b"-1":
                return None
            data = self.file.read(int(rest) + 2)
            return data[:-2]
        if kind == b"*":
            if rest == b"-1":
                return None
            return [self._read() for _ in range(int(rest))]
        raise ConnectionError(f"unexpected reply {line[:40]!r}")


class Node:
    """One server process: its name ("primary", "replica-1", "node-2"), port, role."""

    def __init__(self, name: str, binary: ServerBinary, root: str, credentials: Credentials, *,
                 cluster: bool = False, replica_of: "Node | None" = None,
                 script_time_limit_ms: int | None = DEFAULT_SCRIPT_TIME_LIMIT_MS) -> None:
        self.name = name
        self.binary = binary
        self.dir = os.path.join(root, name)
        self.cluster = cluster
        self.replica_of = replica_of  # at start (a topology action may change the role)
        self._credentials = credentials
        self.script_time_limit_ms = script_time_limit_ms
        self.port = 0
        self.bus_port = 0
        self.process: subprocess.Popen | None = None
        self._watchdog: subprocess.Popen | None = None
        self.stopped_on_purpose = False  # a server action stopped it: no crash banner
        self.paused = False              # SIGSTOPped by a server action
        self.node_id = ""                # the cluster node id, once known
        self.server_pid = ""             # INFO's process_id (a --server wrapper may setsid it away)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def describe(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def link(self, timeout: float = 2.0) -> NodeLink:
        return NodeLink(self.port, self._credentials.admin_password, timeout)

    def _config(self) -> str:
        lines = [
            f"port {self.port}", f"bind {LOOPBACK}", "protected-mode yes",
            *acl_config(self.binary, self._credentials, node=True), *limit_config(self.binary),  # server/sandbox.py
            f"masteruser {ADMIN_USER}", f"masterauth {self._credentials.admin_password}",
            f"dir {self.dir}", 'save ""', "appendonly no", "daemonize no", "loglevel notice",
            "repl-diskless-sync yes", "repl-diskless-sync-delay 0",
            "repl-diskless-load on-empty-db",  # straight from the socket (no 1 s disk hand-over)
        ]
        if self.script_time_limit_ms is not None:
            lines.append(f"lua-time-limit {self.script_time_limit_ms}")
        if self.cluster:
            lines += ["cluster-enabled yes", "cluster-config-file nodes.conf",
                      f"cluster-port {self.bus_port}", "cluster-node-timeout 2000",
                      "cluster-replica-no-failover yes"]  # failovers happen when a lesson says
        elif self.replica_of is not None:
            lines.append(f"replicaof {LOOPBACK} {self.replica_of.port}")
        return "\n".join(lines) + "\n"

    def spawn(self, attempts: int = 5, timeout: float = 5.0) -> None:
        """Start on free ports and wait until it answers; retries with other ports when
        one was taken in between (EADDRINUSE)."""
        os.makedirs(self.dir, mode=0o700, exist_ok=True)
        log_path = os.path.join(self.dir, "server.log")
        for attempt in range(attempts):
            self.port = free_port()
            self.bus_port = free_port() if self.cluster else 0
            if self.bus_port == self.port:
                continue
            conf = os.path.join(self.dir, "node.conf")
            fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(self._config())
            for stale in ("nodes.conf",):
                Path(self.dir, stale).unlink(missing_ok=True)
            with open(log_path, "wb") as log:
                try:
                    self.process = subprocess.Popen(
                        [self.binary.path, conf], stdin=subprocess.DEVNULL, stdout=log,
                        stderr=subprocess.STDOUT, cwd=self.dir, close_fds=True,
                        preexec_fn=die_with_parent(os.getpid(), ADDRESS_SPACE), start_new_session=True)
                except OSError as exc:
                    raise ServerError(tr("cannot start {path}: {error}", path=self.binary.path, error=exc)) from None
            self._watchdog = start_watchdog(self.process.pid)  # the node dies with the app
            if self._wait_answering(timeout, log_path):
                try:
                    self.server_pid = self.info().get("process_id", "")
                except (OSError, NodeError):
                    self.server_pid = ""
                self.stopped_on_purpose = False
                self.paused = False
                return
            if "already in use" not in self._log_tail(log_path) or attempt == attempts - 1:
                detail = self._log_tail(log_path)
                self.stop()
                raise ServerError(tr("node {name} ({path}) did not start", name=self.name, path=self.binary.path)
                                  + (f": {detail}" if detail else ""))
            self.stop()

    def _wait_answering(self, timeout: float, log_path: str) -> bool:
        process = self.process
        assert process is not None  # (spawned)
        deadline = time.monotonic() + timeout
        delay = 0.002
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                with self.link(timeout=1.0) as link:
                    if link.call("PING") == b"PONG":
                        return True
            except (OSError, NodeError):
                pass
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return False

    @staticmethod
    def _log_tail(log_path: str) -> str:
        try:
            tail = Path(log_path).read_text(errors="replace").strip().splitlines()[-3:]
        except OSError:
            return ""
        return " | ".join(line.strip() for line in tail if line.strip())

    def stop(self, grace: float = STOP_GRACE) -> None:
        """End the node's process group (TERM, then KILL); safe to call twice."""
        proc, self.process = self.process, None
        watchdog, self._watchdog = getattr(self, "_watchdog", None), None
        stop_watchdog(watchdog)  # first: once the group is gone its id may be reused
        if proc is not None:
            if self.paused:  # a stopped process does not act on SIGTERM until continued
                try:
                    os.killpg(proc.pid, 18)  # SIGCONT
                except OSError:
                    pass
            stop_group(proc, grace=grace)
            kill_escaped(self.server_pid, self.dir)
        self.paused = False

    def info(self, section: str = "server") -> dict[str, str]:
        with self.link() as link:
            return parse_info(link.call("INFO", section))
