"""textual-serve's Server and AppService, made to leave no process behind (see
cli/serve_command.py) and to keep a learner's session across reloads and network drops.

A session is one learner's app process (and so its private server). The page keeps a
random token in its sessionStorage (per tab, kept across reloads) and opens its websocket
at /ws/<token>: a websocket with a known token re-attaches to that session, which repaints
its whole screen. A session whose websocket went stays alive for `grace` seconds (a
reload, a Wi-Fi blip, a laptop asleep), then its app is stopped; an app that ends (Alt+Q)
ends its session. Close codes the page acts on: ENDED (the session is over: "Session
ended"), FULL (--max-tabs reached), TAKEN (the session was opened in another tab); any
other close is a drop, and the page reconnects by itself. UNKNOWN: a resume code that
matches no session (cli/resume_codes.py); RELEASED: the session ended because the teacher
freed the learner's place, CLASS_ENDED: because the teacher ended the class, CLASS_STOPPED:
serve --class stopped, so the class is over, STOPPED: serve stopped (cli/tab_session.py)."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import secrets
import shutil
import signal
import tempfile
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.server import Server

from playground.cli.app_zygote import AppZygote
from playground.cli.class_serve import HELLO_WAIT
from playground.cli.ready_pool import ReadyPool
from playground.cli.serve_guard import host_allowed, host_names, message, same_origin, terminal_size
from playground.cli.serve_home import ServeHome, sweep
from playground.cli.tab_input import BURST, FLOODED, RATE
from playground.cli.resume_codes import ResumeCodes, away_notice, normalize, resume_texts, shown
from playground.cli.tab_session import CLASS_STOPPED, STOPPED, TOO_BIG, TabSession, class_end_texts
from playground.cli.served_app import PlaygroundApp, end_process
from playground.i18n import LANGUAGES, current_language, tr, tr_in, trn

log = logging.getLogger("textual-serve")
PAGE = Path(__file__).resolve().parent / "serve_page"  # the page's template: nothing from the internet
READY_WAIT = 60.0  # seconds a ready app may take to draw before the pool starts the next
TOKEN = re.compile(r"[0-9a-f]{32}")
FULL, TAKEN, UNKNOWN = 4003, 4001, 4004  # websocket close codes, for the page (ENDED: tab_session.py)
QUIET = 5.0  # seconds without a new tab before the ready pool refills (cli/ready_pool.py)
MAX_FRAME = 1024 * 1024  # bytes of one websocket message from a tab; more closes it with 1009 (too big)
APP_MEMORY = 1024 * 1024 * 1024  # bytes an app may use (its resident set); past it serve ends it (TOO_BIG)
MEMORY_EVERY = 2.0  # seconds between two looks at the apps' memory
TOLD_EVERY = 5.0  # seconds between two notices to a tab that its input was dropped


class PlaygroundServer(Server):
    """textual-serve's Server through its public methods (handle_index, handle_download,
    on_startup, on_shutdown, serve overridden); its routes and its relay of a tab's
    messages are this class's own (`web_app`, `relay`)."""

    def __init__(self, argv: list[str], host: str, port: int, quit_grace: float, session_grace: float = 600.0,
                 max_tabs: int | None = None, classroom=None, ready: int = 0, fork: bool = True,
                 public_names: tuple[str, ...] = (), app_memory: int = APP_MEMORY) -> None:
        super().__init__(" ".join(argv), host=host, port=port, title="redis-playground", templates_path=PAGE)
        self.names = host_names(host, public_names)  # what a request's Host may say (cli/serve_guard.py)
        self.app_memory = app_memory
        self.home: ServeHome | None = None  # serve's own directory, its sessions' in it (cli/serve_home.py)
        self._watching: asyncio.Task | None = None  # the apps' memory, looked at every MEMORY_EVERY
        self.argv = argv
        self.quit_grace = quit_grace
        self.session_grace = session_grace  # seconds a session outlives its tab's websocket
        self.max_tabs = max_tabs
        self.classroom = classroom  # class mode: a cli.class_serve.ClassSetup
        self.running: set = set()
        self.sessions: dict[str, TabSession] = {}
        self.codes = ResumeCodes()  # each session's resume code; the sessions whose grace ran out
        self.sockets: set[web.WebSocketResponse] = set()
        self.closing = False
        self.exiting = False  # a signal asked serve to end (request_exit: once)
        self._texts: tuple[dict, str] | None = None  # the page's texts in every language, and as JSON
        self.pool: ReadyPool[TabSession] | None = (
            ReadyPool(ready, self._start_ready, self._drawn, self._room, self._quiet_in,
                      tabs=lambda: len(self.sessions)) if ready > 0 else None)
        self._last_tab = -QUIET  # loop time of the last new tab (a class's burst defers the pool's refill)
        self.size = (120, 40)  # the last tab's terminal: the ready apps start at that size
        self.fork = fork  # apps forked from a warm zygote (cli/app_zygote.py), else each a new process
        self.zygote: AppZygote | None = None

    def _homes(self) -> Path | None:
        """Where a session's own directory goes: serve's (cli/serve_home.py), once it started."""
        return self.home.path if self.home is not None else None

    def _quiet_in(self) -> float:
        """Seconds until no new tab has come for QUIET seconds (0: already so)."""
        return max(0.0, self._last_tab + QUIET - asyncio.get_running_loop().time())

    def _room(self) -> int:
        """How many apps --max-tabs leaves for the ready pool."""
        if self.max_tabs is not None:
            return self.max_tabs - len(self.sessions)
        return self.pool.size if self.pool is not None else 0

    async def _start_ready(self) -> TabSession | None:
        """A ready session: a learner's app started with no tab (cli/ready_pool.py)."""
        session = TabSession(None, self._homes())
        try:
            await self._start_app(session, *self.size)
        except BaseException:
            shutil.rmtree(session.home, ignore_errors=True)
            raise
        if self.closing:  # serve ended while it started: it ends too
            await session.started_app().stop()
            shutil.rmtree(session.home, ignore_errors=True)
            return None
        return session

    def _take_ready(self) -> TabSession | None:
        """The oldest ready session whose app runs (one that ended is on its way out)."""
        while self.pool is not None and (session := self.pool.take()) is not None:
            if session.stopping is None and session.started_app().alive:
                return session
        return None

    async def _drawn(self, session: TabSession) -> bool:
        """Until the app writes to its terminal (Textual imported, the app built): True;
        False if it ended first."""
        drawn = asyncio.ensure_future(session.output.wait())
        app = session.started_app()
        ended = asyncio.ensure_future(app.ended.wait())
        await asyncio.wait([drawn, ended], timeout=READY_WAIT, return_when=asyncio.FIRST_COMPLETED)
        drawn.cancel()
        ended.cancel()
        return app.alive and session.stopping is None

    async def _start_app(self, session: TabSession, width: int, height: int) -> None:
        app = session.app = PlaygroundApp(
            self.argv, self.running, self.quit_grace, session.home, write_bytes=session.write_bytes,
            write_str=session.write_str, close=session.close,
            extra_env=self.classroom.environment(session.teacher) if self.classroom is not None else None,
            zygote=self.zygote, on_end=lambda: self._end(session), on_language=session.language,
            download_manager=self.download_manager,
            debug=self.debug)
        await app.start(*terminal_size(width, height))

    def web_app(self) -> web.Application:
        """The web application: textual-serve's routes (the page's template names them) and
        /ws/<token>, a tab's session (the module's note)."""
        app = web.Application(middlewares=[self.check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes([web.get("/", self.handle_index, name="index"),
                        web.get("/ws", self.handle_websocket, name="websocket"),
                        web.get("/ws/{token}", self.handle_websocket),
                        web.get("/download/{key}", self.handle_download, name="download"),
                        web.static("/static", self.statics_path, show_index=True, name="static")])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    @web.middleware
    async def check_host(self, request: web.Request, handler):
        """Every request: its Host must name this serve (cli/serve_guard.py: DNS rebinding)."""
        sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
        local = sockname[0] if isinstance(sockname, tuple) and sockname else None
        if not host_allowed(request.headers.get("Host"), self.names, local):
            log.warning("refused a request for host %r (serve answers as %s)", request.headers.get("Host"),
                        ", ".join(sorted(self.names)))
            raise web.HTTPForbidden(text="redis-playground: this server does not answer as that host "
                                         "(serving it through a proxy? see --public-name)\n")
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        _, sessions = sweep()  # (a serve killed with no session left only its empty directory: said nothing)
        if sessions:
            self.console.print("redis-playground: " + trn(
                "removed {sessions} session directory that a serve killed before its end left behind",
                "removed {sessions} session directories that serves killed before their end left behind",
                sessions, sessions=sessions), highlight=False, soft_wrap=True)
        self.home = ServeHome()
        self._watching = asyncio.ensure_future(self._watch_memory())
        if self.fork:  # its environment: an app's (no session's, no class's secret), as Textual reads some at import
            model = PlaygroundApp(self.argv, set(), 0, Path(tempfile.gettempdir()), write_bytes=None, write_str=None,
                                  close=None, download_manager=self.download_manager, debug=self.debug)
            self.zygote = AppZygote(model.environment(*self.size))
            await self.zygote.start()
        if self.pool is not None:
            self.pool.fill()
        if self.classroom is None:
            self.console.print(f"redis-playground: {self.public_url}  (Ctrl+C stops it)", highlight=False)
            return
        url = self.public_url.rstrip("/") + "/"
        for line in (tr("redis-playground: class mode (Ctrl+C stops it)"), tr("  learners: {url}", url=url),
                     tr("  teacher (keep it to yourself): {url}", url=self.classroom.teacher_url(url))):
            self.console.print(line, highlight=False, soft_wrap=True)

    async def on_shutdown(self, app: web.Application) -> None:
        self.closing = True
        if self._watching is not None:
            self._watching.cancel()
        pool = asyncio.ensure_future(self.pool.close()) if self.pool is not None else None  # none starts now
        for websocket in list(self.sockets):  # (a class's tabs: the class is over, no restart offered)
            await websocket.close(code=self.stopped_code)
        for session in list(self.sessions.values()):
            if session.expiry is not None:
                session.expiry.cancel()
        await asyncio.gather(*(end_process(p, self.quit_grace) for p in list(self.running)))
        ready = await pool if pool is not None else []  # an app spawned meanwhile: ended by _start_ready
        if self.zygote is not None:  # after its apps
            await self.zygote.stop()
        from playground.server.private import sweep_stale_dirs
        sweep_stale_dirs()   # (an app killed at its end, its quit too slow: its private server's directory)
        if self.classroom is not None and self.classroom.link is not None:
            await self.classroom.link.close()
        for session in list(self.sessions.values()) + ready:
            shutil.rmtree(session.home, ignore_errors=True)
        if self.home is not None:
            self.home.remove()

    @property
    def stopped_code(self) -> int:
        """The close code of a tab when serve stops: a class's (the class is over), else STOPPED."""
        return CLASS_STOPPED if self.classroom is not None else STOPPED

    def request_exit(self) -> None:
        """Ctrl+C, SIGTERM, SIGHUP: serve ends (textual-serve's: GracefulExit). Once: a
        second signal while it ends (Ctrl+C twice, a service manager's second SIGTERM)
        raised in the middle of its end (on_shutdown), cut it short and left its sessions'
        directories behind; it ends as after the first (its apps have QUIT_GRACE, then go)."""
        if self.exiting:
            return
        self.exiting = True
        super().request_exit()

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.add_signal_handler(signal.SIGINT, self.request_exit)
        loop.add_signal_handler(signal.SIGTERM, self.request_exit)
        loop.add_signal_handler(signal.SIGHUP, self.request_exit)  # its terminal closed: ends as on Ctrl+C
        web.run_app(self.web_app(), host=self.host, port=self.port, handle_signals=False, loop=loop,
                    print=lambda *args: None, shutdown_timeout=self.quit_grace,
                    access_log=logging.getLogger("aiohttp.access") if debug else None)  # (a line a request,
        # hundreds in a class's first minutes: the teacher's URL scrolled out of the terminal)

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request):
        """The page, with its own texts in every language: it shows them in its session's
        language (the app's, which F12 switches: serve tells the page), until then in the
        one this tab last showed, or serve's."""
        context = await inspect.unwrap(Server.handle_index)(self, request)  # textual-serve's, without its template
        context["class_mode"] = self.classroom is not None
        context["lang"] = current_language()
        if self._texts is None:   # (the same for every page serve gives: made once)
            texts = {lang: self.page_texts(lang) for lang in LANGUAGES}
            self._texts = (texts, json.dumps(texts, ensure_ascii=False))
        context["texts"], context["texts_json"] = self._texts
        return context

    def page_texts(self, lang: str) -> dict[str, str]:
        """The page's own texts (not the app's) in `lang`: what it says when a session ends
        or cannot be opened, its resume code's line."""
        texts = {"ended": tr_in(lang, "Session ended."), "restart": tr_in(lang, "Restart"),
                 "full": tr_in(lang, "The class is full: every place on this server is taken. "
                                     "Ask your teacher, then try again."),
                 "again": tr_in(lang, "Try again"), "taken": tr_in(lang, "This session is open in another tab."),
                 "reconnecting": tr_in(lang, "Connection lost: reconnecting to your session…"),
                 "too_big": tr_in(lang, "This playground used more than {mb} MB of memory, and serve ended it. "
                                        "Restart gives you a fresh one.", mb=self.app_memory >> 20),
                 "too_long": tr_in(lang, "That was more than {kb} KB at once (a paste?): not sent to the "
                                         "playground.", kb=MAX_FRAME >> 10)}
        texts.update(resume_texts(lang))
        texts.update(class_end_texts(lang))
        return texts

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A tab's websocket: a new session, or a known token's session re-attached."""
        if not same_origin(request.headers.get("Origin"), request.host):  # another site's page (cli/serve_guard.py)
            log.warning("refused a websocket from %r (the page is at %r)", request.headers.get("Origin"), request.host)
            raise web.HTTPForbidden(text="redis-playground: this websocket's Origin is not this server's page\n")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_FRAME)  # larger: closed, 1009
        width, height = terminal_size(request.query.get("width", "80"), request.query.get("height", "24"))
        token = request.match_info.get("token", "")
        if not TOKEN.fullmatch(token):
            token = secrets.token_hex(16)  # no token (an older page): a session that cannot be resumed
        self.size = (width, height)
        await websocket.prepare(request)
        if self.closing:
            await websocket.close(code=self.stopped_code)  # (serve ends)
            return websocket
        teacher = await self._role(websocket)
        if teacher is None:
            return websocket
        asked = self._asked(token, teacher, normalize(request.query.get("resume", "")))
        if asked is None:  # a resume code nobody has
            await websocket.close(code=UNKNOWN)
            return websocket
        session, token, away = self._live_session(*asked, teacher)
        fresh = False
        if session is None or session.stopping is not None:
            fresh = True
            session = self._new_session(token, teacher)
            if session is None:
                await websocket.close(code=FULL)
                return websocket
        self.sockets.add(websocket)
        try:
            await self._attach(session, websocket, width, height)
            wanted = request.query.get("lang")   # (the language the tab showed last: a new session's app
            if fresh and wanted in LANGUAGES and wanted != session.lang and session.app is not None:   # in it)
                session.lang = wanted
                await session.app.send_meta({"type": "language", "lang": wanted})
            await websocket.send_str(json.dumps(["playground_session", {
                "token": session.token, "code": "" if session.teacher else shown(self.codes.give(session)),
                "notice": away_notice(away, session.lang) if away is not None else "", "lang": session.lang}]))
            await self.relay(websocket, session)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            self.sockets.discard(websocket)
            if session.websocket is websocket:
                self._detach(session)
        return websocket

    async def _role(self, websocket: web.WebSocketResponse) -> bool | None:
        """Whether the tab is the teacher's: in class mode, the page's first message says
        (cli/class_serve.py). None: the page went, or sent no such message (closed)."""
        if self.classroom is None:
            return False
        try:
            hello = await websocket.receive(timeout=HELLO_WAIT)
        except asyncio.TimeoutError:
            hello = None
        if hello is None or hello.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            await websocket.close()  # gone before it said who it is: nothing to start
            return None
        _, bad = message(hello.data if hello.type == WSMsgType.TEXT else hello.data or b"")
        if bad:  # binary, or nested too deep: said with the close code
            await websocket.close(code=bad, message=b"not the page's first message")
            return None
        return await self.classroom.is_teacher(hello.data)

    def _asked(self, token: str, teacher: bool, resume: str) -> tuple[str, float | None] | None:
        """The token of the session the tab asks for, and how long that session had been
        away when it ended by grace (the tab is told why it finds a fresh one): its resume
        code's (another tab, or after closing this one), whatever the token, else its
        token's. None: a resume code nobody has."""
        away = self.codes.away(token)
        if not resume:
            return token, away
        found = self.codes.find(resume)
        if found is not None and found.token is not None and found.teacher == teacher and found.stopping is None:
            return found.token, None
        if (away := self.codes.away(resume)) is not None:
            return secrets.token_hex(16), away
        return None

    def _live_session(self, token: str, away: float | None,
                      teacher: bool) -> tuple[TabSession | None, str, float | None]:
        """The session of this token, if it is one of the same role, and for the teacher's
        URL in a new tab the teacher's session; with the token and the time away to tell."""
        session = self.sessions.get(token)
        if session is not None and session.teacher != teacher:
            session = None  # a learner's token given with the teacher's secret, or the other way round
            token = secrets.token_hex(16)
        if teacher and (session is None or session.stopping is not None):  # the teacher's URL in a new tab:
            live = [s for s in self.sessions.values() if s.teacher and s.stopping is None]
            # the teacher's session: the one its closed tab left, else the one a tab still shows (that tab
            # is told it is open in another one). Not a second teacher's app: a tab closed a moment ago
            # may not have been seen to close yet.
            left = next((s for s in live if s.websocket is None), live[0] if live else None)
            if left is not None and left.token is not None:  # (every session of self.sessions has one)
                session, token, away = left, left.token, None
        return session, token, away

    def _new_session(self, token: str, teacher: bool) -> TabSession | None:
        """A session for a tab (a ready app's when there is one), or None when the class is full."""
        if self.max_tabs is not None and len(self.sessions) >= self.max_tabs and not teacher:  # the teacher: always
            return None
        self._last_tab = asyncio.get_running_loop().time()
        ready = self._take_ready() if self.pool is not None and not teacher else None
        session = ready or TabSession(token, self._homes())
        session.token = token
        session.teacher = teacher
        self.sessions[token] = session
        if ready is not None and self.pool is not None:
            self.pool.fill()
        return session

    async def relay(self, websocket: web.WebSocketResponse, session: TabSession) -> None:
        """A tab's messages to its app (textual-serve's page protocol): keys, resizes, focus;
        a ping answered; another kind of message ignored. A frame that is no such message
        (binary, not JSON, too deep: cli/serve_guard.py) or a flood of them closes the
        websocket with a code saying so; keys past the tab's pending input are dropped and
        the tab is told (cli/tab_input.py)."""
        app, tab = session.started_app(), session.input
        told = -TOLD_EVERY
        async for frame in websocket:
            if frame.type == WSMsgType.ERROR:  # (a frame over MAX_FRAME: aiohttp closes with 1009)
                break
            envelope, bad = message(frame.data if frame.type == WSMsgType.TEXT else frame.data or b"")
            if bad or tab.flooded():
                reason = b"not a message of this page" if bad else b"too many messages"
                log.warning("closed a tab's websocket: %s", reason.decode())
                await websocket.close(code=bad or FLOODED, message=reason)
                break
            if envelope is None:  # (text that is no message of the page's: skipped)
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                keys = tab.admit(data)
                if keys is not None:
                    await app.send_bytes(keys.encode("utf-8", "replace"))
                elif (now := asyncio.get_running_loop().time()) - told >= TOLD_EVERY:
                    told = now
                    await self._notice(websocket, tr_in(  # (in the language of the tab's page: its app's)
                        session.lang, "Typing too fast for this playground: keys were dropped (it takes {most} KB "
                        "at once, then {rate} KB a second).", most=BURST >> 10, rate=RATE >> 10))
            elif kind == "resize" and isinstance(data, dict):
                await app.set_terminal_size(data.get("width", 80), data.get("height", 24))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app.blur()
            elif kind == "focus":
                await app.focus()

    @staticmethod
    async def _notice(websocket: web.WebSocketResponse, text: str) -> None:
        """A line the page shows over the terminal for a while (not the app's)."""
        try:
            await websocket.send_str(json.dumps(["playground_notice", {"text": text}]))
        except (ConnectionError, RuntimeError):
            pass

    async def _attach(self, session: TabSession, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        if session.expiry is not None:
            session.expiry.cancel()
            session.expiry = None
        previous, session.websocket = session.websocket, websocket
        if previous is not None:
            await previous.close(code=TAKEN)
        if session.app is None:
            await self._start_app(session, width, height)
        else:  # a reload, a reconnect, or a ready app: its screen drawn again for this tab
            await session.app.set_terminal_size(width, height)
            await session.app.send_meta({"type": "repaint"})
            await session.app.send_meta({"type": "tab", "open": True})  # (a class: no longer away)

    def _detach(self, session: TabSession) -> None:
        """The tab's websocket went: the session waits `session_grace` seconds for it (its
        app is told: in a class the teacher's overview marks the learner away)."""
        session.websocket = None
        if self.closing or session.stopping is not None:
            return
        if not session.shown:  # the tab never saw a frame of its app: nobody to come back for it
            self._end(session)
            return
        if session.app is not None and session.app.alive:
            asyncio.ensure_future(self._tell_away(session.app))
        session.expiry = asyncio.get_running_loop().call_later(self.session_grace, self._expired, session)

    async def _watch_memory(self) -> None:
        """Every MEMORY_EVERY seconds: an app past `app_memory` bytes (resident) is ended, and
        its tab told why (TOO_BIG: the page says so)."""
        page = os.sysconf("SC_PAGE_SIZE")
        while True:
            await asyncio.sleep(MEMORY_EVERY)
            for session in list(self.sessions.values()) + (list(self.pool.ready) if self.pool is not None else []):
                process = getattr(session.app, "process", None)
                if process is None or session.stopping is not None or process.returncode is not None:
                    continue
                try:
                    # (procfs: answered from the kernel's memory at once, never a wait on a disk)
                    with open(f"/proc/{process.pid}/statm") as statm:  # noqa: ASYNC230
                        resident = int(statm.read().split()[1]) * page
                except (OSError, ValueError, IndexError):
                    continue
                if resident > self.app_memory:
                    log.warning("a tab's app used %d MB (more than %d MB): it is ended", resident >> 20,
                                self.app_memory >> 20)
                    session.ended_code = TOO_BIG
                    if session.token is None and self.pool is not None:
                        self.pool.discard(session)
                    self._end(session)

    @staticmethod
    async def _tell_away(app: PlaygroundApp) -> None:
        try:
            await app.send_meta({"type": "tab", "open": False})
        except (ConnectionError, RuntimeError):  # the app is ending
            pass

    def _expired(self, session: TabSession) -> None:
        """The session's grace ran out: it ends, and a tab that comes back to it is told so."""
        if session.stopping is None and not self.closing:
            self.codes.expired(session, self.session_grace / 60)
        self._end(session)

    def _end(self, session: TabSession) -> None:
        """The session is over (its grace ran out, or its app ended): stop its app."""
        if session.stopping is not None or self.closing:
            return
        if session.expiry is not None:
            session.expiry.cancel()
            session.expiry = None
        session.stopping = asyncio.ensure_future(self._stop(session))

    async def _stop(self, session: TabSession) -> None:
        try:
            if session.app is not None:
                await session.app.stop()
            await session.close()
        finally:
            shutil.rmtree(session.home, ignore_errors=True)
            self.codes.drop(session)
            if session.token is not None and self.sessions.get(session.token) is session:
                del self.sessions[session.token]
            if self.pool is not None:
                self.pool.discard(session)
                if session.token is not None and not self.closing:
                    self.pool.fill()  # with --max-tabs: a place freed

