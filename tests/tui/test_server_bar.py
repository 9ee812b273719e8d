"""The server bar is one line: when what it says is wider than the terminal, it is cut
with an ellipsis, not wrapped onto a second line that the bar's height hides (at 80
columns the private server's socket path disappeared whole, leaving a lone "│")."""

import html
import re

from textual.app import App, ComposeResult

from playground.tui.widgets.server_bar import ServerBar

WHERE = "/tmp/redis-playground-6296-hurcuvf3/redis.sock"


class BarApp(App):
    def compose(self) -> ComposeResult:
        bar = ServerBar()
        bar.label = "Redis 7.0.15 (/usr/bin/redis-server)"
        bar.where = WHERE
        bar.memory = "1.02M"
        bar.clients = 4
        yield bar


def _text(svg: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def test_a_bar_wider_than_the_terminal_is_cut_not_wrapped():
    app = BarApp()
    async with app.run_test(size=(80, 5)) as pilot:
        await pilot.pause()
        text = _text(app.export_screenshot())
    assert "Redis 7.0.15 (/usr/bin/redis-server)  │  /tmp/redis-playground-" in text
    assert "…" in text and "4 connections" not in text
