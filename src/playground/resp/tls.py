"""TLS for a --url server, named as redis-cli names it: rediss://, --tls, --cacert, --cert,
--key, --insecure (stdlib ssl; the server's name sent as SNI and checked)."""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass

from playground.i18n import tr


@dataclass(frozen=True)
class TlsOptions:
    """TLS to a --url server, as redis-cli's --tls --cacert --cert --key --insecure: the
    server's certificate checked against `cacert` (else the system's CAs) and its name
    (SNI = the host), unless `insecure`; `cert` and `key`: a client certificate."""

    cacert: str | None = None
    cert: str | None = None
    key: str | None = None
    insecure: bool = False

    def context(self) -> ssl.SSLContext:
        """The SSL context (made once per options: reading CA files is not free).

        ValueError with one line when a file is missing or not a PEM of the right kind."""
        return _tls_context(self)


@functools.lru_cache(maxsize=8)
def _tls_context(options: TlsOptions) -> ssl.SSLContext:
    try:
        context = ssl.create_default_context(cafile=options.cacert)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(tr("--cacert {path}: {error}", path=options.cacert, error=_file_error(exc))) from None
    if options.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if options.cert:
        try:
            context.load_cert_chain(options.cert, options.key)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(tr("--cert {cert} / --key {key}: {error}", cert=options.cert,
                                key=options.key or options.cert, error=_file_error(exc))) from None
    return context


def _file_error(exc: OSError) -> str:  # (ssl.SSLError is an OSError)
    if isinstance(exc, ssl.SSLError):
        return exc.reason or str(exc)
    return exc.strerror or str(exc)


def tls_failure(exc: ssl.SSLError) -> str:
    """One line for a failed TLS handshake or read (never the OpenSSL source location)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return tr("certificate verify failed: {why} (give the server's CA with --cacert, or --insecure "
                  "to skip the check)", why=exc.verify_message or exc.reason)
    reason = exc.reason or ""
    if "CERTIFICATE_REQUIRED" in reason:
        return tr("the server asks for a client certificate (--cert and --key)")
    if reason == "WRONG_VERSION_NUMBER":
        return tr("the server does not speak TLS there (a plain redis:// port?)")
    return tr("TLS failed: {reason}", reason=reason or exc.__class__.__name__)
