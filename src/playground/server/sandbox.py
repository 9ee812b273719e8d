"""The sandbox every private server and node runs under: two ACL users, enforced by the server.

Learners (the panes, scenario clients, `repl`, the explorer, every `serve` tab) are the
server's `default` user; the app's own connections (the observer, the key inspector,
server actions, forming a topology, replication between nodes) log in as `playground`
with a random password that lives only in this process and in the server's 0600 config
file in its 0700 temp dir. ACL rules apply inside scripts and functions too (a script runs
with its caller's user), so what the learner may not type, no EVAL or FCALL can do either.

The learner may run everything (data commands, MULTI/WATCH, scripts and functions,
pub/sub, blocking commands, CLIENT, SCRIPT DEBUG, MONITOR, SAVE, FLUSHALL, SHUTDOWN — the
busy-script lesson needs it; the app restarts the server) except what would reach beyond
the private server or open it up:

| refused                  | why                                                        |
|--------------------------|------------------------------------------------------------|
| MIGRATE                  | it writes keys into another server (any host)              |
| CLUSTER, but the reads   | MEET/FORGET/REPLICATE/RESET/ADDSLOTS... join or reshape     |
|                          | clusters (a real node on this machine could join ours)     |
| REPLICAOF, SLAVEOF       | a replica runs whatever its master sends                   |
| FAILOVER                 | hands the server's role over                               |
| SYNC, PSYNC, REPLCONF    | a replication stream (the whole dataset, the RDB)          |
| ACL, but WHOAMI/CAT/LOG  | users and passwords are the app's                          |
| CONFIG, but GET (single) | port, bind, protected-mode, requirepass... open the server |
|                          | (on nodes GET too: masterauth holds the app's password)    |
| DEBUG, MODULE            | crash, reload, or load code into the server                |

Memory: every private server and node runs with `maxmemory 64mb` and `maxmemory-policy
noeviction` (a write past it gets `OOM command not allowed`; the bundled lessons use a few
kilobytes), in an address space of at most 512 MiB (RLIMIT_AS: a script that builds a
huge Lua value, which maxmemory does not count, gets `not enough memory`). maxmemory is
checked before a command, so the server's own limits bound what one command may add
(`limit_config`): one string at most 16 MB (`SETRANGE big 536870911 x` gets `string exceeds
maximum allowed size`), a client's input, its MULTI queue, all clients' buffers together
and one reply are capped, past which the server closes that client. A script is checked
before its first write only: a script that loops writes past maxmemory can still reach
the address-space cap, where the server aborts. And it runs with
`sanitize-dump-payload yes` (RESTORE checks a payload through before it is used: a crafted
one gets `Bad data format` instead of crashing the server later).

Where a lesson needs one of these (a server action: promote, kill...), the app does it as
`playground`. On the single server the learner's `default` user has no password (the
unix socket is 0700: only this OS user reaches it); on a topology's TCP nodes it has a
random password of its own, which the app sends for the learner and never shows.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from typing import Protocol

from playground.errors import ServerError
from playground.i18n import tr

ADMIN_USER = "playground"
MIN_VERSION = (6, 2)  # ACL subcommand rules, channel rules (&*) and FAILOVER

# Read-only subcommands the learner keeps of a refused command, and the first server
# version that knows each (an ACL rule naming an unknown subcommand stops the server).
_KEPT: dict[str, dict[str, tuple[int, ...]]] = {
    "cluster": {"info": (), "nodes": (), "slots": (), "keyslot": (), "myid": (), "countkeysinslot": (),
                "getkeysinslot": (), "help": (), "shards": (7, 0), "links": (7, 0)},
    "acl": {"whoami": (), "cat": (), "log": (), "help": ()},
    "config": {"get": (), "help": ()},  # single server only (see above)
}
_REFUSED = ("migrate", "replicaof", "slaveof", "failover", "sync", "psync", "replconf", "debug", "module")


class ServerIdentityLike(Protocol):
    """What `limit_config` reads of a server binary (server/private.py ServerBinary)."""

    @property
    def flavour(self) -> str: ...

    @property
    def version(self) -> str: ...


MAXMEMORY = "64mb"           # the data a lesson's server may hold (writes past it: OOM)
ADDRESS_SPACE = 512 << 20    # bytes a server process may map at most (Lua's heap included)
PROTO_MAX_BULK_LEN = "16mb"  # one string argument, or one string a command builds (SETRANGE ...)
QUERY_BUFFER_LIMIT = "32mb"  # a client's unread input and its MULTI queue
CLIENTS_MEMORY = "64mb"      # every client's buffers together (7.0+: maxmemory-clients)
REPLY_LIMIT = "64mb"         # one client's unsent replies (a client past it is closed)


def limit_config(binary: ServerIdentityLike) -> list[str]:
    """The config-file lines that bound a private server's memory and check RESTORE's
    payloads, for `binary` (a ServerBinary: Redis before 7.0 has no `maxmemory-clients`).

    maxmemory is checked before each command, so one command must not be able to grow
    the server past ADDRESS_SPACE on its own, where the allocator's failure aborts the
    server and every key is lost: a string argument or a string a command builds
    (SETRANGE, APPEND, SETBIT, BITFIELD offsets) is at most PROTO_MAX_BULK_LEN (the
    server answers `string exceeds maximum allowed size (proto-max-bulk-len)` or `bit
    offset is not an integer or out of range`); a client's unread input and its queued
    MULTI at most QUERY_BUFFER_LIMIT, all clients' buffers together (one MSET of many
    big arguments) at most CLIENTS_MEMORY, and one reply (SRANDMEMBER key -100000000)
    at most REPLY_LIMIT: past these the server closes that client, as it says in its
    log, and keeps every key."""
    lines = [f"maxmemory {MAXMEMORY}", "maxmemory-policy noeviction", "sanitize-dump-payload yes",
             f"proto-max-bulk-len {PROTO_MAX_BULK_LEN}", f"client-query-buffer-limit {QUERY_BUFFER_LIMIT}",
             f"client-output-buffer-limit normal {REPLY_LIMIT} 0 0"]
    if binary.flavour != "Redis" or version_tuple(binary.version) >= (7, 0):
        lines.append(f"maxmemory-clients {CLIENTS_MEMORY}")
    return lines


def version_tuple(version: str) -> tuple[int, ...]:
    """A server's version as numbers to compare ("7.2.4" -> (7, 2, 4)).

    Args:
        version: the version as the server gives it.
    """
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def learner_rules(version: str, *, node: bool) -> list[str]:
    """The learner's ACL rules (after `on`, the password rule and `~* &*`) on a server of
    `version`; `node`: a topology's TCP node (CONFIG GET refused too)."""
    have = version_tuple(version)
    rules = ["+@all"]
    rules += [f"-{name}" for name in _REFUSED]
    for command, kept in _KEPT.items():
        rules.append(f"-{command}")
        if command == "config" and node:
            continue
        rules += [f"+{command}|{sub}" for sub, since in kept.items() if have >= since]
    return rules


@dataclass(frozen=True)
class Credentials:
    """The two users' passwords for one server or topology (never shown, never logged)."""

    admin_password: str = field(default_factory=lambda: secrets.token_hex(24), repr=False)
    learner_password: str | None = field(default=None, repr=False)  # None: no password (unix socket)

    @classmethod
    def for_tcp(cls) -> "Credentials":
        return cls(learner_password=secrets.token_hex(24))


def check_version(flavour: str, version: str) -> None:
    """ServerError unless the server has the ACLs the sandbox needs."""
    if flavour == "Redis" and version_tuple(version) < MIN_VERSION:
        raise ServerError(tr("Redis {version} is too old for the playground's sandbox (ACL rules need {minimum} "
                             "or later): install a newer redis-server or use --server bundled",
                             version=version, minimum=".".join(map(str, MIN_VERSION))))


def acl_config(binary, credentials: Credentials, *, node: bool) -> list[str]:
    """The config-file lines that create both users (the file must be 0600)."""
    check_version(binary.flavour, binary.version)
    learner_version = binary.version if binary.flavour == "Redis" else "7.2"  # Valkey: Redis 7.2's commands and more
    learner_pass = "nopass" if credentials.learner_password is None else f">{credentials.learner_password}"
    learner = " ".join(["user default on", learner_pass, "~*", "&*", *learner_rules(learner_version, node=node)])
    admin = f"user {ADMIN_USER} on >{credentials.admin_password} ~* &* +@all"
    return [learner, admin]
