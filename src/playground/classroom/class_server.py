"""The Redis a class coordinates through: serve's own private one (a unix socket in its
0700 directory, a random password), or the one given with --class-url."""

from __future__ import annotations

from urllib.parse import quote

from playground.resp.address import Address
from playground.server import PrivateServer, choose_binary
from playground.server.sandbox import ADMIN_USER


def start_private(server_choice: str | None = None) -> PrivateServer:
    """A private server for the class (stopped by the caller, and with it if it dies)."""
    return PrivateServer(choose_binary(server_choice), script_time_limit_ms=None).start()


def private_url(server: PrivateServer) -> str:
    """unix://user:password@/path: for the apps' environment only (never a file, never shown)."""
    return (f"unix://{quote(ADMIN_USER, safe='')}:{quote(server.credentials.admin_password, safe='')}"
            f"@{server.socket_path}")


def address(url: str) -> Address:
    """The class's Redis from a URL; ValueError with one line (the password hidden)."""
    return Address.from_url(url)
