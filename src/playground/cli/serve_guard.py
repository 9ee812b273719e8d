"""What serve lets in from a browser: websockets from its own page only, and terminal sizes
a screen can have.

Origin: a browser sends the page's origin with every websocket it opens, and a page from
elsewhere (any site a learner visits) could otherwise open sessions on the learner's serve,
fill --max-tabs or join the class. A websocket whose Origin is not serve's own host:port is
refused (403). One without an Origin header does not come from a browser (a program, which
could send any Origin it likes): it is let in, as refusing it would protect nothing.

Size: the tab says its terminal's size in the URL and in resize messages; 5000×3000 cells
are hundreds of megabytes in the app, and the ready apps start at the last tab's size. A
size is clamped to MAX_SIZE (and at least MIN_SIZE)."""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_SIZE = (500, 200)  # columns, rows: more than a 4K screen at a small font
MIN_SIZE = (10, 5)
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def terminal_size(width, height) -> tuple[int, int]:
    """A size a tab asked for (numbers, or anything a message may hold), clamped."""
    def cells(value, default: int, low: int, high: int) -> int:
        try:
            number = int(float(value))
        except (TypeError, ValueError, OverflowError):
            number = default
        return max(low, min(high, number))

    return (cells(width, 80, MIN_SIZE[0], MAX_SIZE[0]), cells(height, 24, MIN_SIZE[1], MAX_SIZE[1]))


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a websocket's Origin header is the page's own: the host:port its Host header
    names (no Origin: not a browser, let in; "null" or anything unparsable: refused)."""
    if origin is None:
        return True
    try:
        page = urlsplit(origin)
        default = DEFAULT_PORTS.get(page.scheme)
        asked = urlsplit(f"{page.scheme}://{host}") if host else None
        ports = (page.port or default, asked.port or default) if asked is not None else None
    except ValueError:  # (a port that is no number, or out of range)
        return False
    if default is None or asked is None or not page.hostname or not asked.hostname:
        return False
    return page.hostname == asked.hostname and ports[0] == ports[1]
