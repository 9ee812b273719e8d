"""One learner's app process under serve: textual-serve's AppService, started with the
playground's environment (forked from the zygote when there is one: cli/app_zygote.py),
its end told to the server (`ended`, `on_end`), and stopped for certain (`end_process`).

textual-serve (pinned: pyproject.toml) has no public way to say how the app process is
started: `AppService.start` asks `_open_app_process` for it, and `run` and `stdin` read
the `_process` and `_stdin` that method sets. Overriding that one method is the seam
used here; everything else is AppService's public methods."""

from __future__ import annotations

import asyncio
import os
import signal
from importlib.metadata import version
from pathlib import Path

from textual_serve.app_service import AppService

from playground.cli.app_zygote import AppZygote
from playground.cli.serve_guard import terminal_size
from playground.served import ENV as SERVED_ENV

DRIVER = "playground.tui.served_driver:ServedDriver"  # Textual's web driver, which can repaint on demand


def die_with_parent() -> None:
    """preexec_fn of an app process: SIGTERM when serve dies, however it dies (Linux)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


async def end_process(process: asyncio.subprocess.Process, grace: float) -> None:
    """Terminate `process` (Textual quits on SIGTERM), then kill it if it lingers.

    By os.kill, never Process.terminate/kill: those poll (waitpid) first, and an app that
    has just exited (its tab closed) is then reaped here before asyncio's child watcher
    gets to it, which logs "Unknown child process pid N, will report returncode 255". A pid
    is only reaped by the watcher, which sets returncode, so it is ours until then."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            return
        try:
            os.kill(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(process.wait(), grace if sig == signal.SIGTERM else None)
        except asyncio.TimeoutError:
            continue


class PlaygroundApp(AppService):
    """One session's app process."""

    def __init__(self, argv: list[str], running: set, grace: float, home: Path, extra_env: dict | None = None,
                 zygote: AppZygote | None = None, on_end=None, **kwargs) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.extra_env = extra_env or {}  # class mode: the class's Redis and this app's role
        self.zygote = zygote  # forks the app (cli/app_zygote.py); None, or when it fails: a new process
        self.argv = argv
        self.home = home  # the session's own directory: its history, recordings and exports
        self.running = running  # every app process alive, for the server's shutdown
        self.grace = grace
        self.process: asyncio.subprocess.Process | None = None
        self.ended = asyncio.Event()  # its process's output has ended (the app exited, or was stopped)
        self.on_end = on_end  # called once it has
        self.given_up = False  # a stop timed out (textual-serve's own stop is not asked again)

    def environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        """The app process's environment: what textual-serve gives its apps (as of the pinned
        version: AppService's own), the playground's driver, and the learner's directories."""
        environment = dict(os.environ)
        environment.update({"TEXTUAL_FPS": "60", "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
                            "TERM_PROGRAM_VERSION": version("textual-serve"),
                            "COLUMNS": str(width), "ROWS": str(height)})
        if self.debug:
            environment.update({"TEXTUAL": "debug,devtools", "TEXTUAL_LOG": "textual.log"})
        environment[SERVED_ENV] = "1"  # the app shows the keys a browser lets through (playground/served.py)
        environment["TEXTUAL_DRIVER"] = DRIVER
        # per learner, never shared: the panes' history and F9's recordings (state), and the
        # exports, each also sent to the learner's browser as a download (served.delivered)
        environment["REDIS_PLAYGROUND_STATE_DIR"] = str(self.home / "state")
        environment["REDIS_PLAYGROUND_EXPORT_DIR"] = str(self.home / "exports")
        environment.update(self.extra_env)
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24):
        """textual-serve's hook (see the module's note): the process, forked or new."""
        environment = self.environment(width=width, height=height)
        process = await self.zygote.spawn(self.argv, environment) if self.zygote is not None else None
        if process is None:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=environment, preexec_fn=die_with_parent)
        self._process = self.process = process
        self._stdin = process.stdin
        self.running.add(process)
        return process

    async def run(self) -> None:
        """textual-serve's relay of the app's output, until it ends; then `ended`, `on_end`."""
        try:
            await super().run()
        finally:
            self.ended.set()
            if self.on_end is not None:
                asyncio.get_running_loop().call_soon(self.on_end)

    @property
    def alive(self) -> bool:
        """Started, and its output has not ended."""
        return self.process is not None and not self.ended.is_set()

    async def set_terminal_size(self, width, height) -> None:
        """The tab's terminal size (its resize messages too), clamped (cli/serve_guard.py)."""
        await super().set_terminal_size(*terminal_size(width, height))

    async def stop(self) -> None:
        """Ask the app to quit (textual-serve's way); terminate or kill it if it does not."""
        process = self.process
        try:
            if not self.given_up:
                await asyncio.wait_for(super().stop(), self.grace)
        except asyncio.TimeoutError:
            self.given_up = True  # the wait cancelled its relay: textual-serve's stop would wait on it again
        finally:
            if process is not None:
                await end_process(process, self.grace)
                self.running.discard(process)
