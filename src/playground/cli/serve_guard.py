"""What serve lets in from a browser: requests to the names it serves as, websockets from
its own page only, well-formed messages, and terminal sizes a screen can have.

Host: a request's Host header must name this serve: 127.0.0.1, localhost, [::1], the
--host it listens on, a --public-name given for a proxy in front of it, or (listening on
every address, --host 0.0.0.0) the very address the request came in on. Anything else is
refused (403): a page whose DNS name rebinds to 127.0.0.1 (DNS rebinding) sends its own
name as the Host, and would otherwise be same-origin with serve.

Origin: a browser sends the page's origin with every websocket it opens, and a page from
elsewhere (any site a learner visits) could otherwise open sessions on the learner's serve,
fill --max-tabs or join the class. A websocket whose Origin is not serve's own host:port is
refused (403). One without an Origin header does not come from a browser (a program, which
could send any Origin it likes): it is let in, as refusing it would protect nothing.

Size: the tab says its terminal's size in the URL and in resize messages; 5000×3000 cells
are hundreds of megabytes in the app, and the ready apps start at the last tab's size. A
size is clamped to MAX_SIZE (and at least MIN_SIZE).

Messages: a tab's page sends JSON arrays a few levels deep (["stdin", "…"], ["resize",
{…}]); `message` reads one. Text that is no such message is skipped; a binary frame, or
JSON nested deeper than MAX_DEPTH, is said with a close code (serve closes the websocket
with it), never a traceback."""

from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

MAX_SIZE = (500, 200)  # columns, rows: more than a 4K screen at a small font
MIN_SIZE = (10, 5)
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
MAX_DEPTH = 4  # [kind, {field: value}] is 2 deep; anything past this is not the page's
NOT_TEXT, NOT_JSON = 1003, 1007  # websocket close codes: unsupported data; invalid payload (RFC 6455)


def host_names(host: str, public: tuple[str, ...] = ()) -> frozenset[str]:
    """The names a Host header may give for a serve listening on `host` (lower case, no
    port, no brackets): the loopback names, `host` itself unless it is every address, and
    the public names given for a proxy.

    Args:
        host: the address serve listens on (--host).
        public: names a reverse proxy serves it as (--public-name).
    """
    names = {*LOOPBACK_NAMES, *(name.lower().strip("[]") for name in public if name)}
    if host.strip("[]") not in WILDCARDS:
        names.add(host.lower().strip("[]"))
    return frozenset(names)


def host_allowed(host_header: str | None, names: frozenset[str], local_address: str | None = None) -> bool:
    """Whether a request's Host header names this serve (the module's note).

    Args:
        host_header: the Host header (host[:port]).
        names: host_names().
        local_address: the address the connection came in on (an IP literal Host equal to
            it is this serve, as a lab reaches it when it listens on every address).
    """
    if not host_header:
        return False
    try:
        name = urlsplit(f"http://{host_header}").hostname
    except ValueError:
        return False
    if not name:
        return False
    if name in names:
        return True
    if local_address is None:
        return False
    try:
        return ipaddress.ip_address(name) == ipaddress.ip_address(local_address.split("%")[0])
    except ValueError:
        return False


def _depth(text: str) -> int:
    """How deeply `text`'s brackets nest (strings skipped): checked before json.loads, which
    recurses and raises RecursionError on deep enough nesting."""
    depth = most = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > most:
                most = depth
                if most > MAX_DEPTH:
                    return most
        elif char in "]}":
            depth -= 1
    return most


def message(data: object) -> tuple[list | None, int]:
    """A tab's message read: (the JSON array, 0); (None, 0) for text that is no message of
    the page's (not JSON, not an array of a kind and its data: skipped); or (None, the
    websocket close code that says what is wrong): NOT_TEXT for a binary frame, NOT_JSON for
    JSON nested deeper than MAX_DEPTH (json.loads would recurse until RecursionError).

    Args:
        data: the frame's data (str for a text frame).
    """
    if not isinstance(data, str):
        return None, NOT_TEXT
    if data.count("[") + data.count("{") > MAX_DEPTH and _depth(data) > MAX_DEPTH:  # (counted in C first)
        return None, NOT_JSON
    try:
        envelope = json.loads(data)
    except (ValueError, RecursionError):
        return None, 0
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return None, 0
    return envelope, 0


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
    return ports is not None and page.hostname == asked.hostname and ports[0] == ports[1]
