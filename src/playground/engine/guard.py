"""What the playground refuses to send, and why: one policy for typed and replayed commands.

`refusal(argv, private=..., allow_flush=..., where=...)` returns a one-line message for a
command the playground will not send, or None. `Playground.check_allowed` calls it for
every command (typed, replayed, and each line of a scenario setup) before it is sent.

--url without --allow-flush (the server and its data are the user's, not ours)
-------------------------------------------------------------------------------
Refused: whatever empties, swaps or overwrites whole databases, or stops, reconfigures or
hands over the server: FLUSHALL, FLUSHDB, SWAPDB, SHUTDOWN, DEBUG, REPLICAOF/SLAVEOF,
FAILOVER, MIGRATE, SAVE/BGSAVE/BGREWRITEAOF (they overwrite the server's files on disk),
SCRIPT FLUSH, FUNCTION FLUSH/DELETE/RESTORE and FUNCTION LOAD REPLACE; of CONFIG, ACL,
CLUSTER and MODULE only the read-only subcommands pass. Commands on one key the user
names (SET, DEL, MOVE to another db, COPY/RESTORE ... REPLACE) pass: that is what the user
came to type, and nothing else of theirs goes with it.

Scripts: a script can call any command, and its body cannot be checked here (Lua builds
command names at run time: `redis.call(('flush'):upper()..'ALL')`). So EVAL, EVALSHA and
FCALL are refused, and their read-only forms EVAL_RO, EVALSHA_RO and FCALL_RO pass: the
server itself refuses every write command inside them (FLUSHALL, SWAPDB, MOVE, ...), and
every command flagged `noscript` (CONFIG, REPLICAOF, SHUTDOWN, DEBUG, ACL SETUSER, SCRIPT,
FUNCTION, SAVE, CLIENT KILL, ...) in any script. What a read-only script can still reach
that changes server state is SLOWLOG/COMMANDLOG RESET (diagnostics only) and CLUSTER's
admin subcommands, which act only on a server in cluster mode (tests/test_hostile.py
pins this list for both servers). FUNCTION LOAD runs the library's top level without
`redis.call`, so loading a new library cannot reach data.

Why not a restriction the server enforces for the whole connection: Redis 7.0 and Valkey
9.1 have none except an ACL user. Creating one (ACL SETUSER with the user's own rules
minus the commands above) changes the server's ACL table: other clients see it in ACL
LIST, a later ACL SAVE or CONFIG REWRITE by anyone persists it, it stays behind if the
app is killed, it needs ACL rights the --url user may not have, and the lesson's
ACL WHOAMI and CLIENT LIST would show our user. So the guard is client-side, and the
server-enforced read-only script mode is what makes scripts safe.

With --allow-flush the user says the server is disposable: nothing is refused.

The private server (ours, on a unix socket in a 0700 dir)
----------------------------------------------------------
Anything goes except what would expose it or reach beyond it: CONFIG SET of port or
tls-port (other than 0), bind, protected-mode (other than yes), dir and dbfilename (files
written elsewhere), checked for every parameter of `CONFIG SET p1 v1 p2 v2 ...`;
REPLICAOF/SLAVEOF to a host (a replica executes whatever its master sends, CONFIG SET
included), MIGRATE (it writes keys into another server, e.g. the user's own on
localhost) and CLUSTER MEET (it would join a private cluster's nodes with another
server). The server refuses some of these itself, and they are refused here anyway:
unixsocket, unixsocketperm, enable-debug-command, enable-module-command and
enable-protected-configs are immutable at run time, and dir/dbfilename are "protected
configs" refused while enable-protected-configs is no (the default on Redis 7 and
Valkey). CONFIG cannot be called from a script on either server (it is flagged
noscript), so a script cannot get around this.
"""

from __future__ import annotations

from playground.i18n import N_, tr

_FLUSH_HINT = N_("add --allow-flush if that server is disposable")

# --url: commands refused outright, and why (a few words).
_URL_REFUSED = {
    b"flushall": N_("it empties every database"),
    b"flushdb": N_("it empties the database"),
    b"swapdb": N_("it swaps two whole databases"),
    b"shutdown": N_("it stops the server"),
    b"debug": N_("it can crash, reload or alter the server"),
    b"replicaof": N_("a replica throws its data away and copies its master's"),
    b"slaveof": N_("a replica throws its data away and copies its master's"),
    b"failover": N_("it hands the server's role to a replica"),
    b"migrate": N_("it moves keys to another server"),
    b"save": N_("it overwrites the server's snapshot file on disk"),
    b"bgsave": N_("it overwrites the server's snapshot file on disk"),
    b"bgrewriteaof": N_("it rewrites the server's append-only file on disk"),
    b"eval": N_("a script can call any command and its body cannot be checked; EVAL_RO runs it read-only"),
    b"evalsha": N_("a script can call any command and its body cannot be checked; EVALSHA_RO runs it read-only"),
    b"fcall": N_("a function can call any command and its body cannot be checked; FCALL_RO runs it read-only"),
}
# --url: of these, only the listed (read-only) subcommands pass.
_URL_SUBCOMMANDS_ALLOWED = {
    b"config": {b"get", b"help"},
    b"acl": {b"whoami", b"list", b"users", b"getuser", b"cat", b"log", b"dryrun", b"genpass", b"help"},
    b"module": {b"list", b"help"},
    b"cluster": {b"info", b"nodes", b"slots", b"shards", b"myid", b"myshardid", b"keyslot",
                 b"countkeysinslot", b"getkeysinslot", b"links", b"replicas", b"slaves", b"help",
                 b"count-failure-reports", b"slot-stats", b"getslotmigrations"},
}
# --url: of these, the listed subcommands are refused.
_URL_SUBCOMMANDS_REFUSED = {
    b"script": {b"flush": N_("it drops every cached script")},
    b"function": {b"flush": N_("it deletes every function library"), b"delete": N_("it deletes a function library"),
                  b"restore": N_("it can replace every function library")},
}

# Private server: CONFIG SET parameters refused, and the one value that is fine (None: any change).
_PRIVATE_CONFIG = {
    b"port": (b"0", N_("it would open a TCP port with no password")),
    b"tls-port": (b"0", N_("it would open a TCP port with no password")),
    b"bind": (None, N_("the private server listens on its unix socket only")),
    b"protected-mode": (b"yes", N_("it would let other machines in")),
    b"dir": (None, N_("the server would write files outside its private directory")),
    b"dbfilename": (None, N_("the server would write files outside its private directory")),
    b"unixsocket": (None, N_("the socket stays in the private directory")),
    b"unixsocketperm": (None, N_("the socket stays owner-only")),
    b"unixsocketgroup": (None, N_("the socket stays owner-only")),
    b"enable-debug-command": (None, N_("the server's safety settings stay as started")),
    b"enable-module-command": (None, N_("the server's safety settings stay as started")),
    b"enable-protected-configs": (None, N_("the server's safety settings stay as started")),
}


def _name(arg: bytes) -> str:
    return arg.decode("utf-8", "replace").upper()


def refusal(argv: list[bytes], *, private: bool, allow_flush: bool, where) -> str | None:
    """The one-line reason the playground will not send `argv` to the server at `where`
    (its description, or a function that gives it when a message needs it), or None when
    it may. `private`: the playground's own server; `allow_flush`: the user said the --url
    server is disposable."""
    if not argv:
        return None
    cmd = argv[0].lower()
    sub = argv[1].lower() if len(argv) > 1 else b""
    if private:
        return _private_refusal(cmd, sub, argv)
    if allow_flush:
        return None
    what, why = _name(argv[0]), _URL_REFUSED.get(cmd)
    if cmd in _URL_SUBCOMMANDS_ALLOWED and sub and sub not in _URL_SUBCOMMANDS_ALLOWED[cmd]:
        what, why = f"{what} {_name(sub)}".rstrip(), N_("it changes the server, not just data")
    elif cmd in _URL_SUBCOMMANDS_REFUSED and sub in _URL_SUBCOMMANDS_REFUSED[cmd]:
        what, why = f"{what} {_name(sub)}", _URL_SUBCOMMANDS_REFUSED[cmd][sub]
    elif cmd == b"function" and sub == b"load" and any(a.lower() == b"replace" for a in argv[2:-1]):
        what, why = "FUNCTION LOAD REPLACE", N_("it replaces a function library")
    if why is None:
        return None
    where = where() if callable(where) else where
    return tr("refused: {what} on {where}, not the playground's own server: {why} ({hint})", what=what, where=where, why=tr(why), hint=tr(_FLUSH_HINT))


def _private_refusal(cmd: bytes, sub: bytes, argv: list[bytes]) -> str | None:
    if cmd in (b"replicaof", b"slaveof") and not (sub == b"no" and len(argv) > 2 and argv[2].lower() == b"one"):
        return (f"refused: {_name(argv[0])} on the private server: a replica executes whatever its "
                "master sends, CONFIG SET included")
    if cmd == b"migrate":
        return "refused: MIGRATE on the private server: it writes keys into another server"
    if cmd == b"cluster" and sub == b"meet":
        return ("refused: CLUSTER MEET on the private server: it would join the playground's nodes "
                "with another server (the playground forms its own cluster)")
    if cmd == b"config" and sub == b"set":
        for i in range(2, len(argv), 2):
            param = argv[i].lower()
            value = argv[i + 1] if i + 1 < len(argv) else b""
            if param in _PRIVATE_CONFIG:
                fine, why = _PRIVATE_CONFIG[param]
                if fine is None or value.lower() != fine:
                    return tr("refused: CONFIG SET {name} on the private server: {why}", name=argv[i].decode('utf-8', 'replace'), why=tr(why))
    return None
