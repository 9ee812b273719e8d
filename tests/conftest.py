"""Fixtures: every server-dependent test runs once per real server we have.

The bundled Valkey always; Debian's redis-server when it is installed. `a` and `b` are
clients A and B of one playground on a private server in the state it started in, in
the spirit of redis-py's `r` and `r2` fixtures. One server per binary serves the session
and is reset before each test that asks for it (servers.py); `@pytest.mark.fresh_server`
gives a test a process of its own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from servers import SHARED, available_binaries, golden_dir_name  # noqa: E402

from playground.engine.playground import Playground  # noqa: E402
from playground.server import PrivateServer  # noqa: E402

BINARIES = available_binaries()
_HAS_BUNDLED = any(b.origin == "bundled" for b in BINARIES)  # (else the fast tier runs the one server there is)

pytest_plugins = ["pilot", "browser", "class_app", "gate_steps"]
"""Helper modules with fixtures of their own (serve and chromium, a class's Redis, the gate, quick autoplay)."""


@pytest.fixture(autouse=True)
def private_state_dir(tmp_path, monkeypatch):
    """Pane histories go to a temp dir, never to the developer's own state dir."""
    monkeypatch.setenv("REDIS_PLAYGROUND_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


@pytest.fixture(autouse=True)
def export_dir(tmp_path, monkeypatch):
    """Exports (transcripts, screenshots, timelines) to a temp dir, never the checkout (the
    app's default is the current directory)."""
    monkeypatch.setenv("REDIS_PLAYGROUND_EXPORT_DIR", str(tmp_path / "exports"))
    return tmp_path / "exports"


@pytest.fixture(autouse=True)
def english_interface():
    """Every test starts with the interface in English: a command run in-process with
    --lang zh (cli.main) sets the process's language, and it must not leak into the next test."""
    from playground.i18n import set_language

    set_language("en")
    yield
    set_language("en")


def pytest_report_header(config):
    return "servers: " + ", ".join(b.label for b in BINARIES)


@pytest.fixture(params=BINARIES, ids=[golden_dir_name(b) for b in BINARIES])
def server_binary(request):
    return request.param


@pytest.fixture(scope="session", autouse=True)
def _shared_servers():
    yield SHARED
    SHARED.shutdown()


@pytest.fixture(autouse=True)
def _next_test():
    """A shared server asked for in this test is reset first (servers.SharedServers.get)."""
    SHARED.next_test()


@pytest.fixture
def private_server(server_binary, request):
    """The shared server of this binary, reset; a new process for `fresh_server` tests."""
    if request.node.get_closest_marker("fresh_server") is None:
        yield SHARED.get(server_binary)
        return
    server = PrivateServer(server_binary).start()
    yield server
    server.stop()


@pytest_asyncio.fixture
async def pg(private_server):
    playground = Playground(server=private_server)
    await playground.start()
    yield playground
    await playground.close()


@pytest.fixture
def a(pg):
    return pg.session("A")


@pytest.fixture
def b(pg):
    return pg.session("B")


_SERVER_FIXTURES = frozenset(("server_binary", "private_server", "pg", "a", "b"))
_drives_app: dict[str, bool] = {}


def _module_drives_app(path: Path) -> bool:
    """A test module that runs the Textual app (Pilot or snapshots)."""
    key = str(path)
    if key not in _drives_app:
        text = path.read_text(encoding="utf-8")
        _drives_app[key] = "run_test(" in text or "snap_compare" in text
    return _drives_app[key]


def pytest_collection_modifyitems(config, items):
    """The markers that follow from what a test uses: `server` (a real server, through
    the fixtures), `browser` (chromium), `tui` (a test module that drives the app); and
    `slow` on a server test's run on a server other than the bundled one: the fast tier
    runs each server test once, on the bundled Valkey, the whole suite on every server."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & _SERVER_FIXTURES:
            item.add_marker(pytest.mark.server)
        callspec = getattr(item, "callspec", None)
        binary = callspec.params.get("server_binary") if callspec is not None else None
        if binary is not None and binary.origin != "bundled" and _HAS_BUNDLED:
            item.add_marker(pytest.mark.slow)
        if "chromium" in names:
            item.add_marker(pytest.mark.browser)
        if item.path.parent.name == "tui" or _module_drives_app(item.path):
            item.add_marker(pytest.mark.tui)


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: two workers a core (4 on the 2-core CI machine): many tests wait on a
    server, a subprocess or a clock rather than compute (with 3 workers the whole suite kept
    1.2 of the 2 cores busy on average)."""
    return 2 * (os.cpu_count() or 1)
