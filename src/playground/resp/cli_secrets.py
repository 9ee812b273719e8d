"""Commands that carry secrets: redis-cli's rule for what never goes to a history file,
and the arguments a recording replaces with a placeholder.

`is_sensitive` is a port of `isSensitiveCommand` (redis/redis `src/redis-cli.c`): the one
rule the pane history and the F9 recorder both use.

`redact_exchange` is the one redaction every export uses (transcripts in every format,
the timeline, the SVG screenshot's panes, F9 recordings): a command with its secret
arguments replaced by SECRET, and a reply that echoes a secret with the secret replaced.
"""

from __future__ import annotations

import re

SECRET = b"<secret>"
"""What a recording writes in place of a secret argument."""

_CONFIG_SECRETS = (b"masterauth", b"masteruser", b"tls-key-file-pass", b"tls-client-key-file-pass",
                   b"requirepass")


def is_sensitive(argv: list[bytes]) -> bool:
    """`isSensitiveCommand`: AUTH; ACL DELUSER/SETUSER/GETUSER; CONFIG SET naming any of
    masterauth, masteruser, tls-key-file-pass, tls-client-key-file-pass, requirepass (every
    parameter, not only the first); HELLO with AUTH; MIGRATE with AUTH or AUTH2; SENTINEL
    CONFIG SET sentinel-pass/-user; SENTINEL SET <master> auth-pass/-user. `argv` is the
    command without redis-cli's repeat count."""
    if not argv:
        return False
    a = [x.lower() for x in argv]
    argc = len(a)
    if a[0] == b"auth":
        return True
    if argc > 1 and a[0] == b"acl" and a[1] in (b"deluser", b"setuser", b"getuser"):
        return True
    if argc > 2 and a[0] == b"config" and a[1] == b"set":
        return any(a[j] in _CONFIG_SECRETS for j in range(2, argc, 2))
    if argc > 4 and a[0] == b"hello":
        return bool(_hello_auth(a))
    if argc > 7 and a[0] == b"migrate":
        return bool(_migrate_auth(a))
    if argc > 4 and a[0] == b"sentinel":
        return bool(_sentinel_secret(a))
    return False


def _hello_auth(a: list[bytes]) -> list[int]:
    """HELLO protover [AUTH username password] [SETNAME name]: where the password is."""
    argc, j = len(a), 2
    while j < argc:
        more = argc - 1 - j
        if a[j] == b"auth" and more >= 2:
            return [j + 2]
        if a[j] == b"setname" and more:
            j += 2
            continue
        return []
    return []


def _migrate_auth(a: list[bytes]) -> list[int]:
    """MIGRATE ... [AUTH password] [AUTH2 username password] [KEYS ...]: the password."""
    argc = len(a)
    for j in range(6, argc):
        more = argc - 1 - j
        if a[j] == b"auth" and more:
            return [j + 1]
        if a[j] == b"auth2" and more >= 2:
            return [j + 2]
        if a[j] == b"keys" and more:
            return []
    return []


def _sentinel_secret(a: list[bytes]) -> list[int]:
    if a[1] == b"config" and a[2] == b"set" and a[3] in (b"sentinel-pass", b"sentinel-user"):
        return [4]
    if a[1] == b"set" and a[3] in (b"auth-pass", b"auth-user"):
        return [4]
    return []


def secret_positions(argv: list[bytes]) -> list[int]:
    """Indexes of the arguments a recording must not keep, for a sensitive command: the
    password of AUTH/HELLO/MIGRATE, the value of each secret CONFIG SET parameter, the
    password rules (>pw <pw #hash !hash) of ACL SETUSER, the value of a SENTINEL setting."""
    if not is_sensitive(argv):
        return []
    a = [x.lower() for x in argv]
    argc = len(a)
    if a[0] == b"auth":
        return [argc - 1] if argc > 1 else []
    if a[0] == b"acl":
        return [j for j in range(3, argc) if a[1] == b"setuser" and argv[j][:1] in (b">", b"<", b"#", b"!")]
    if a[0] == b"config":
        return [j + 1 for j in range(2, argc - 1, 2) if a[j] in _CONFIG_SECRETS]
    if a[0] == b"hello":
        return _hello_auth(a)
    if a[0] == b"migrate":
        return _migrate_auth(a)
    return _sentinel_secret(a)


def redact(argv: list[bytes]) -> list[bytes]:
    """`argv` with every secret argument replaced by SECRET."""
    hide = set(secret_positions(argv))
    return [SECRET if i in hide else arg for i, arg in enumerate(argv)]


def reply_reveals_secret(argv: list[bytes], rendered: str) -> bool:
    """Could the reply to `argv` show a secret? CONFIG GET of a password parameter (or a
    pattern that matches one), and ACL GETUSER / ACL LIST (password hashes)."""
    a = [x.lower() for x in argv[:2]]
    if a == [b"config", b"get"]:
        return any(name.decode() in rendered.lower() for name in _CONFIG_SECRETS)
    return a in ([b"acl", b"getuser"], [b"acl", b"list"])


_HASH = re.compile(r"[0-9a-fA-F]{64}")  # an ACL password's SHA-256
_ITEM = re.compile(r'^(?P<pre>\s*(?:\d+[)#]\s+)*)(?P<name>"(?:[^"\\]|\\.)*"|\S+)(?P<rest>.*)$')
_RUNS_OTHERS = (b"exec", b"eval", b"evalsha", b"eval_ro", b"evalsha_ro", b"fcall", b"fcall_ro")
"""Commands whose reply can hold another command's (a CONFIG GET queued or called)."""


def _bare(token: str) -> bytes:
    return token.strip('"').lower().encode()


def redact_reply(argv: list[bytes], rendered: str) -> str:
    """`rendered` (a reply as printed) with any secret it echoes replaced by SECRET: the
    value after a password parameter's name in CONFIG GET's answer (array or map form,
    also inside EXEC's reply or a script's), the password hashes in ACL GETUSER / ACL LIST."""
    if not argv or not rendered:
        return rendered
    a = [bytes(x).lower() for x in argv[:2]]
    if a in ([b"acl", b"getuser"], [b"acl", b"list"]):
        return _HASH.sub(SECRET.decode(), rendered)
    if a != [b"config", b"get"] and a[0] not in _RUNS_OTHERS:
        return rendered
    if not any(name.decode() in rendered.lower() for name in _CONFIG_SECRETS):
        return rendered
    hidden = SECRET.decode()
    out, hide_next = [], False
    for line in rendered.split("\n"):
        m = _ITEM.match(line)
        if m is None:
            out.append(line)
            continue
        if hide_next:
            line, hide_next = m["pre"] + ('"' + hidden + '"' if m["name"].startswith('"') else hidden), False
        elif _bare(m["name"]) in _CONFIG_SECRETS:
            if " => " in m["rest"]:   # RESP3 map: name => value on one line
                line = m["pre"] + m["name"] + " => " + '"' + hidden + '"'
            else:
                hide_next = True
        out.append(line)
    return "\n".join(out)


def redact_exchange(command: str, reply: str = "", argv: list[bytes] | None = None) -> tuple[str, str]:
    """A command as shown (and its reply as printed) with every secret replaced by SECRET;
    `argv` None: the command is parsed as redis-cli splits a typed line."""
    from playground.resp.cli_lines import RepeatError, SplitError, format_argv, parse_line

    if argv is None:
        try:
            cmd = parse_line(command)
        except (SplitError, RepeatError, UnicodeEncodeError):
            cmd = None
        argv = list(cmd.argv) if cmd is not None else []
    argv = [bytes(a) for a in argv]
    if secret_positions(argv):
        command = format_argv(redact(argv))
    return command, redact_reply(argv, reply) if reply else reply


def redact_line(command: str, argv: list[bytes] | None = None) -> str:
    """`redact_exchange` for a command without a reply."""
    return redact_exchange(command, "", argv)[0]
