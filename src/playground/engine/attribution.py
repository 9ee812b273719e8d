"""Which client last wrote each key: the inspector's "changed by" column.

Diffing snapshots cannot say who changed a key when both clients are busy, so the
writers are worked out from the commands themselves: the server says whether a command
writes (COMMAND INFO flags, cached per name) and which of its arguments are keys
(COMMAND GETKEYS); commands queued inside MULTI count when their EXEC runs, and a
script's declared keys count as written by whoever ran it.
"""

from __future__ import annotations

from playground.resp.replies import Array, Err, Status

_SCRIPTS = {b"eval": False, b"evalsha": False, b"fcall": False,
            b"eval_ro": True, b"evalsha_ro": True, b"fcall_ro": True}


class WriteTracker:
    """Remembers the last client that wrote each key."""

    def __init__(self, reader) -> None:
        self.reader = reader                      # a SideConnection (read-only use)
        self.last_writer: dict[bytes, str] = {}
        self._queued: dict[str, set[bytes]] = {}  # keys written by commands in an open MULTI
        self._writes: dict[bytes, bool] = {}      # command name -> has the write flag

    async def note(self, client: str, argv: list[bytes], reply, was_in_multi: bool) -> set[bytes]:
        """Account for one command `client` ran and the reply it got; the keys it wrote."""
        if not argv:
            return set()
        cmd = argv[0].lower()
        if cmd == b"multi" and isinstance(reply, Status):
            self._queued[client] = set()
            return set()
        if cmd in (b"discard", b"reset"):
            self._queued.pop(client, None)
            return set()
        if cmd == b"exec":
            keys = self._queued.pop(client, set())
            if not isinstance(reply, Array):  # nil: aborted by WATCH; error: EXECABORT
                return set()
        elif was_in_multi:
            if isinstance(reply, Status) and reply == b"QUEUED":
                self._queued.setdefault(client, set()).update(await self.written_keys(argv))
            return set()
        elif isinstance(reply, Err):
            return set()
        else:
            keys = await self.written_keys(argv)
        for key in keys:
            self.last_writer[key] = client
        return keys

    async def written_keys(self, argv: list[bytes]) -> set[bytes]:
        cmd = argv[0].lower()
        if cmd in _SCRIPTS:
            if _SCRIPTS[cmd] or len(argv) < 3 or not argv[2].isdigit():
                return set()
            return set(argv[3:3 + int(argv[2])])
        if not await self._is_write(cmd):
            return set()
        reply, = await self.reader.run([[b"COMMAND", b"GETKEYS", *argv]])
        return {bytes(k) for k in reply} if isinstance(reply, Array) else set()

    async def _is_write(self, cmd: bytes) -> bool:
        if cmd not in self._writes:
            reply, = await self.reader.run([[b"COMMAND", b"INFO", cmd]])
            flags: set[bytes] = set()
            if isinstance(reply, Array) and reply and isinstance(reply[0], Array) and len(reply[0]) > 2:
                flags = {bytes(f) for f in reply[0][2]}
            self._writes[cmd] = b"write" in flags
        return self._writes[cmd]

    def forget(self) -> None:
        """After FLUSHALL or a restart nothing is known any more."""
        self.last_writer.clear()
        self._queued.clear()


