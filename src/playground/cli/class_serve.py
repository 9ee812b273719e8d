"""`serve --class`: the class's Redis (serve's private one, or --class-url), the teacher's
secret, and the two URLs serve prints. The teacher's URL carries its secret after a `#`,
which a browser never sends in a request: no access log, no proxy sees it; the page hands
it to serve in its websocket's first message (cli/serve_page/app_index.html), and serve
tells each app its role (learner or teacher) in its environment, never the secret.

The class's Redis password is never taken from the command line (every user of the machine
reads it with ps): --class-url names the server, its password comes from the environment
(CLASS_PASSWORD_ENV, which serve then removes from its own, so no app inherits it), or the
whole URL from a file only its owner can read (--class-url-file). Apps get the URL in their
environment, never in their command line."""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import secrets
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit, urlunsplit

from playground.classroom import class_server
from playground.classroom.protocol import ClassLink, ENV_NAME, ENV_ROLE, ENV_URL, secret_digest
from playground.cli.url_secret import read_url_file, refuse_password
from playground.i18n import tr
from playground.server import PrivateServer, ServerError

HELLO_WAIT = 10.0  # seconds serve waits for a class page's first message (its role)
CLASS_PASSWORD_ENV = "REDIS_PLAYGROUND_CLASS_PASSWORD"  # the --class-url's password, never in argv


@dataclass
class ClassSetup:
    """serve --class's class: its Redis, its name, the teacher's secret, and the private
    server when serve started one."""
    url: str  # the class's Redis, with its password: for the apps' environment only
    name: str
    teacher_secret: str = field(default_factory=lambda: secrets.token_urlsafe(24), repr=False)
    server: PrivateServer | None = None  # serve's private class server, stopped with serve
    link: ClassLink | None = None

    def environment(self, teacher: bool) -> dict[str, str]:
        return {ENV_URL: self.url, ENV_NAME: self.name, ENV_ROLE: "teacher" if teacher else "learner"}

    async def is_teacher(self, hello: str | None) -> bool:
        """A page's first message: ["class", {"teacher": "<secret or empty>"}]. The secret
        is this serve's, or another serve's of the same class (P:teachers)."""
        try:
            kind, body = json.loads(hello or "")
            given = body.get("teacher") or ""
        except (ValueError, TypeError, AttributeError):
            return False
        if kind != "class" or not isinstance(given, str) or not given:
            return False
        if hmac.compare_digest(given, self.teacher_secret):
            return True
        if self.link is None:
            self.link = ClassLink(class_server.address(self.url), self.name)  # on serve's own loop
        try:
            return await self.link.is_teacher_key(secret_digest(given))
        except ConnectionError:
            return False

    def teacher_url(self, public_url: str) -> str:
        return public_url.rstrip("/") + "/#teacher=" + self.teacher_secret

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def class_setup(args) -> ClassSetup | str:
    """The class's Redis, started or checked: a ClassSetup, or one line saying what is wrong."""
    name = args.class_name
    if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name):
        return tr("--class-name: letters, digits, - _ . (at most 64)")
    if args.class_url or args.class_url_file:
        try:
            url = given_url(args.class_url, args.class_url_file, os.environ.pop(CLASS_PASSWORD_ENV, None))
            class_server.address(url)
        except ValueError as exc:
            return str(exc).replace("--url", "--class-url")
        setup = ClassSetup(url, name)
    else:
        try:
            server = class_server.start_private(args.server)
        except ServerError as exc:
            return tr("the class's server could not start: {error}", error=exc)
        setup = ClassSetup(class_server.private_url(server), name, server=server)
    try:
        asyncio.run(_check(setup, getattr(args, "new_period", False)))
    except ConnectionError as exc:
        setup.stop()
        return tr("cannot use the class's Redis: {error}", error=exc)
    return setup


def given_url(url: str | None, url_file: str | None, password: str | None) -> str:
    """The class's Redis URL, with its password: from --class-url and the password from the
    environment, or from --class-url-file. ValueError with one line (no password in it)."""
    if url and url_file:
        raise ValueError(tr("--class-url or --class-url-file, not both"))
    if url_file:
        url = read_url_file(url_file, "--class-url-file")
    elif url:
        refuse_password(url, "--class-url", CLASS_PASSWORD_ENV)
    else:
        raise ValueError("given_url: neither a URL nor a file (class_setup asks only with one)")
    parts = urlsplit(url)
    if password and parts.password is None and parts.scheme in ("redis", "rediss", "unix"):
        user = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{user}:{quote(password, safe='')}@{host}")
        url = urlunsplit(parts)
    return url


async def _check(setup: ClassSetup, new_period: bool = False) -> None:
    """The class's Redis answers; this serve's teacher secret is the class's (after wiping
    the class's last period, with --new-period: its lesson, learners, answers and teachers)."""
    link = ClassLink(class_server.address(setup.url), setup.name)
    try:
        await link.state()
        if new_period:
            await link.new_period()
        await link.add_teacher_key(secret_digest(setup.teacher_secret))
    finally:
        await link.close()
