"""No asyncio.wait_for in the package: `async with asyncio.timeout(t)` around the await
instead. In Python 3.11 (CI's) wait_for swallows a cancel of the calling task that comes
the turn its awaitable completes: it hands back the awaitable's result, and the cancelled
task goes on. That made CI hang: settle's cancelled observer refresh went on from a
connect, sent its handshake behind CLIENT PAUSE ALL and waited 600 s (the settled-line
test timed out; resp/connection.py, commit 793bbfa). asyncio.timeout lets the cancel
through; 3.12's wait_for is built on it, 3.11's is not. The gate's own `wait_for`
(gate/endpoint.py) is another method and is not looked at."""

from __future__ import annotations

import re
from pathlib import Path

import playground

SRC = Path(playground.__file__).parent

# a call of asyncio's, or its name imported on its own
_WAIT_FOR = re.compile(r"\basyncio\.wait_for\(|^\s*from asyncio import .*\bwait_for\b")


def wait_fors(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{number}" for path in sorted(root.rglob("*.py"))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if _WAIT_FOR.search(line)]


def test_no_module_waits_with_asyncio_wait_for():
    assert wait_fors(SRC) == []


def test_the_check_finds_one(tmp_path):
    """Both spellings; not the gate's method, nor asyncio.timeout."""
    (tmp_path / "bad.py").write_text(
        "import asyncio\n"
        "from asyncio import sleep, wait_for\n"
        "async def f(gate, aw):\n"
        "    await asyncio.wait_for(aw, 1)\n"
        "    await gate.wait_for(lambda: True, 1)\n"
        "    async with asyncio.timeout(1):\n"
        "        await aw\n", encoding="utf-8")
    assert wait_fors(tmp_path) == ["bad.py:2", "bad.py:4"]
