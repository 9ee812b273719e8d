"""What real redis-cli processes print for lines that name their client (`A> GET k`):
one `redis-cli --no-raw` per client, each line written to its client's redis-cli in
input order, the next line only once this one has settled. The reference that
`redis-playground repl` is held to for two clients (golden/generate.py, `.clients`).

A line has settled when its redis-cli reads its input again (it printed the reply: its
stdout is unbuffered, `stdbuf -o0`), has exited (`quit`), or waits for a reply that only
another client can bring: the server says it is blocked (CLIENT LIST flag b), its line
is a blocking command without a timeout (`BLPOP l 0`), and no CLIENT PAUSE typed here may
still be holding it. A line for a client still blocked waits in that client's input, as it
would in its terminal. A blocking line with a timeout, or one held by a pause, is waited
for: nothing overtakes it.

Where each redis-cli is comes from /proc: the system call it waits in (`read` on its
stdin: it wants the next line; `recvfrom` on its socket: it waits for the server) and how
many reads it has made (a new read means it took the line). After each line, when every
redis-cli is still again, what each printed meanwhile is added to the output: the line's
own client first, then the others in the order of their names (so a reply woken by the
line follows the line's own). At the end of input each redis-cli gets end-of-file; one
still blocked then is stopped (`cancelled` in the result, as repl cancels it). Linux
only (/proc/PID/syscall).
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import termios
import time

import redis

POLL = 0.002          # seconds between looks at the processes (a condition is waited for, not a time)
# a CLIENT PAUSE may hold a line this long after its time is up (the server lifts it in its cron, 10 a second)
PAUSE_MARGIN = 0.2
GIVE_UP = 60.0        # a line that settles in none of the ways above within this is a bug here
_PREFIX = re.compile(rb"^\s*([A-Za-z][A-Za-z0-9_-]*)>[ \t]?")
_BLOCK_TIMEOUT_LAST = {b"blpop", b"brpop", b"brpoplpush", b"blmove", b"bzpopmin", b"bzpopmax"}
_PAUSE = re.compile(rb"^\s*client\s+pause\s+(\d+)", re.IGNORECASE)


class Cli:
    """One client's redis-cli."""

    def __init__(self, argv: list[str], env: dict) -> None:
        self.proc = subprocess.Popen(["stdbuf", "-o0", *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        for stream in (self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        self.printed = bytearray()
        self.errors = bytearray()
        self.id: int | None = None
        self.blocked_for_ever = False

    @property
    def exited(self) -> bool:
        return self.proc.poll() is not None

    def _syscall(self) -> list[str]:
        try:
            with open(f"/proc/{self.proc.pid}/syscall") as f:
                return f.read().split()
        except OSError:
            return []

    def reads(self) -> int:
        """The read system calls made so far."""
        try:
            with open(f"/proc/{self.proc.pid}/io") as f:
                return int(next(line for line in f if line.startswith("syscr:")).split()[1])
        except (OSError, StopIteration):
            return -1

    def unread(self) -> int:
        """Bytes of input written and not yet read by redis-cli."""
        if self.proc.stdin.closed:
            return 0
        return struct.unpack("i", fcntl.ioctl(self.proc.stdin.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]

    def waits_for_input(self) -> bool:
        """In `read` on its stdin with nothing left there: it has done all it was given."""
        call = self._syscall()
        return call[:2] == ["0", "0x0"] and self.unread() == 0

    def waits_for_server(self) -> bool:
        call = self._syscall()
        return len(call) > 1 and call[0] != "running" and call[1] != "0x0"

    def write(self, line: bytes) -> bool:
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, ValueError):
            return False

    def collect(self) -> bytes:
        """What it printed since the last call."""
        for stream, into in ((self.proc.stdout, self.printed), (self.proc.stderr, self.errors)):
            while True:
                try:
                    chunk = os.read(stream.fileno(), 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                into += chunk
        out, self.printed[:] = bytes(self.printed), b""
        return out


class Driver:
    """The clients' redis-clis on one server; `run(lines)` gives the combined output."""

    def __init__(self, cli: str, socket_path: str, admin: redis.Redis, clients: list[str], options: list[str],
                 env: dict) -> None:
        self.admin = admin
        self.clients = {name: Cli([cli, "-s", socket_path, "--no-raw", *options], env) for name in clients}
        self.pause_ends: float | None = None  # when a CLIENT PAUSE typed here ends
        for name, client in self.clients.items():  # who is who on the server (its output is left out)
            before = client.reads()
            client.write(b"CLIENT ID\n")
            self._wait(lambda client=client, before=before: client.reads() > before and client.waits_for_input(),
                       f"{name}: CLIENT ID")
            client.id = int(client.collect().split()[-1])
        self.cancelled: list[str] = []

    def _wait(self, condition, what: str) -> None:
        deadline = time.monotonic() + GIVE_UP
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the reference driver got stuck at {what}")
            time.sleep(POLL)

    def _blocked(self, client: Cli) -> bool:
        for entry in self.admin.client_list():
            if int(entry["id"]) == client.id:
                return "b" in entry["flags"]
        return False

    def _paused(self) -> bool:
        """May a CLIENT PAUSE typed here still hold a line? Until a line it held has been
        let through, or PAUSE_MARGIN after its time is up (the server lifts it in its cron)."""
        return self.pause_ends is not None and time.monotonic() < self.pause_ends + PAUSE_MARGIN

    def _waits_for_ever(self, client: Cli, argv: list[bytes] | None) -> bool:
        """Blocked on the server by a line that has no timeout (`argv`; None: a line it
        read by itself, after it was woken), no pause of ours holding it."""
        if not client.waits_for_server() or self._paused():
            return False
        if argv is not None:
            try:
                if not argv or argv[0].lower() not in _BLOCK_TIMEOUT_LAST or float(argv[-1]) != 0:
                    return False
            except ValueError:
                return False
        return self._blocked(client)

    def _still(self, client: Cli) -> bool:
        """Done with what it was given, or blocked for ever on a line of it."""
        return client.exited or client.waits_for_input() or self._waits_for_ever(client, None)

    def _settle(self, client: Cli, line: bytes, before: int) -> None:
        """Until the line is done or blocked for ever (see the module's docstring)."""
        argv = line.split()
        blocking = bool(argv) and argv[0].lower() in _BLOCK_TIMEOUT_LAST
        held = False
        deadline = time.monotonic() + GIVE_UP
        while not client.exited:
            if client.reads() > before:
                if client.waits_for_input():
                    break
                if self._waits_for_ever(client, argv):
                    client.blocked_for_ever = True
                    return
                if not blocking and self._paused() and client.waits_for_server() and self._blocked(client):
                    held = True
            if time.monotonic() > deadline:
                raise RuntimeError(f"the reference driver got stuck at {line!r}")
            time.sleep(POLL)
        if held:  # a line the pause held has been let through: the pause is over
            self.pause_ends = None

    def run(self, text: bytes) -> bytes:
        """Feed the lines, then end the input: what the redis-clis printed, combined."""
        out = bytearray()
        names = {name.lower().encode(): name for name in self.clients}
        first = next(iter(self.clients))
        for raw in text.splitlines(keepends=True):
            match = _PREFIX.match(raw)
            name = names[match.group(1).lower()] if match else first
            out += self._line(self.clients[name], raw[match.end():] if match else raw)
        return bytes(out + self._end())

    def _line(self, client: Cli, line: bytes) -> bytes:
        """One line to its client's redis-cli: what the redis-clis printed by the time it settled."""
        if client.exited:
            return b""  # its redis-cli is gone (`quit`): nobody reads the line
        if client.blocked_for_ever:
            client.write(line)  # it reads it when it is woken, as in its terminal
            return b""
        before = client.reads()
        client.write(line)
        self._settle(client, line, before)
        pause = _PAUSE.match(line)
        if pause:
            self.pause_ends = time.monotonic() + int(pause.group(1)) / 1000
        for other in self.clients.values():  # a client the line woke prints its reply first
            if other is not client and other.blocked_for_ever and not self._blocked(other):
                self._wait(lambda other=other: self._still(other), "a woken client")
                other.blocked_for_ever = not other.exited and not other.waits_for_input()
        out = client.collect()
        for other in self.clients.values():
            if other is not client:
                out += other.collect()
        return out

    def _end(self) -> bytes:
        """End of input for every redis-cli; one still blocked is stopped (`cancelled`)."""
        out = b""
        for client in self.clients.values():
            client.proc.stdin.close()
        for name, client in self.clients.items():
            try:
                client.proc.wait(timeout=GIVE_UP if not client.blocked_for_ever else 0.5)
            except subprocess.TimeoutExpired:
                client.proc.kill()
                client.proc.wait()
                self.cancelled.append(name)
            out += client.collect()
        return out


def run_clients(cli: str, socket_path: str, admin_kwargs: dict, text: bytes, options: list[str],
                env: dict, clients: tuple[str, ...] = ("A", "B")) -> tuple[bytes, list[str]]:
    """(what the clients' redis-clis printed, the clients stopped while still blocked)."""
    admin = redis.Redis(**admin_kwargs)
    driver = Driver(cli, socket_path, admin, list(clients), options, env)
    try:
        output = driver.run(text)
    finally:
        for client in driver.clients.values():
            if not client.exited:
                client.proc.kill()
                client.proc.wait()
        admin.close()
    return output, driver.cancelled
