"""Textual's web driver, for apps under `serve`, with two more messages from serve:
"repaint", sent when a tab attaches to an app that has already drawn (a reload, a network
drop, or a ready app started before its tab: cli/ready_pool.py). The new page's terminal
is blank and in its default modes, and Textual only sends what changed, so the app sets
the terminal's modes again (as the driver did at its start) and repaints all. And "tab"
({"open": true or false}): the app's tab came or went (the app calls its `tab_shown`). And
"language" ({"lang": "zh"}): a new session's tab showed that language last (a Restart after
F12): the app shows it (its `show_language`).
And one more to serve: "language" ({"lang": "zh"}), the language the app shows, said as
it starts and at every switch (F12): serve tells the tab's page, whose own texts follow
(cli/web_server.py)."""

from __future__ import annotations

import os
from collections.abc import Callable

from textual.drivers.web_driver import WebDriver

from playground.i18n import current_language, on_switch

# what WebDriver.start_application_mode sets: the alternate screen, mouse reports (press,
# any motion, SGR coordinates), no cursor, bracketed paste
MODES = "\x1b[?1049h\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?25l\x1b[?2004h"


class ServedDriver(WebDriver):
    """Textual's web driver, for an app under `serve` (see the module's docstring)."""

    shown_size: tuple | None = None  # the terminal's size as last told ("resize"), else as started

    def __init__(self, app, **kwargs) -> None:
        super().__init__(app, **kwargs)
        self.served_app = app  # (the driver's own is private to Textual)
        self.unlisten: Callable[[], None] | None = None  # its listening to the language's switches

    def start_application_mode(self) -> None:
        super().start_application_mode()
        self.tell_language(current_language())
        self.unlisten = on_switch(self.tell_language)

    def stop_application_mode(self) -> None:
        if self.unlisten is not None:
            self.unlisten()
        super().stop_application_mode()

    def tell_language(self, lang: str) -> None:
        """serve hears the language the app shows (on the app's thread, as every write of the app's)."""
        self.write_meta({"type": "language", "lang": lang})

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "resize":  # the page says its size when it opens: mostly the size the app has
            size = (payload.get("width"), payload.get("height"))
            if size == (self.shown_size or _started_size()):
                return  # no change: not a layout pass and a frame for nothing
            self.shown_size = size
            super().on_meta(packet_type, payload)
        elif packet_type == "tab":  # serve: the app's tab closed or came back (a class shows who is away)
            self._on_app_thread(self.served_app.tab_shown, bool(payload.get("open")))
        elif packet_type == "language":  # serve: a new session for a tab that showed this language
            self._on_app_thread(self.served_app.show_language, str(payload.get("lang")))
        elif packet_type == "repaint":
            self._on_app_thread(self.repaint_all)
        else:
            super().on_meta(packet_type, payload)

    def _on_app_thread(self, callback, *args) -> None:
        """`callback(*args)` on the app's thread; nothing when the app is not running (yet,
        or any more: nothing on screen to change)."""
        try:
            self.served_app.call_from_thread(callback, *args)
        except Exception:  # (call_from_thread's, for an app not running)
            pass

    def repaint_all(self) -> None:  # on the app's thread, as every write of the app's
        self.write(MODES)
        self.served_app.refresh(repaint=True, layout=True)


def _started_size() -> tuple | None:
    """The size WebDriver starts at (serve gives it in the environment)."""
    try:
        return int(os.environ.get("COLUMNS", 80)), int(os.environ.get("ROWS", 24))
    except ValueError:
        return None
