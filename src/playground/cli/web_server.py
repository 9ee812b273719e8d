"""textual-serve's Server and AppService, made to leave no process behind (see
cli/serve_command.py): each app started without a shell, tied to this process, stopped
for sure when its tab goes, and every one stopped when the server ends."""

from __future__ import annotations

import asyncio
import logging
import signal

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

log = logging.getLogger("textual-serve")


def die_with_parent() -> None:
    """preexec_fn of an app process: SIGTERM when serve dies, however it dies (Linux)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


async def end_process(process: asyncio.subprocess.Process, grace: float) -> None:
    """Terminate `process` (Textual quits on SIGTERM), then kill it if it lingers."""
    if process.returncode is None:
        try:
            process.terminate()
            await asyncio.wait_for(process.wait(), grace)
        except ProcessLookupError:
            pass
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()


class PlaygroundApp(AppService):
    """One tab's app process."""

    def __init__(self, argv: list[str], running: set, grace: float, **kwargs) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv = argv
        self.running = running  # every app process alive, for the server's shutdown
        self.grace = grace

    async def _open_app_process(self, width: int = 80, height: int = 24):
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width=width, height=height),
            preexec_fn=die_with_parent)
        self._stdin = process.stdin
        self.running.add(process)
        return process

    async def stop(self) -> None:
        """Ask the app to quit (textual-serve's way); terminate or kill it if it does not."""
        process = self._process
        try:
            await asyncio.wait_for(super().stop(), self.grace)
        except asyncio.TimeoutError:
            self._task = None
        finally:
            if process is not None:
                await end_process(process, self.grace)
                self.running.discard(process)


class PlaygroundServer(Server):
    def __init__(self, argv: list[str], host: str, port: int, quit_grace: float) -> None:
        super().__init__(" ".join(argv), host=host, port=port, title="redis-playground")
        self.argv = argv
        self.quit_grace = quit_grace
        self.running: set = set()
        self.sockets: set[web.WebSocketResponse] = set()

    async def on_startup(self, app: web.Application) -> None:
        self.console.print(f"redis-playground: {self.public_url}  (Ctrl+C stops it)", highlight=False)

    async def on_shutdown(self, app: web.Application) -> None:
        for websocket in list(self.sockets):
            await websocket.close()
        await asyncio.gather(*(end_process(p, self.quit_grace) for p in list(self.running)))

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.add_signal_handler(signal.SIGINT, self.request_exit)
        loop.add_signal_handler(signal.SIGTERM, self.request_exit)
        web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False, loop=loop,
                    print=lambda *args: None, shutdown_timeout=self.quit_grace)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's own, with our AppService: one app process per websocket (tab)."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        app_service = None
        self.sockets.add(websocket)
        try:
            await websocket.prepare(request)
            app_service = PlaygroundApp(
                self.argv, self.running, self.quit_grace, write_bytes=websocket.send_bytes,
                write_str=websocket.send_str, close=websocket.close,
                download_manager=self.download_manager, debug=self.debug)
            await app_service.start(width, height)
            await self._process_messages(websocket, app_service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            self.sockets.discard(websocket)
            if app_service is not None:
                await app_service.stop()
        return websocket
