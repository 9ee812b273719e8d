"""Where a server listens (`Address`), parsed strictly from a --url, and URLs with
their password hidden (`redact_url`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from urllib.parse import parse_qs, unquote, urlsplit

from playground.i18n import tr

from .tls import TlsOptions


@dataclass(frozen=True)
class Address:
    """Where a server listens: a unix socket path, or host and port (with TLS: `tls`)."""

    path: str | None = None
    host: str = "127.0.0.1"
    port: int = 6379
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TlsOptions | None = None

    @classmethod
    def from_url(cls, url: str) -> "Address":
        """redis://[user:password@]host[:port][/db] (rediss://: TLS) or
        unix://[user:password@]/path/to/socket[?db=N].

        ValueError with one line for anything else (the password shown as ***)."""
        try:
            return cls._parse(url)
        except ValueError as exc:
            raise ValueError(tr("bad --url {url}: {error}", url=redact_url(url), error=exc)) from None

    @classmethod
    def _parse(cls, url: str) -> "Address":
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss", "unix"):
            raise ValueError(tr("use redis://host:port/db, rediss://host:port/db or unix:///path/to/socket"))
        if parts.fragment:
            raise ValueError(tr("unexpected #fragment"))
        username = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password is not None else None
        if parts.scheme == "unix":
            query = parse_qs(parts.query, keep_blank_values=True)
            if set(query) - {"db"} or len(query.get("db", [])) > 1:
                raise ValueError(tr("the only query parameter is ?db=N"))
            if parts.hostname:
                raise ValueError(tr("write unix:///path (three slashes): no host"))
            if not parts.path or parts.path == "/":
                raise ValueError(tr("no socket path"))
            return cls(path=parts.path, db=_db_number(query.get("db", ["0"])[0]),
                       username=username, password=password)
        if parts.query:
            raise ValueError(tr("no query parameters after redis://host:port/db"))
        try:
            port = parts.port
        except ValueError:
            raise ValueError(tr("the port must be a number from 1 to 65535")) from None
        if port == 0 or (port is None and parts.netloc.rstrip().endswith(":")):
            raise ValueError(tr("the port must be a number from 1 to 65535"))
        path = parts.path.strip("/")
        if "/" in path:
            raise ValueError(tr("after host:port only /db (a database number)"))
        return cls(host=parts.hostname or "127.0.0.1", port=port or 6379, db=_db_number(path or "0"),
                   username=username, password=password,
                   tls=TlsOptions() if parts.scheme == "rediss" else None)

    def with_options(self, tls: bool = False, cacert: str | None = None, cert: str | None = None,
                     key: str | None = None, insecure: bool = False, user: str | None = None,
                     password: str | None = None) -> "Address":
        """This address with redis-cli's connection options applied (--tls, --cacert, --cert,
        --key, --insecure, --user; `password`, from REDISCLI_AUTH, where the URL has none).
        The TLS files are read here: ValueError with one line when one is wrong."""
        named = [name for name, given in (("--cacert", cacert), ("--cert", cert), ("--key", key),
                                          ("--insecure", insecure)) if given]
        options = self.tls
        if tls or named:
            if not tls and options is None:
                raise ValueError(tr("{options} go with --tls or a rediss:// URL", options=", ".join(named)))
            if self.path:
                raise ValueError(tr("TLS is for host:port servers, not a unix socket"))
            if key and not cert or cert and not key:
                raise ValueError(tr("--cert and --key go together"))
            options = TlsOptions(cacert=cacert, cert=cert, key=key, insecure=insecure)
            options.context()  # a missing or bad file: one line now, not at every connection
        return replace(self, tls=options, username=user if user is not None else self.username,
                       password=self.password if self.password is not None else password)

    def describe(self) -> str:
        """Where, for messages: never the user name or password."""
        if self.path:
            return self.path
        return f"{self.host}:{self.port}" + (" (TLS)" if self.tls is not None else "")


def _db_number(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise ValueError(tr("the database must be a number, not {text!r}", text=text[:20]))
    return int(text)


def redact_url(url: str) -> str:
    """`url` with its password (if any) replaced by ***, for messages; works on URLs that
    do not parse too (everything between the user name's ':' and the last '@' goes)."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    return f"{scheme}{sep}{userinfo.split(':', 1)[0]}:***@{host}"
