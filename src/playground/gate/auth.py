"""The password of the gate's TCP endpoint (127.0.0.1 only, for client libraries that
cannot use a unix socket): a program must give it (AUTH, or HELLO … AUTH) before anything
else, as to a Redis with `requirepass`. The gate checks it itself and never forwards it:
the server knows the program only as the learner user, like every pane."""

from __future__ import annotations

import hmac

OK = b"+OK\r\n"
NOAUTH = b"-NOAUTH Authentication required.\r\n"
WRONGPASS = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"
HELLO_NOAUTH = (b"-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                b"HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
                b"select the RESP protocol version at the same time\r\n")


def _matches(credentials: list[bytes], password: bytes) -> bool:
    """[password] or [user, password]; the only user is `default`."""
    if len(credentials) == 2 and credentials[0] != b"default":
        return False
    return hmac.compare_digest(credentials[-1], password)


def _hello_credentials(argv: list[bytes]) -> tuple[list[bytes], list[bytes] | None]:
    """HELLO [protover [AUTH user pass] [SETNAME name]]: the command without its AUTH
    option, and the credentials it gave (None: none)."""
    out, credentials, i = argv[:2], None, 2
    while i < len(argv):
        option = argv[i].lower()
        if option == b"auth" and i + 2 < len(argv):
            credentials = argv[i + 1:i + 3]
            i += 3
        else:
            take = 2 if option == b"setname" else 1
            out.extend(argv[i:i + take])
            i += take
    return out, credentials


def admit(argv: list[bytes], password: bytes, authed: bool) -> tuple[bool, bytes | None, list[bytes] | None]:
    """(authenticated now, the gate's own reply if it answers the command itself, the
    command to forward in its place if it must be rewritten)."""
    name = argv[0].lower() if argv else b""
    if name == b"auth" and len(argv) in (2, 3):
        ok = _matches(argv[1:], password)
        return authed or ok, OK if ok else WRONGPASS, None
    if name == b"hello":
        rest, credentials = _hello_credentials(argv)
        if credentials is not None:
            if not _matches(credentials, password):
                return authed, WRONGPASS, None
            return True, None, rest
        return authed, None if authed else HELLO_NOAUTH, None
    if not authed and argv:
        return False, NOAUTH, None
    return authed, None, None
