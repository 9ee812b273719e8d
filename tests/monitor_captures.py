"""Real MONITOR captures for the import tests: a throwaway server on 127.0.0.1 (a random
port, a random password: the playground's own topology node, server/node.py), an ACL user
allowed only MONITOR (the line docs/import.md gives), `redis-cli monitor` as a teacher
runs it, and redis-py clients over TCP as the services.

The capture ends at a marker: a last connection sends ECHO with a random token, and
everything MONITOR printed before that line (but that connection's own lines) is the
capture. No sleeps: MONITOR prints in the server's order, so every command before the
marker has been printed when the marker is.
"""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
from pathlib import Path

import redis

from playground.server import PrivateServer, ServerBinary
from playground.server.node import LOOPBACK, Node
from playground.server.sandbox import Credentials

MONITOR_USER = "monitor-only"
MONITOR_ACL = "ACL SETUSER monitor-only on >{password} resetchannels -@all +monitor"
"""The line docs/import.md gives (its password a placeholder there)."""


class MonitorCapture:
    """One throwaway server, watched by `redis-cli monitor` as an ACL user allowed only MONITOR.
    `unix`: the playground's private server instead (a unix socket, no TCP port), watched
    and used over its socket by its `default` user."""

    def __init__(self, binary: ServerBinary, directory: Path, unix: bool = False) -> None:
        self.private = PrivateServer(binary).start() if unix else None
        self.node = None
        if self.private is None:
            self.credentials = Credentials.for_tcp()
            self.node = Node("captured", binary, str(directory), self.credentials)
            self.node.spawn()
            self.monitor_password = secrets.token_hex(16)
            with self.node.link() as link:
                link.call(*shlex.split(MONITOR_ACL.format(password=self.monitor_password)))
        self.monitor: subprocess.Popen | None = None
        self.clients: list[redis.Redis] = []
        self._read: list[bytes] = []  # lines read by wait_for, not yet in a capture

    @property
    def port(self) -> int:
        return self.node.port

    def start(self) -> MonitorCapture:
        """redis-cli monitor, running (its OK read: MONITOR is on)."""
        if self.private is not None:
            where, env = ["-s", self.private.socket_path], dict(os.environ)
        else:
            where = ["-h", LOOPBACK, "-p", str(self.port), "--user", MONITOR_USER]
            env = dict(os.environ, REDISCLI_AUTH=self.monitor_password)
        self.monitor = subprocess.Popen(["redis-cli", *where, "monitor"], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env)
        first = self.monitor.stdout.readline()
        assert first.strip() == b"OK", (first, self.monitor.stderr.read1(1000) if first == b"" else b"")
        return self

    def service(self, **options) -> redis.Redis:
        """A redis-py client of the server over TCP, as a service would be."""
        if self.private is not None:
            client = redis.Redis(unix_socket_path=self.private.socket_path, **options)
        else:
            client = redis.Redis(host=LOOPBACK, port=self.port, username="default",
                                 password=self.credentials.learner_password, **options)
        self.clients.append(client)
        return client

    def wait_for(self, text: bytes) -> None:
        """Read what MONITOR prints until a line holding `text` (the server has run that
        command: a blocking one is blocked by then)."""
        for line in self.monitor.stdout:
            self._read.append(line)
            if text in line:
                return
        raise AssertionError(f"MONITOR ended before {text!r}")

    def admin(self, *command: str) -> object:
        """A command before the capture, as the server's own admin user (TCP) or a learner (unix)."""
        if self.node is None:
            with redis.Redis(unix_socket_path=self.private.socket_path) as client:
                return client.execute_command(*command)
        with self.node.link() as link:
            return link.call(*command)

    def stop(self, path: Path, via: redis.Redis | None = None) -> bytes:
        """End the capture: what MONITOR printed (its OK aside) up to the marker, written to
        `path` and returned. The marker is an ECHO from a connection of its own (its lines
        left out by its address), or from `via` (a unix socket's clients all have one address)."""
        assert via is not None or self.private is None, "over a unix socket, end the capture via a client"
        token = secrets.token_hex(8)
        marker = via or self.service()
        marker.echo(token)
        own = None if via is not None else f" {marker.client_info()['addr']}]".encode()
        lines, self._read = self._read, []
        for line in self.monitor.stdout:
            if f'"{token}"'.encode() in line:
                break
            if own is None or own not in line:
                lines.append(line)
        data = b"OK\n" + b"".join(lines)
        path.write_bytes(data)
        return data

    def close(self) -> None:
        for client in self.clients:
            client.close()
        if self.monitor is not None:
            self.monitor.terminate()
            self.monitor.wait()
            self.monitor.stdout.close()
            self.monitor.stderr.close()
        if self.node is not None:
            self.node.stop()
        if self.private is not None:
            self.private.stop()


def lost_update(capture: MonitorCapture, path: Path, start: int = 10) -> bytes:
    """Two redis-py services each read the counter and write it back plus one, A's read
    and B's read first (both read `start`, both write `start + 1`: the lost update), each
    also counting its visit with a Lua script (register_script: EVALSHA, NOSCRIPT, SCRIPT
    LOAD, EVALSHA for the first; the second finds it cached). One speaks RESP3 (HELLO)
    and names itself; the other logs in with AUTH."""
    capture.admin("SET", "counter", str(start))
    capture.start()
    one = capture.service(protocol=3, client_name="svc-a")
    two = capture.service(protocol=2)
    bump_one = one.register_script("return redis.call('INCR', KEYS[1])")
    bump_two = two.register_script("return redis.call('INCR', KEYS[1])")
    seen_one = int(one.get("counter"))
    seen_two = int(two.get("counter"))
    one.set("counter", seen_one + 1)
    two.set("counter", seen_two + 1)
    bump_one(keys=["visits"])
    bump_two(keys=["visits"])
    return capture.stop(path)
