"""Commands that carry secrets: redis-cli's rule for what never goes to a history file,
and the arguments a recording replaces with a placeholder.

`is_sensitive` is a port of `isSensitiveCommand` (redis/redis `src/redis-cli.c`): the one
rule the pane history and the F9 recorder both use.
"""

from __future__ import annotations

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
