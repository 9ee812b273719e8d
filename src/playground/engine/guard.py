"""What the playground refuses to send, and why: one policy for typed and replayed commands.

`refusal(argv, private=..., allow_flush=..., where=...)` returns a one-line message for a
command the playground will not send, or None. `Playground.check_allowed` calls it for
every command (typed, replayed, and each line of a scenario setup) before it is sent.

--url without --allow-flush (the server and its data are the user's, not ours)
-------------------------------------------------------------------------------
Refused: whatever empties, swaps or overwrites whole databases, or stops, reconfigures or
hands over the server: FLUSHALL, FLUSHDB, SWAPDB, SHUTDOWN, DEBUG, REPLICAOF/SLAVEOF,
FAILOVER, MIGRATE, SAVE/BGSAVE/BGREWRITEAOF (they overwrite the server's files on disk),
SCRIPT FLUSH, FUNCTION FLUSH/DELETE/RESTORE and FUNCTION LOAD (what the playground loads
it could not delete again); SCRIPT DEBUG (a
script stopped under the SYNC debugger freezes the whole server), CLIENT PAUSE and CLIENT
KILL (they stop or disconnect the user's other clients), SYNC/PSYNC (the whole dataset,
and a server without diskless sync rewrites its dump.rdb), ACL LOG RESET (the security
log); of CONFIG, ACL, CLUSTER and MODULE only the read-only subcommands pass; RESTORE (a
crafted payload can crash a server that does not check payloads through, and the user's
data goes with it). Commands on one key the user names (SET, DEL, MOVE to another db,
COPY ... REPLACE) pass: that is what the user came to type, and nothing else of theirs
goes with it.

Commands are recognised by what the server says they are, not by the typed name: a
command renamed with `rename-command` (FLUSHALL as WIPEALL, or SWAPDB as SORT after SORT
was removed) answers COMMAND INFO with its own name, and the guard decides on that name
(`named`, from the catalogue: engine/catalogue.py). A name the server says it has no
command for is judged as typed (the server answers it with an unknown-command error). A
name the server would not describe (a user who may not run COMMAND: NOPERM; a server busy
or gone) is refused, whatever it looks like: the guard fails closed, since a FLUSHDB
renamed WIPEDB would otherwise pass as an unknown name. What the server files under
@dangerous is read from COMMAND INFO too (its ACL categories, each subcommand's), so a
user who may not run COMMAND LIST still has unreviewed dangerous commands refused.

Scripts: a script can call any command, and its body cannot be checked here (Lua builds
command names at run time: `redis.call(('flush'):upper()..'ALL')`). So EVAL, EVALSHA and
FCALL are refused, and their read-only forms EVAL_RO, EVALSHA_RO and FCALL_RO pass: the
server itself refuses every write command inside them (FLUSHALL, SWAPDB, MOVE, ...), and
every command flagged `noscript` (CONFIG, REPLICAOF, SHUTDOWN, DEBUG, ACL SETUSER, SCRIPT,
FUNCTION, SAVE, CLIENT KILL, ...) in any script. What a read-only script can still reach
that changes server state is SLOWLOG/COMMANDLOG RESET (diagnostics only) and CLUSTER's
admin subcommands, which act only on a server in cluster mode (tests/engine/test_url_refusals.py
pins this list for both servers). So on a cluster node (INFO cluster: cluster_enabled:1)
the read-only forms are refused too: CLUSTER MEET, FORGET, SETSLOT or FAILOVER TAKEOVER
inside EVAL_RO would join, reshape or take over the user's cluster.
A read-only script may still loop for ever: when a line running one is cancelled, or the
playground ends while it runs, the playground sends SCRIPT KILL (FUNCTION KILL for FCALL_RO)
on its own admin connection (`Playground.stop_own_script`), so the user's server is not
left BUSY.

Why not a restriction the server enforces for the whole connection: Redis 7.0 and Valkey
9.1 have none except an ACL user. Creating one (ACL SETUSER with the user's own rules
minus the commands above) changes the server's ACL table: other clients see it in ACL
LIST, a later ACL SAVE or CONFIG REWRITE by anyone persists it, it stays behind if the
app is killed, it needs ACL rights the --url user may not have, and the lesson's
ACL WHOAMI and CLIENT LIST would show our user. So the guard is client-side, and the
server-enforced read-only script mode is what makes scripts safe.

With --allow-flush the user says the server is disposable: nothing is refused.

The private server and a topology's nodes (ours)
------------------------------------------------
Nothing is refused here: the server itself enforces the sandbox (server/sandbox.py). The
learners' connections log in as a restricted ACL user that cannot MIGRATE, join or reshape
a cluster, replicate, CONFIG SET, or change users, and ACL rules hold inside scripts and
functions too, which no check of a typed line can see into.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from playground.engine.catalogue import SCRIPT_COMMANDS
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
    b"sync": N_("it streams the whole dataset and can make the server rewrite its snapshot file"),
    b"psync": N_("it streams the whole dataset and can make the server rewrite its snapshot file"),
    b"replconf": N_("it speaks for a replica to the server"),
    b"restore-asking": N_("it is a cluster's own way to move keys between nodes"),
    b"pfdebug": N_("it rewrites a HyperLogLog's internal encoding"),
    b"restore": N_("a crafted payload can crash the server"),
}
# --url on a cluster node: the read-only script commands are refused too.
_CLUSTER_SCRIPTS = frozenset(name for name, read_only in SCRIPT_COMMANDS.items() if read_only)
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
    b"script": {b"flush": N_("it drops every cached script"),
               b"debug": N_("a script under the debugger (SYNC) stops the whole server")},
    b"client": {b"pause": N_("it stops every client of the server"),
                b"kill": N_("it disconnects the server's other clients"),
                b"unblock": N_("it ends another client's blocking command")},
    b"slowlog": {b"reset": N_("it wipes the server's diagnostic log")},
    b"commandlog": {b"reset": N_("it wipes the server's diagnostic log")},
    b"latency": {b"reset": N_("it wipes the server's diagnostic log")},
    b"function": {b"flush": N_("it deletes every function library"), b"delete": N_("it deletes a function library"),
                  b"restore": N_("it can replace every function library"),
                  b"load": N_("it adds a function library to the server (or replaces one), and FUNCTION DELETE "
                              "is refused")},
}


# --url: every command the server itself files under @dangerous (COMMAND LIST FILTERBY ACLCAT
# dangerous) that the rules above were written for: each is refused above or passes on
# purpose (KEYS, SORT, INFO, MONITOR, ROLE, reads of diagnostics, ...). A dangerous command
# a newer server adds is refused until it is reviewed here (tests/engine/test_url_refusals.py compares
# this with each server's own list).
REVIEWED_DANGEROUS = frozenset(name.encode() for name in (
    "acl|deluser acl|dryrun acl|getuser acl|list acl|load acl|log acl|save acl|setuser acl|users "
    "bgrewriteaof bgsave save shutdown swapdb flushall flushdb failover migrate replicaof slaveof debug "
    "sync psync replconf restore restore-asking pfdebug pfselftest info keys lastsave role monitor sort sort_ro "
    "client|kill client|list client|no-evict client|pause client|unblock client|unpause "
    "cluster|addslots cluster|addslotsrange cluster|bumpepoch cluster|cancelslotmigrations "
    "cluster|count-failure-reports cluster|delslots cluster|delslotsrange cluster|failover cluster|flushslot "
    "cluster|flushslots cluster|forget cluster|getslotmigrations cluster|meet cluster|migrateslots "
    "cluster|replicas cluster|replicate cluster|reset cluster|saveconfig cluster|set-config-epoch "
    "cluster|setslot cluster|slaves cluster|syncslots "
    "commandlog|get commandlog|len commandlog|reset config|get config|resetstat config|rewrite config|set "
    "latency|doctor latency|graph latency|histogram latency|history latency|latest latency|reset "
    "module|list module|load module|loadex module|unload slowlog|get slowlog|len slowlog|reset").split())


def unreviewed(argv: list[bytes], dangerous: frozenset[bytes]) -> bytes | None:
    """The server's @dangerous name of `argv` ("cmd" or "cmd|sub") when the guard has not
    reviewed it, else None."""
    cmd = argv[0].lower()
    name = cmd + b"|" + argv[1].lower() if len(argv) > 1 and cmd + b"|" + argv[1].lower() in dangerous else cmd
    return name if name in dangerous and name not in REVIEWED_DANGEROUS else None


def _name(arg: bytes) -> str:
    return arg.decode("utf-8", "replace").upper()


def refusal(argv: Sequence[bytes], *, private: bool, allow_flush: bool, where: str | Callable[[], str],
            dangerous: frozenset[bytes] = frozenset(), named: bytes | None = None,
            cluster: bool = False, identified: bool = True, not_described: bytes = b"") -> str | None:
    """The one-line reason the playground will not send `argv` to the server at `where`,
    or None when it may.

    Args:
        argv: the command line.
        private: the playground's own server (nothing is refused).
        allow_flush: the user said the --url server is disposable (nothing is refused).
        where: the server's description, or a function that gives it when a message needs it.
        dangerous: the --url server's own @dangerous commands (those not in
            REVIEWED_DANGEROUS are refused).
        named: the server's own name for the command typed as argv[0] (COMMAND INFO:
            differs after rename-command).
        cluster: the --url server is a cluster node.
        identified: the server said what argv[0] is (COMMAND INFO answered for it); a
            name it would not describe is refused, whatever it looks like.
        not_described: the server's error when it would not answer COMMAND INFO.
    """
    if not argv:
        return None
    if private or allow_flush:
        return None
    typed = argv[0]
    cmd = (named or typed).lower()
    argv = [cmd, *argv[1:]]
    sub = argv[1].lower() if len(argv) > 1 else b""
    what, why = _name(typed) + (f" ({_name(cmd)})" if cmd != typed.lower() else ""), _URL_REFUSED.get(cmd)
    if cmd in _URL_SUBCOMMANDS_ALLOWED and sub and sub not in _URL_SUBCOMMANDS_ALLOWED[cmd]:
        what, why = f"{what} {_name(sub)}".rstrip(), N_("it changes the server, not just data")
    elif cmd in _URL_SUBCOMMANDS_REFUSED and sub in _URL_SUBCOMMANDS_REFUSED[cmd]:
        what, why = f"{what} {_name(sub)}", _URL_SUBCOMMANDS_REFUSED[cmd][sub]
    elif cluster and cmd in _CLUSTER_SCRIPTS:
        why = N_("on a cluster node a read-only script can still run CLUSTER MEET, FORGET, SETSLOT or FAILOVER")
    elif cmd == b"acl" and sub == b"log" and len(argv) > 2 and argv[2].lower() == b"reset":
        what, why = "ACL LOG RESET", N_("it wipes the server's security log")
    unknown = unreviewed(argv, dangerous) if why is None else None
    if unknown:
        what, why = _name(unknown.replace(b"|", b" ")), \
            N_("the server files it as dangerous and the playground has not reviewed it")
    if why is None and not identified:
        where = where() if callable(where) else where
        reason = not_described.split(b"\n")[0][:120].decode("utf-8", "replace") or tr("no answer")
        return tr("refused: {what} on {where}, not the playground's own server: the playground cannot tell which "
                  "command that is, because the server would not describe it (COMMAND INFO: {reason}); a renamed "
                  "FLUSHDB looks like any other name ({hint}, or let this user run COMMAND)",
                  what=what, where=where, reason=reason, hint=tr(_FLUSH_HINT))
    if why is None:
        return None
    where = where() if callable(where) else where
    return tr("refused: {what} on {where}, not the playground's own server: {why} ({hint})",
              what=what, where=where, why=tr(why), hint=tr(_FLUSH_HINT))
