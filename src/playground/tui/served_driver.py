"""Textual's web driver, for apps under `serve`, with one more message from serve:
"repaint", sent when a tab attaches to an app that has already drawn (a reload, a network
drop, or a ready app started before its tab: cli/ready_pool.py). The new page's terminal
is blank and in its default modes, and Textual only sends what changed, so the app sets
the terminal's modes again (as the driver did at its start) and repaints all."""

from __future__ import annotations

from textual.drivers.web_driver import WebDriver

# what WebDriver.start_application_mode sets: the alternate screen, mouse reports (press,
# any motion, SGR coordinates), no cursor, bracketed paste
MODES = "\x1b[?1049h\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?25l\x1b[?2004h"


class ServedDriver(WebDriver):
    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "repaint":
            app = self._app
            try:
                app.call_from_thread(self.repaint_all)
            except Exception:  # the app not running (yet, or any more): nothing on screen to repaint
                pass
        else:
            super().on_meta(packet_type, payload)

    def repaint_all(self) -> None:  # on the app's thread, as every write of the app's
        self.write(MODES)
        self._app.refresh(repaint=True, layout=True)
