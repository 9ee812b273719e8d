"""The engine and the headless commands never import Textual (each module is imported
in a fresh interpreter and sys.modules is checked), as harlequin's import hygiene test does."""

import pkgutil
import subprocess
import sys

import pytest

import playground

ENGINE_MODULES = sorted(
    m.name for m in pkgutil.walk_packages(playground.__path__, "playground.")
    # the TUI package; the entry point runs main()
    if not m.name.startswith("playground.tui") and m.name != "playground.__main__"
) + ["playground"]


def test_every_layer_is_checked():
    """walk_packages finds the subpackages' modules (a broken walk would check nothing)."""
    for module in ("playground.engine.session", "playground.resp.connection", "playground.cli.repl",
                   "playground.scenario.runner", "playground.server.private"):
        assert module in ENGINE_MODULES


def _imports_textual(code: str) -> bool:
    result = subprocess.run(
        [sys.executable, "-c",
         code + "\nimport sys\nprint(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1] == "True"


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_engine_module_does_not_import_textual(module):
    assert not _imports_textual(f"import {module}")


def test_repl_command_does_not_import_textual():
    code = ("import io, sys\nfrom playground.cli import main as cli\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(b'PING\\n'))\n"
            "rc = cli.main(['repl', '--server', 'bundled'])\nassert rc == 0, rc")
    assert not _imports_textual(code)


def test_the_check_itself_can_fail():
    assert _imports_textual("import textual.app")


def test_check_command_does_not_import_textual():
    code = ("from playground.cli import main as cli\n"
            "rc = cli.main(['check', '--server', 'bundled', 'incr-is-atomic'])\nassert rc == 0, rc")
    assert not _imports_textual(code)


def _imported(code: str, package: str) -> bool:
    result = subprocess.run(
        [sys.executable, "-c", code + f"\nimport sys\nprint(any(m == {package!r} or m.startswith({package!r} + '.') "
                                      "for m in sys.modules))"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1] == "True"


def test_the_app_and_the_commands_do_not_import_redis_py():
    """redis-py is only the benchmarks' baseline: importing it cost ~50 ms of every start."""
    app = ("import playground.tui.app, playground.cli.main, playground.cli.scenario_commands, "
           "playground.engine.playground")
    run = ("from playground.cli import main as cli\n"
           "rc = cli.main(['check', '--server', 'bundled', 'watch-abort'])\nassert rc == 0, rc")
    assert not _imported(app, "redis") and not _imported(run, "redis")
    assert _imported("import redis.asyncio", "redis")  # the check itself can fail


_SCAN = """
import ast, importlib.metadata, json, re, sys, tomllib
from pathlib import Path
import playground
src = Path(playground.__file__).parent
project = tomllib.loads((src.parents[1] / "pyproject.toml").read_text())["project"]
declared = {re.split(r"[<>=!~\\[ ;]", req, maxsplit=1)[0].lower().replace("_", "-")
            for req in project["dependencies"] + sum(project["optional-dependencies"].values(), [])}
owners = importlib.metadata.packages_distributions()
imported = set()
for path in src.rglob("*.py"):
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
        imported.update(name.partition(".")[0] for name in names)
third_party = imported - set(sys.stdlib_module_names) - {"playground"}
print(json.dumps(sorted(m for m in third_party
                        if not {d.lower().replace("_", "-") for d in owners.get(m, [m])} & declared)))
"""


def test_every_package_imported_directly_is_declared():
    """A package the source imports itself is declared in pyproject.toml (a dependency or
    an extra's), not only there because another package needs it (rich via textual,
    aiohttp via textual-serve). (Scanned in a fresh interpreter, as the checks above.)"""
    import json

    result = subprocess.run([sys.executable, "-c", _SCAN], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
