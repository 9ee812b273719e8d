"""One tab's session under serve: its app, its directory, the websocket of the tab showing
it (cli/web_server.py starts, attaches and ends them)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from playground.classroom.protocol import ENDED_EXIT, RELEASED_EXIT
from playground.cli.tab_input import TabInput
from playground.i18n import current_language, tr_in

if TYPE_CHECKING:
    from playground.cli.served_app import PlaygroundApp

ENDED = 4000  # the websocket's close code when the session is over: the page says "Session ended"
RELEASED = 4005  # the same, its app having ended because the teacher freed the learner's place
TOO_BIG = 4006  # the same, its app having grown past serve's memory cap for an app
CLASS_ENDED = 4007  # the same, its app having ended because the teacher ended the class (ENDED_EXIT)
CLASS_STOPPED = 4008  # serve --class stopped: the class is over (the page offers no restart)
STOPPED = 4009  # serve stopped: the session is over, and a restart works only once serve runs again


def class_end_texts(lang: str) -> dict[str, str]:
    """The page's texts in `lang` for a class that is over (CLASS_ENDED, CLASS_STOPPED):
    the teacher ended it (a learner's tab; the teacher's own), or serve stopped; and for a
    session that is over because serve stopped (STOPPED)."""
    return {"class_ended": tr_in(lang, "Your teacher ended the class: this session is over."),
            "you_ended": tr_in(lang, "You ended the class: every learner's tab says so."),
            "class_stopped": tr_in(lang, "The class is over: its server (serve) stopped."),
            "stopped": tr_in(lang, "The playground's server (serve) stopped: this session is over.")}


EXIT_WAIT = 5.0  # seconds the tab's close waits for the app's exit code (it has said it exits)


class TabSession:
    """One learner's app, and the websocket of the tab showing it (None between two). A
    ready session (cli/ready_pool.py) has no token until a tab takes it."""

    def __init__(self, token: str | None, parent: Path | None = None) -> None:
        """Args:
            token: the tab's session token (None: a ready app no tab has taken).
            parent: the directory the session's own goes in (serve's: cli/serve_home.py).
        """
        self.token = token
        self.home = Path(tempfile.mkdtemp(prefix="session-" if parent else "redis-playground-session-",
                                          dir=parent))  # 0700; removed at its end
        self.app: PlaygroundApp | None = None  # its app, once started
        self.input = TabInput()  # what its tab types, on its way to the app (cli/tab_input.py)
        self.shown = False  # the app has drawn to a tab (a tab that never saw a frame gets no grace)
        self.ended_code = ENDED  # the close code its tab gets when it ends (TOO_BIG: serve ended it)
        self.websocket: web.WebSocketResponse | None = None
        self.expiry: asyncio.TimerHandle | None = None
        self.stopping: asyncio.Task | None = None
        self.teacher = False  # class mode: the page gave the teacher's secret
        self.code: str | None = None  # its resume code, once a tab has it (cli/resume_codes.py)
        self.output = asyncio.Event()  # the app has written to its terminal
        self.lang = current_language()  # the language its app shows: serve's (--lang) until the app says (F12)

    def started_app(self) -> PlaygroundApp:
        """Its app, which serve starts before anything asks for it (cli/web_server.py)."""
        if self.app is None:
            raise RuntimeError("the session's app is not started")
        return self.app

    async def write_bytes(self, data: bytes) -> None:
        """The app's output to the tab; dropped while no tab shows it (a repaint follows)."""
        self.output.set()
        websocket = self.websocket
        if websocket is not None and not websocket.closed:
            try:
                await websocket.send_bytes(data)
                self.shown = True
            except (ConnectionError, RuntimeError):
                pass

    async def write_str(self, data: str) -> None:
        websocket = self.websocket
        if websocket is not None and not websocket.closed:
            try:
                await websocket.send_str(data)
            except (ConnectionError, RuntimeError):
                pass

    async def language(self, lang: str) -> None:
        """The app says the language it shows (at its start, at F12): kept, for the tab's
        page (and the next tab's: a reload, a resume code), and told to the tab now showing it,
        whose own texts follow (its "playground_language" message, serve_page/app_index.html)."""
        self.lang = lang
        await self.write_str(json.dumps(["playground_language", {"lang": lang}]))

    async def close(self) -> None:
        """The app said it exits: the tab shows "Session ended", or why (its exit code), once
        the app has ended (waited for aside: the app's output is still read meanwhile)."""
        websocket, self.websocket = self.websocket, None
        if websocket is not None:
            asyncio.ensure_future(self._closed(websocket))

    async def _closed(self, websocket: web.WebSocketResponse) -> None:
        process = getattr(self.app, "process", None)  # (its PlaygroundApp: cli/served_app.py)
        if process is not None:
            try:
                async with asyncio.timeout(EXIT_WAIT):
                    await process.wait()
            except TimeoutError:
                pass
        exited = process.returncode if process is not None else None
        code = {RELEASED_EXIT: RELEASED, ENDED_EXIT: CLASS_ENDED}.get(exited, self.ended_code) \
            if exited is not None else self.ended_code
        await websocket.close(code=code)
