"""Whether Node.js programs with ioredis can run here, for tests in any folder: CI installs
ioredis beside the bundled lessons (`npm ci --prefix scenarios`); no test installs anything."""

from __future__ import annotations

import shutil
import subprocess

from playground.scenario.library import bundled_dir


def ioredis_missing() -> str | None:
    """Why node cannot require ioredis from the bundled lessons' folder, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    done = subprocess.run(["node", "-e", "require.resolve('ioredis')"], cwd=bundled_dir(),
                          capture_output=True, timeout=30)
    return "ioredis is not installed where node finds it (npm install ioredis, or NODE_PATH)" \
        if done.returncode else None
