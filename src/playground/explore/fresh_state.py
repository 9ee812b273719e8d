"""What makes each schedule start on a state equal to a fresh server, beyond what
`Playground.reset` does (no keys in any database, no scripts or functions, every client
reset): the configuration and the server itself.

- CONFIG: when a step or the setup may change it, every value is read when the
  exploration begins and, after each schedule and at the end, what a schedule changed
  is set back, over the playground's own connection (never a learner's);
- the server: the one the exploration began on must still run after every schedule. A
  fresh start restarts a dead server, so a crash would otherwise pass unnoticed and its
  schedule report an outcome the program never has.
"""

from __future__ import annotations

import contextlib

from playground.i18n import tr
from playground.resp.info_text import config_value, config_values, parse_info


# set by the playground itself for each part (Playground.set_script_time_limit), which
# remembers what it set: not ours to put back
_PLAYGROUND_OWN = frozenset((b"lua-time-limit", b"busy-reply-threshold"))


AFTER_ERROR_WAIT = 0.5  # seconds (see FreshState.check_alive)


class ServerStopped(Exception):
    """The server stopped (or was restarted) during a schedule (str() is one line)."""


class FreshState:
    """Puts the server back as it was before the first schedule (its CONFIG too, when the
    steps may change it), and notices a server that stopped."""
    def __init__(self, pg) -> None:
        self.pg = pg
        self.config: dict[bytes, bytes] | None = None
        self.process = None

    async def begin(self, commands) -> None:
        """Before the first schedule; `commands`: every command the setup and the steps
        may send."""
        self.process = getattr(self.pg.server, "process", None)
        self.config = None
        if any(argv[0].lower() == b"config" for argv in commands if argv):  # (scripts may not call CONFIG)
            self.config = await self._read_config()

    async def may_evict(self, commands) -> bool:
        """Whether a write may evict keys, or be refused for memory (OOM), in some schedule:
        the server has a `maxmemory` with a policy that evicts, or one that refuses
        (`noeviction`, the private servers' own: server/sandbox.py) and the server's memory
        has ever reached half of it (`memory_tight`), or it would not say, or a line may set
        one (CONFIG). Then which keys a line changes depends on every write before it, of
        any key."""
        if any(argv[0].lower() == b"config" for argv in commands if argv):
            return True
        return await self.memory_tight(evicting_too=True)

    async def memory_tight(self, evicting_too: bool = False) -> bool:
        """Has the server's memory (its peak) ever reached half its `maxmemory`, so that a
        write may be refused in one order and not in another? (`evicting_too`: also True
        under a policy that evicts, or when the server would not say.) After a reduced
        exploration a True sends the explorer round again, every order run."""
        with contextlib.suppress(Exception):
            limit, policy, info = await self._admin().run([[b"CONFIG", b"GET", b"maxmemory"],
                                                           [b"CONFIG", b"GET", b"maxmemory-policy"],
                                                           [b"INFO", b"memory"]])
            limit, peak = config_value(limit, b"maxmemory"), parse_info(info).get("used_memory_peak")
            if limit == b"0":
                return False
            if limit is None or peak is None or config_value(policy, b"maxmemory-policy") != b"noeviction":
                return evicting_too
            return int(peak) * 2 >= int(limit)
        return evicting_too

    def check_alive(self, label: str, after_error: bool = False) -> None:
        """Raise ServerStopped unless the server the exploration began on still runs (a
        topology: no node crashed; it is started afresh after a server action).
        `after_error`: a connection to it just failed: a killed server has closed its
        socket a moment before its process ends, so that moment (AFTER_ERROR_WAIT at
        most) is waited for before it is called running."""
        server = self.pg.server
        if server is None or not hasattr(server, "alive"):
            return
        if hasattr(server, "crashed"):
            stopped = bool(server.crashed())
        else:
            process = getattr(server, "process", None)
            if after_error and process is self.process and process is not None and server.alive():
                with contextlib.suppress(Exception):
                    process.wait(timeout=AFTER_ERROR_WAIT)
            stopped = not server.alive() or getattr(server, "process", None) is not self.process
        if stopped:
            raise ServerStopped(tr("the server stopped during schedule {order}; the exploration stops "
                                   "here (its outcomes would not be the program's)", order=label))

    async def restore(self) -> None:
        """CONFIG values a schedule changed, back to the start values."""
        if not self.config:
            return
        now = await self._read_config() or {}
        # the key events the playground listens to are its own setting too: put back as it needs
        # them (the values were read before the feed first listened), not as they were found
        held = self.pg.changes.held() if getattr(self.pg, "changes", None) is not None else {}
        target = {**self.config, **{k: v for k, v in held.items() if k in self.config}}
        changed = [[b"CONFIG", b"SET", k, v] for k, v in target.items()
                   if now.get(k, v) != v and k not in _PLAYGROUND_OWN
                   and not (k in held and sorted(now[k]) == sorted(v))]   # (the server says EA as AE)
        if changed:
            await self._admin().run(changed)

    async def _read_config(self) -> dict[bytes, bytes] | None:
        """Every CONFIG value (None: the server would not say)."""
        with contextlib.suppress(Exception):
            reply, = await self._admin().run([[b"CONFIG", b"GET", b"*"]])
            return config_values(reply)
        return None

    def _admin(self):
        return self.pg.admin or self.pg.reader
