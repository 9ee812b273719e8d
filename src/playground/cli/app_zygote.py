"""serve's zygote: one warm process that has imported Python's, Textual's and the
playground's modules for a tab's app (and started nothing: no event loop, no thread, no
server), and forks each tab's app from there, so that an app starts without paying ~1 s
of CPU for its imports (issue 27). A burst of tabs then costs each app its own start only.

The zygote is gate/warm_python.py (as the gate's warm interpreter for learners'
programs) with `preload()` (cli/app_preload.py) instead of `import redis`; gate/warm.py speaks to it.
An app forked there gets its stdin, stdout and stderr over the socket (SCM_RIGHTS), its
environment, argv and working directory, leads a session of its own, and runs
`python -m playground ...` as a new process would. serve sees it as a process it can
signal and wait for: the zygote reaps it and reports its exit code.

Nothing outlives serve: the zygote dies with serve (SIGKILL, PR_SET_PDEATHSIG), and each
app gets SIGTERM when the zygote dies (Textual's web driver takes it as "quit"; the app's
private server goes with the app). If the zygote cannot fork an app (it died, it does not
answer), serve says so in one line and starts its apps as new processes from then on.

This module is imported by the zygote: nothing here imports textual-serve or aiohttp.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path

from playground.gate.warm import WarmInterpreter, WarmProcess
from playground.i18n import tr

log = logging.getLogger("textual-serve")
NAME = "rp-zygote"  # the zygote's name in ps (its apps take the interpreter's back)
ANSWER_WAIT = 60.0  # seconds the zygote may take to fork an app (its own start included) before serve gives up on it


class AppZygote:
    """serve's side: the zygote's process, and the apps forked there."""

    def __init__(self, env: dict[str, str]) -> None:
        """env: an app's environment (Textual reads some of it when it is imported)."""
        self.warm = WarmInterpreter(preload="playground.cli.app_preload:preload", name=NAME, env=env,
                                    spawn_timeout=ANSWER_WAIT)
        self.failed = False

    async def start(self) -> None:
        try:
            await self.warm.start()
        except OSError as error:
            self._give_up(error)

    @staticmethod
    def takes(argv: list[str]) -> bool:
        """It forks `<this Python> -m MODULE ...` (what serve's tabs run)."""
        return len(argv) > 2 and argv[0] == sys.executable and argv[1] == "-m"

    async def spawn(self, argv: list[str], env: dict[str, str], cwd: Path | None = None) -> WarmProcess | None:
        """The app forked, with pipes for its stdin, stdout and stderr; None: start it as a
        new process (the zygote failed, and said so once)."""
        if self.failed or not self.takes(argv):
            return None
        try:
            return await self.warm.spawn(argv, cwd or Path(os.getcwd()), env, stdin=True, deathsig=signal.SIGTERM)
        except OSError as error:
            self._give_up(error)
            return None

    def _give_up(self, error: OSError) -> None:
        if not self.failed:
            self.failed = True
            log.error(tr("serve: the warm zygote cannot start apps ({error}); each tab's app starts as a new "
                         "process from now on (slower)", error=error))

    async def stop(self) -> None:
        """After serve's apps: the zygote ends (an app still there gets SIGTERM)."""
        await self.warm.stop()
