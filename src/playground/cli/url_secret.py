"""A Redis URL's password never on the command line: every user of the machine reads a
process's arguments with ps. `--url` and `serve --class-url` refuse a URL with a password
in it (redis-cli only warns, for `-a` and `-u`: "Warning: Using a password with '-a' or
'-u' option on the command line interface may not be safe."); the password comes from the
environment instead (REDISCLI_AUTH for --url, as redis-cli reads it), or the whole URL from
a file only its owner may read (`--url-file`, `--class-url-file`)."""

from __future__ import annotations

import os
import stat
from urllib.parse import urlsplit

from playground.i18n import tr

URL_FILE_LIMIT = 4096  # bytes read of a URL file


def refuse_password(url: str, option: str, env: str) -> None:
    """ValueError (one line, no password in it) when `url` carries a password.

    Args:
        url: the URL as given on the command line.
        option: the option that gave it (``--url``, ``--class-url``).
        env: the environment variable the password may come from instead.
    """
    try:
        password = urlsplit(url).password
    except ValueError:  # (a malformed URL: Address.from_url says what is wrong with it)
        return
    if password is not None:
        raise ValueError(tr("{option}: no password on the command line (anyone on this machine can read it with "
                            "ps): give it in the environment, {env}=..., or the whole URL in a file only you can "
                            "read: {option}-file FILE", option=option, env=env))


def read_url_file(path: str, option: str) -> str:
    """The first line of a file that only its owner may read (else ValueError, one line).

    Args:
        path: the file.
        option: the option that named it (``--url-file``), for the messages.
    """
    try:
        with open(path, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(tr("{option} {path}: not a file", option=option, path=path))
            if info.st_mode & 0o077:
                raise ValueError(tr("{option} {path}: others may read it; make it yours alone: chmod 600 {path}",
                                    option=option, path=path))
            data = file.read(URL_FILE_LIMIT)
    except OSError as exc:
        raise ValueError(tr("{option} {path}: {error}", option=option, path=path,
                            error=exc.strerror or exc)) from None
    lines = data.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        raise ValueError(tr("{option} {path}: empty (write the redis:// URL in it)", option=option, path=path))
    return lines[0].strip()
