"""Regenerate the golden outputs with the real `redis-cli --no-raw`.

    python tests/golden/generate.py [CASE ...]

For every server the suite knows (tests/servers.py) and every case in cases/, start a
fresh private server, pipe the case into redis-cli and store what it printed in
<flavour>-<version>/<case>.out. Words in a case's name add options (`cli_options`):
`.resp3` is `-3`, `.show-pushes` is `--show-pushes yes`, `.xterm` runs it with
TERM=xterm (redis-cli colours its Lua debugger's lines then); `.prefixed` marks a case
whose lines name their client (`B> GET k`, on keys only, nothing a connection keeps): one
redis-cli gets the lines without the prefixes, and two clients must print the same (the
repl overlaps their lines where they commute, engine/commuting.py); `.clients` marks a case
whose lines name their client and depend on the order between them: one redis-cli per
client, fed a line at a time in input order (golden/cli_driver.py says when a line has
settled); `.listens` marks a case that ends in SUBSCRIBE or MONITOR, where redis-cli never
exits: it is stopped after LISTEN_SECONDS and what it printed by then is the golden. Needs
redis-cli (Debian: redis-tools). "(N.NNs)" lines hold times: the tests compare them as
"(N.NNs)" (timing_lines.py's `timing_masked`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from golden.cli_driver import run_clients  # noqa: E402
from servers import available_binaries, golden_dir_name  # noqa: E402

from playground.server import PrivateServer  # noqa: E402

LISTEN_SECONDS = 3.0




def cli_options(case_name: str) -> list[str]:
    """redis-cli's options for a case, from the words in its file name."""
    words = case_name.split(".")[1:]
    return (["-3"] if "resp3" in words else []) + (["--show-pushes", "yes"] if "show-pushes" in words else [])


def run_case(cli: str, server: PrivateServer, case: Path) -> tuple[bytes, object]:
    """(what redis-cli printed for the case, how it ended)."""
    args = [cli, "-s", server.socket_path, "--no-raw", *cli_options(case.name)]
    listens = ".listens." in case.name
    env = {**os.environ, "TERM": "xterm" if ".xterm." in case.name else "dumb"}
    text = case.read_bytes()
    if ".prefixed." in case.name:
        text = re.sub(rb"(?m)^[A-Za-z]+> ", b"", text)
    if ".clients." in case.name:
        admin = server.admin_address
        stdout, cancelled = run_clients(cli, server.socket_path, {
            "unix_socket_path": admin.path, "username": admin.username, "password": admin.password},
            text, cli_options(case.name), env)
        return stdout, f"cancelled {', '.join(cancelled)}" if cancelled else 0
    try:
        result = subprocess.run(args, input=text, capture_output=True, env=env,
                                timeout=LISTEN_SECONDS if listens else 30)
        return result.stdout, result.returncode
    except subprocess.TimeoutExpired as exc:
        if not listens:
            raise
        return exc.stdout or b"", "none (still listening, stopped)"


def main() -> int:
    cli = shutil.which("redis-cli")
    if not cli:
        print("redis-cli not found (apt-get install redis-tools)", file=sys.stderr)
        return 1
    for binary in available_binaries():
        out_dir = HERE / golden_dir_name(binary)
        out_dir.mkdir(exist_ok=True)
        for case in sorted((HERE / "cases").glob("*.txt")):
            if sys.argv[1:] and case.name.split(".")[0] not in sys.argv[1:]:
                continue  # only the cases named
            with PrivateServer(binary) as server:
                stdout, code = run_case(cli, server, case)
            name = case.name.removesuffix(".txt") + ".out"
            (out_dir / name).write_bytes(stdout)
            print(f"{out_dir.name}/{name}: {len(stdout)} bytes, exit {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
