"""What `repl` imports: the engine it needs and nothing else (issue 46: its start-up is
mostly imports). The command line is parsed with every command's options, but a
command's own modules are imported only once it is chosen (cli/main.py), and the repl's
modules import at their top only what a repl uses. Each check runs in a fresh
interpreter (another test may have imported anything)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = [pytest.mark.server]

NEVER = ("textual", "rich", "redis", "playground.tui", "playground.explore", "playground.gate",
         "playground.classroom", "playground.scenario.model", "playground.scenario.runner",
         "playground.scenario.loader", "playground.engine.why", "playground.cells")
"""Modules no `repl` imports: the TUI and its libraries, the explorer, the lesson gate, the
class, the scenarios (only their client limit, playground.scenario), the why-notes."""

NOT_UNDER_URL = ("playground.server", "playground.server.private", "playground.server.children")
"""... and with --url, nothing of the private servers either."""

_RUN = """
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(b"PING\\nB> ECHO x\\n"))
from playground.cli import main as cli
code = cli.main({argv!r})
names = {names!r}
print(code, sorted(m for m in sys.modules for n in names if m == n or m.startswith(n + ".")), file=sys.stderr)
"""


def _imported(argv: list[str], names) -> tuple[int, list[str]]:
    result = subprocess.run([sys.executable, "-c", _RUN.format(argv=argv, names=tuple(names))],
                            capture_output=True, text=True, timeout=60)
    assert result.stdout == 'PONG\n"x"\n', result.stderr
    code, found = result.stderr.strip().splitlines()[-1].split(" ", 1)
    return int(code), eval(found)


def test_repl_on_a_private_server_imports_nothing_it_does_not_use(server_binary):
    assert _imported(["repl", "--server", server_binary.path], NEVER) == (0, [])


def test_repl_with_url_imports_nothing_of_the_private_servers(private_server):
    url = f"unix://{private_server.socket_path}"
    assert _imported(["repl", "--url", url, "--allow-flush"], NEVER + NOT_UNDER_URL) == (0, [])


def test_the_check_itself_can_fail(server_binary):
    """The private server's repl does import the server package (the check sees imports)."""
    assert _imported(["repl", "--server", server_binary.path], NOT_UNDER_URL)[1][:1] == ["playground.server"]
