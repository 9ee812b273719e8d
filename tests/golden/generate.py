"""Regenerate the golden outputs with the real `redis-cli --no-raw`.

    python tests/golden/generate.py

For every server the suite knows (tests/servers.py) and every case in cases/, start a
fresh private server, pipe the case into redis-cli (`-3` for `*.resp3.txt`) and store
what it printed in <flavour>-<version>/<case>.out. Needs redis-cli (Debian: redis-tools).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from servers import available_binaries, golden_dir_name  # noqa: E402

from playground.server import PrivateServer  # noqa: E402


def main() -> int:
    cli = shutil.which("redis-cli")
    if not cli:
        print("redis-cli not found (apt-get install redis-tools)", file=sys.stderr)
        return 1
    for binary in available_binaries():
        out_dir = HERE / golden_dir_name(binary)
        out_dir.mkdir(exist_ok=True)
        for case in sorted((HERE / "cases").glob("*.txt")):
            with PrivateServer(binary) as server:
                args = [cli, "-s", server.socket_path, "--no-raw"]
                if case.name.endswith(".resp3.txt"):
                    args.append("-3")
                result = subprocess.run(args, stdin=case.open("rb"), capture_output=True, timeout=30)
            name = case.name.removesuffix(".txt") + ".out"
            (out_dir / name).write_bytes(result.stdout)
            print(f"{out_dir.name}/{name}: {len(result.stdout)} bytes, exit {result.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
