"""A scenario file's bytes, read safely: only a regular file (a FIFO named *.toml would
hang the read: it, a device and a socket are refused before they are opened), and at
most MAX_FILE_BYTES (a bigger file is refused by its size, before it is read)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from playground.i18n import N_, tr
from playground.scenario.fields import Where

MAX_FILE_BYTES = 4 * 1024 * 1024
"""A scenario is a page of text; a bigger file is refused before it is read."""


_NOT_A_FILE = ((stat.S_ISFIFO, N_("a FIFO (named pipe), not a scenario file")),
               (stat.S_ISSOCK, N_("a socket, not a scenario file")),
               (stat.S_ISCHR, N_("a device, not a scenario file")),
               (stat.S_ISBLK, N_("a device, not a scenario file")))


def _refuse_non_regular(mode: int, where: Where) -> None:
    if stat.S_ISDIR(mode):
        raise where.error(tr("a directory, not a scenario file"))
    for test, why in _NOT_A_FILE:
        if test(mode):
            raise where.error(tr(why))  # a FIFO would hang the read: refused before opening
    if not stat.S_ISREG(mode):
        raise where.error(tr("not a regular file, not a scenario file"))


def read_source(path: Path, where: Where) -> bytes:
    """The file's bytes: only a regular file (a FIFO, a device or a socket is refused
    before it is opened, and again after, in case it was swapped), at most MAX_FILE_BYTES."""
    try:
        info = os.stat(path)
        _refuse_non_regular(info.st_mode, where)
        if info.st_size > MAX_FILE_BYTES:
            raise where.error(tr("too big for a scenario (more than {mb} MB)", mb=MAX_FILE_BYTES // 2**20))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            _refuse_non_regular(os.fstat(f.fileno()).st_mode, where)
            raw = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise where.error(tr("no such file")) from None
    except IsADirectoryError:
        raise where.error(tr("a directory, not a scenario file")) from None
    except OSError as exc:
        raise where.error(tr("cannot read: {error}", error=exc.strerror)) from None
    if len(raw) > MAX_FILE_BYTES:  # it grew since stat
        raise where.error(tr("too big for a scenario (more than {mb} MB)", mb=MAX_FILE_BYTES // 2**20))
    return raw
