"""Textual's web driver, for apps under `serve`, with one more message from serve:
"repaint", sent when a tab re-attaches to its session (a reload, a network drop). The new
page's terminal is blank and Textual only sends what changed, so the app repaints all."""

from __future__ import annotations

from textual.drivers.web_driver import WebDriver


class ServedDriver(WebDriver):
    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "repaint":
            app = self._app
            try:
                app.call_from_thread(app.refresh, repaint=True, layout=True)
            except Exception:  # the app not running (yet, or any more): nothing on screen to repaint
                pass
        else:
            super().on_meta(packet_type, payload)
