"""Regenerate the cluster goldens with the real `redis-cli -c --no-raw`.

    python tests/golden/generate_cluster.py

For every server the suite knows and every case in cluster/*.txt: start a private
cluster of three primaries (playground.server.topology), pipe the case into
`redis-cli -c --no-raw -p PORT` of the first node (the password in REDISCLI_AUTH, never
on the command line), and store what it printed in cluster/<flavour>-<version>/<case>.out
with each node's port written as {node-N} (ports are random). Needs redis-cli.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from servers import available_binaries, golden_dir_name  # noqa: E402

from playground.server.topology import Topology  # noqa: E402


def normalise(output: bytes, topology: Topology) -> bytes:
    """Each node's port as {node-N}, so goldens do not depend on the ports of one run."""
    for node in topology.nodes:
        output = output.replace(b"127.0.0.1:%d" % node.port, b"127.0.0.1:{%s}" % node.name.encode())
    return output


def main() -> int:
    cli = shutil.which("redis-cli")
    if not cli:
        print("redis-cli not found (apt-get install redis-tools)", file=sys.stderr)
        return 1
    for binary in available_binaries():
        out_dir = HERE / "cluster" / golden_dir_name(binary)
        out_dir.mkdir(parents=True, exist_ok=True)
        for case in sorted((HERE / "cluster").glob("*.txt")):
            with Topology(binary, "cluster", 0) as topology:
                env = dict(os.environ, REDISCLI_AUTH=topology.password)
                args = [cli, "-c", "--no-raw", "-p", str(topology.nodes[0].port)]
                result = subprocess.run(args, stdin=case.open("rb"), capture_output=True, timeout=30, env=env)
                out = normalise(result.stdout, topology)
            name = case.name.removesuffix(".txt") + ".out"
            (out_dir / name).write_bytes(out)
            print(f"cluster/{out_dir.name}/{name}: {len(out)} bytes, exit {result.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
