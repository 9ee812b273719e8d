"""Who is who in a MONITOR capture: one client per connection address, named by its
`CLIENT SETNAME` (or HELLO's SETNAME) when it has one, else A, B, C… by its place in the
order of first commands; the client library's handshake, which is no step of a lesson;
and the clients of a unix socket, which MONITOR cannot tell apart (they all show the
socket's path) unless CLIENT LIST output taken during the capture says there was one.

`survey_capture` reads a capture through once (streamed) before anything is replayed: its
clients, its time span and the script sources it holds; a capture that cannot be imported
is refused here, before a server is started.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playground.engine.catalogue import script_run
from playground.gate.endpoint import passes_unstepped
from playground.i18n import tr
from playground.scenario import MAX_CLIENTS
from playground.scenario.monitor_lines import (
    MonitorFormatError,
    CaptureLine,
    is_unix_address,
    read_monitor,
)

_NAME_OK = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")


class CaptureError(ValueError):
    """A capture (or --clients-from file) that cannot be imported; str() is one line."""


@dataclass
class CaptureClient:
    """One connection of the capture."""

    address: str
    first_line: int
    name: str = ""                 # the lesson's name for it (after `name_clients`)
    own_name: str | None = None    # CLIENT SETNAME / HELLO SETNAME, or CLIENT LIST's name=
    steps: int = 0                 # its lines that are steps (not its handshake)


@dataclass
class CaptureSurvey:
    """What one read of a capture found."""

    path: Path
    clients: dict[str, CaptureClient] = field(default_factory=dict)   # address -> client, first seen first
    scripts: dict[str, bytes] = field(default_factory=dict)           # sha1 -> source (EVAL, SCRIPT LOAD)
    first_micros: int | None = None
    last_micros: int | None = None
    commands: int = 0              # lines that are commands of clients (not a script's own)
    handshakes: int = 0            # lines left out as handshakes
    size: int = 0                  # bytes

    @property
    def names(self) -> tuple[str, ...]:
        """The lesson's clients, in the order of their first commands."""
        return tuple(c.name for c in self.clients.values() if c.steps)

    def client(self, address: str) -> CaptureClient:
        return self.clients[address]


def is_handshake(argv: tuple[bytes, ...], db_now: int, first: bool) -> bool:
    """The client library's handshake (HELLO, AUTH, CLIENT SETNAME/SETINFO, a first bare
    INFO: gate/endpoint.py's `passes_unstepped`), which is no step; a SELECT is one only
    when it selects the database the client is in already (a switch is kept)."""
    if argv[0].lower() == b"select":
        return len(argv) == 2 and argv[1] == str(db_now).encode()
    return passes_unstepped(list(argv), first)


def own_name(argv: tuple[bytes, ...]) -> str | None:
    """The name a handshake gives its connection (CLIENT SETNAME x, HELLO ... SETNAME x)."""
    words = [a.lower() for a in argv]
    if words[:2] == [b"client", b"setname"] and len(argv) == 3:
        return argv[2].decode("utf-8", "replace")
    if words[0] == b"hello" and b"setname" in words[1:-1]:
        return argv[words.index(b"setname", 1) + 1].decode("utf-8", "replace")
    return None


def read_client_list(path: Path) -> list[dict[str, str]]:
    """CLIENT LIST output (redis-cli's, or one entry a line as the server sends it): one
    dict of fields per client. CaptureError for anything else."""
    entries = []
    try:
        with open(path, "rb") as f:
            text = f.read(4 * 1024 * 1024 + 1)
    except OSError as exc:
        raise CaptureError(f"{path}: {exc.strerror or exc}") from None
    if len(text) > 4 * 1024 * 1024:
        raise CaptureError(tr("{file}: too big for CLIENT LIST output (more than 4 MB)", file=path))
    for number, raw in enumerate(text.decode("utf-8", "replace").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        fields = dict(word.partition("=")[::2] for word in line.split(" ") if word)
        if "id" not in fields or "addr" not in fields or "flags" not in fields:
            raise CaptureError(tr("{file}: line {number}: not CLIENT LIST output (expected id=… addr=… "
                                  "flags=… as CLIENT LIST prints)", file=path, number=number))
        entries.append(fields)
    return entries


def survey_capture(path: Path, clients_from: Path | None = None,
                   on_bytes: Callable[[int], None] | None = None) -> CaptureSurvey:
    """Read the capture through once: its clients and what it holds. CaptureError (one
    line, with the file and the line number) for a capture that cannot be imported."""
    survey = CaptureSurvey(path)
    listed = read_client_list(clients_from) if clients_from is not None else None
    dbs: dict[str, int] = {}
    try:
        with open(path, "rb") as stream:
            for line in read_monitor(stream, on_bytes):
                _survey_line(survey, line, dbs, listed)
            survey.size = stream.tell()
    except MonitorFormatError as exc:
        raise CaptureError(f"{path}: {exc}") from None
    except OSError as exc:
        raise CaptureError(f"{path}: {exc.strerror or exc}") from None
    if not any(c.steps for c in survey.clients.values()):
        raise CaptureError(tr("{file}: no command of a client in it (is it MONITOR output? redis-cli monitor "
                              "> FILE)", file=path))
    _name_clients(survey, listed or [])
    return survey


def _survey_line(survey: CaptureSurvey, line: CaptureLine, dbs: dict[str, int], listed) -> None:
    run = script_run(line.argv)   # (EVAL, EVAL_RO, SCRIPT LOAD: a source; EVALSHA only a SHA)
    if run is not None and run[1] is not None:
        survey.scripts.setdefault(run[0], run[1])
    if line.lua:
        return
    if survey.first_micros is None:
        survey.first_micros = line.micros
    survey.last_micros = line.micros
    survey.commands += 1
    client = survey.clients.get(line.source)
    if client is None:
        if line.unix:
            _refuse_unix(survey, line, listed)
        client = survey.clients[line.source] = CaptureClient(line.source, line.number)
    db_now = dbs.get(line.source, 0)
    if is_handshake(line.argv, db_now, first=client.steps == 0):
        survey.handshakes += 1
        client.own_name = client.own_name or own_name(line.argv)
    else:
        client.steps += 1
        if sum(1 for c in survey.clients.values() if c.steps) > MAX_CLIENTS:
            raise CaptureError(tr("{file}: line {number}: a client at {address} makes {count} clients; a lesson "
                                  "has at most {most}: capture a shorter window", file=survey.path,
                                  number=line.number, address=line.source, count=MAX_CLIENTS + 1,
                                  most=MAX_CLIENTS))
    dbs[line.source] = line.db


def _refuse_unix(survey: CaptureSurvey, line: CaptureLine, listed) -> None:
    """A unix socket's clients all show the socket's path: go on only when CLIENT LIST
    (--clients-from) says one client was connected over it."""
    fix = tr("capture over TCP (redis-cli -h 127.0.0.1 -p PORT monitor, the clients connecting over TCP too), "
             "or pass CLIENT LIST output taken during the capture with --clients-from FILE")
    if listed is None:
        raise CaptureError(tr("{file}: line {number}: {address}: the clients of a unix socket all show the "
                              "socket's path in MONITOR, so their commands cannot be told apart; {fix}",
                              file=survey.path, number=line.number, address=line.source, fix=fix))
    on_socket = [e for e in listed if "U" in e["flags"] and "O" not in e["flags"]]
    if len(on_socket) != 1:
        raise CaptureError(tr("{file}: line {number}: {address}: CLIENT LIST shows {count} clients on the unix "
                              "socket (MONITOR's own aside); MONITOR cannot tell their commands apart: capture "
                              "over TCP", file=survey.path, number=line.number, address=line.source,
                              count=len(on_socket)))


def _fitting(name: str) -> str:
    """A client's own name as a lesson's client name (ASCII letters, digits, - and _)."""
    fitted = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")
    if not fitted[:1].isalpha():
        fitted = "c-" + fitted
    return fitted[:32].rstrip("-")


def _name_clients(survey: CaptureSurvey, listed: list[dict[str, str]]) -> None:
    """Each client with steps gets its lesson name: its own name (CLIENT SETNAME, HELLO
    SETNAME, else CLIENT LIST's name=), else the letter of its place among the clients."""
    by_address = {e["addr"]: e.get("name", "") for e in listed}
    unix = [e.get("name", "") for e in listed if "U" in e["flags"] and "O" not in e["flags"]]
    taken: set[str] = set()
    clients = [c for c in survey.clients.values() if c.steps]
    for client in clients:
        name = client.own_name or (unix[0] if is_unix_address(client.address) and unix
                                   else by_address.get(client.address, ""))
        if name and _fitting(name):
            fitted = base = _fitting(name)
            n = 2
            while fitted.lower() in taken:
                fitted = f"{base[:29]}-{n}"
                n += 1
            client.name = fitted
            taken.add(fitted.lower())
    letters = iter(c for c in string.ascii_uppercase if c.lower() not in taken)
    for place, client in enumerate(clients):
        if not client.name:
            letter = string.ascii_uppercase[place]
            client.name = letter if letter.lower() not in taken else next(letters)
            taken.add(client.name.lower())
    assert all(_NAME_OK.fullmatch(c.name) for c in clients)
