"""Under `redis-playground serve` the app runs in a browser tab, and a browser keeps some
keys for itself: Ctrl+T opens a tab, Ctrl+N a window, Ctrl+W closes the page, Ctrl+Q
quits Firefox on Linux (Chrome and Firefox never pass these to a page). Each action bound
to one of them also has a key that reaches the page, and the footer, F1 and the texts
that name a key show that one when served. `serve` marks its apps with REDIS_PLAYGROUND_SERVED=1."""

from __future__ import annotations

import mimetypes
import os
import re
from pathlib import Path

from playground.i18n import tr

ENV = "REDIS_PLAYGROUND_SERVED"
BROWSER_KEYS = {"ctrl+n": "alt+n", "ctrl+t": "alt+t", "ctrl+w": "alt+w", "ctrl+q": "alt+q"}
"""A key the browser keeps -> the key that stands for it under serve."""


def served() -> bool:
    """Whether this app runs under `serve` (in a browser tab)."""
    return os.environ.get(ENV) == "1"


def _shown(key: str) -> str:
    return "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in key.split("+"))


def keys(key: str) -> str:
    """A Binding's keys: served, the key that reaches the page first (the footer shows the
    first), the browser's own kept (a terminal, or a browser in kiosk mode, passes it)."""
    if not served():
        return key
    out: list[str] = []
    for part in key.split(","):
        if part in BROWSER_KEYS:
            out.append(BROWSER_KEYS[part])
        out.append(part)
    return ",".join(out)


def key_display(key: str) -> str | None:
    """A Binding's key_display: served, how the footer names the key that reaches the page."""
    first = keys(key).split(",")[0]
    return _shown(first) if served() and first != key.split(",")[0] else None


_NAMED = re.compile("|".join(re.escape(_shown(k)) for k in BROWSER_KEYS))


def delivered(app, path: Path) -> bool:
    """Served, a file the app wrote (an export, a recording) goes to the learner's browser as
    a download (Textual's deliver_binary; textual-serve hands it to the page) and the app
    says so: True. In a terminal, False: the caller says where the file is."""
    if not served():
        return False
    app.deliver_binary(path, save_filename=path.name, open_method="download",
                       mime_type=mimetypes.guess_type(path.name)[0] or "application/octet-stream")
    app.notify(tr("{name}: sent to your browser as a download", name=path.name))
    return True


def label(text: str) -> str:
    """A text that names keys ("Space/Ctrl+N next"), with the served keys when served."""
    if not served():
        return text
    return _NAMED.sub(lambda m: _shown(BROWSER_KEYS[m.group(0).lower()]), text)
