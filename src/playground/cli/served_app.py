"""One learner's app process under serve: textual-serve's AppService, started with the
playground's environment (forked from the zygote when there is one: cli/app_zygote.py),
its end told to the server (`ended`, `on_end`), and stopped for certain (`end_process`).

textual-serve (pinned: pyproject.toml) has no public way to say how the app process is
started, so this class starts it itself and overrides the public methods that use it:
`start` (the process, and the relay of its output), `stdin`, `run` (the relay: the app's
packets to AppService's own `on_data`, `on_meta`, `on_packed`), `on_meta` (one more kind:
the language the app shows, tui/served_driver.py) and `stop`. Nothing of AppService's
private state is read or set."""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import signal
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Protocol

from textual_serve.app_service import AppService

from playground.cli.app_zygote import AppZygote
from playground.cli.serve_guard import terminal_size
from playground.i18n import LANGUAGES
from playground.served import ENV as SERVED_ENV

log = logging.getLogger("textual-serve")  # (textual-serve's own logger: serve shows it)
DRIVER = "playground.tui.served_driver:ServedDriver"  # Textual's web driver, which can repaint on demand


def die_with_parent() -> None:
    """preexec_fn of an app process: SIGTERM when serve dies, however it dies (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class AppProcess(Protocol):
    """What serve needs of an app's process: one it started (asyncio's Process) or one the
    zygote forked (gate/warm.py's WarmProcess), each with pipes for its standard streams."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def stdin(self) -> asyncio.StreamWriter | None: ...

    @property
    def stdout(self) -> asyncio.StreamReader | None: ...

    @property
    def stderr(self) -> asyncio.StreamReader | None: ...

    async def wait(self) -> int: ...


async def end_process(process: AppProcess, grace: float) -> None:
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
            async with asyncio.timeout(grace if sig == signal.SIGTERM else None):
                await process.wait()
        except asyncio.TimeoutError:
            continue


class PlaygroundApp(AppService):
    """One session's app process."""

    def __init__(self, argv: list[str], running: set, grace: float, home: Path, extra_env: dict | None = None,
                 zygote: AppZygote | None = None, on_end=None, on_language=None, **kwargs) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.extra_env = extra_env or {}  # class mode: the class's Redis and this app's role
        self.zygote = zygote  # forks the app (cli/app_zygote.py); None, or when it fails: a new process
        self.argv = argv
        self.home = home  # the session's own directory: its history, recordings and exports
        self.running = running  # every app process alive, for the server's shutdown
        self.grace = grace
        self.process: AppProcess | None = None
        self.ended = asyncio.Event()  # its process's output has ended (the app exited, or was stopped)
        self.on_end = on_end  # called once it has
        self.on_language = on_language  # awaited with the language the app says it shows (at its start, F12)
        self.given_up = False  # a stop timed out (the relay is not waited for again)
        self.relay: asyncio.Task | None = None  # run(), from start()
        self.downloads = kwargs["download_manager"]  # (AppService keeps it to itself)

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

    async def start(self, width: int, height: int) -> None:
        """The app's process (forked or new), and the relay of its output (`run`)."""
        environment = self.environment(width=width, height=height)
        process: AppProcess | None = None
        if self.zygote is not None:
            process = await self.zygote.spawn(self.argv, environment)
        if process is None:
            process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=environment, preexec_fn=die_with_parent)
        self.process = process
        self.running.add(process)
        self.relay = asyncio.create_task(self.run())

    @property
    def stdin(self) -> asyncio.StreamWriter:
        """The app process's standard input (AppService's send_bytes and send_meta write there)."""
        if self.process is None or self.process.stdin is None:
            raise RuntimeError("the app's process is not started with a pipe for its input")
        return self.process.stdin

    def _output(self) -> tuple[asyncio.StreamReader, asyncio.StreamReader]:
        """The started process's stdout and stderr (start gives it pipes for both)."""
        process = self.process
        if process is None or process.stdout is None or process.stderr is None:
            raise RuntimeError("the app's process is not started with pipes for its output")
        return process.stdout, process.stderr

    async def run(self) -> None:
        """The relay of the app's output, as textual-serve's own: after the app's prelude line,
        its packets (a type byte, a 4-byte length, the payload) to on_data / on_meta /
        on_packed, until the output ends; then `ended`, `on_end`. Its stderr is kept and
        printed once the app has ended, as textual-serve does."""
        stdout, stderr = self._output()
        errors = bytearray()

        async def read_stderr() -> None:
            while data := await stderr.read(4096):
                errors.extend(data)

        stderr_task = asyncio.create_task(read_stderr())
        handlers = {b"D": self.on_data, b"M": self.on_meta, b"P": self.on_packed}
        try:
            for _ in range(10):  # the prelude: a Textual app says so first
                line = await stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    break
            if line != b"__GANGLION__\n":
                log.error("Application failed to start")
            while True:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                handler = handlers.get(kind)
                if handler is not None:
                    await handler(payload)
        except (asyncio.IncompleteReadError, ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            stderr_task.cancel()
            await asyncio.gather(stderr_task, return_exceptions=True)
            if errors:
                sys.stdout.write(errors.decode("utf-8", "replace"))
            self.ended.set()
            if self.on_end is not None:
                asyncio.get_running_loop().call_soon(self.on_end)

    async def on_meta(self, data: bytes) -> None:
        """A meta packet of the app's: "language" ({"lang": a code of LANGUAGES}) to
        `on_language`; any other kind, textual-serve's."""
        try:
            meta = json.loads(data)
        except ValueError:
            meta = None
        if isinstance(meta, dict) and meta.get("type") == "language":
            if meta.get("lang") in LANGUAGES and self.on_language is not None:
                await self.on_language(meta["lang"])
            return
        await super().on_meta(data)

    @property
    def alive(self) -> bool:
        """Started, and its output has not ended."""
        return self.process is not None and not self.ended.is_set()

    async def set_terminal_size(self, width, height) -> None:
        """The tab's terminal size (its resize messages too), clamped (cli/serve_guard.py)."""
        await super().set_terminal_size(*terminal_size(width, height))

    async def _quit(self) -> None:
        """textual-serve's way to stop an app: its downloads cancelled, "quit" sent, its
        relay waited for."""
        await self.downloads.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        if self.relay is not None:
            await self.relay

    async def stop(self) -> None:
        """Ask the app to quit (textual-serve's way); terminate or kill it if it does not."""
        process = self.process
        try:
            if not self.given_up and self.relay is not None:
                async with asyncio.timeout(self.grace):
                    await self._quit()
        except asyncio.TimeoutError:
            self.given_up = True  # the wait cancelled its relay: it is not waited for again
        finally:
            if process is not None:
                await end_process(process, self.grace)
                self.running.discard(process)
