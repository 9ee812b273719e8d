"""The zygote's preload list (cli/app_preload.py) is checked against what an app really
imports: an app is started to its first screen in a fresh interpreter (the real command
line, headless, quitting once ready as benchmarks/bench.py has it), and every module it
imported must be one the preload imports too, else every app forked from the zygote
imports it again on its own (~ms of CPU each, for every tab of a class at once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.server, pytest.mark.slow]

DEADLINE = 60

TERMINAL_ONLY = {"textual.drivers.headless_driver", "textual.drivers.linux_driver", "textual.drivers._writer_thread",
                 "textual.pilot", "termios", "tty", "queue", "_queue"}
"""What this probe imports that a served app does not: the drivers of a terminal (and a
headless run), where serve's apps have Textual's web driver (tui/served_driver.py)."""

_APP = """
import atexit, json, sys
atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), flush=True))
from playground.cli.main import main
main({argv!r})
"""

_PRELOAD = """
import json, sys
from playground.cli.app_preload import preload
preload()
print("MODULES " + json.dumps(sorted(sys.modules)), flush=True)
"""


def _modules(code: str, tmp_path, name: str) -> set[str]:
    """The modules a fresh interpreter running `code` had imported when it ended."""
    state = tmp_path / name
    state.mkdir()
    env = {**os.environ, "REDIS_PLAYGROUND_STATE_DIR": str(state),
           "REDIS_PLAYGROUND_BENCH_READY": str(state / "ready")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=DEADLINE)
    line = next((line for line in out.stdout.splitlines() if line.startswith("MODULES ")), None)
    assert line is not None, out.stdout[-2000:] + out.stderr[-2000:]
    return set(json.loads(line[len("MODULES "):]))


def test_the_preload_imports_every_module_an_app_imports_to_its_first_screen(tmp_path):
    app = _modules(_APP.format(argv=["--server", "bundled"]), tmp_path, "app")
    assert "playground.tui.app" in app and "textual.app" in app  # (the probe did start an app)
    preloaded = _modules(_PRELOAD, tmp_path, "preload")
    missing = sorted(app - preloaded - TERMINAL_ONLY)
    assert missing == [], "cli/app_preload.py should import these too: " + ", ".join(missing)
