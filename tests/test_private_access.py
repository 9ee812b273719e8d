"""The pipeline and the explorer use the public methods of Session, Executor and Runner,
never their private fields (`runner._pending`, `session._conn` ...): issue 23's hygiene.
The source is parsed in a fresh interpreter (Python 3.11's ast.parse can fail with
"recursion depth mismatch" late in a long test session)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import playground

SRC = Path(playground.__file__).parent
CHECKED = sorted(str(p.relative_to(SRC)) for p in (SRC / "explore").glob("*.py")) + ["engine/pipeline.py"]

_SCAN = r'''
import ast, json, sys

def foreign_private(path):
    """`x._name` where x is not self or cls (a module's own `_helpers` are fine)."""
    found = []
    for node in ast.walk(ast.parse(open(path).read())):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.rpartition('/')[2]}:{node.lineno}: .{node.attr}")
    return found

def deferred_imports(path):
    tree = ast.parse(open(path).read())
    return [n.module for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f) if isinstance(n, ast.ImportFrom)]

def imported_modules(path):
    return [n.module for n in ast.walk(ast.parse(open(path).read())) if isinstance(n, ast.ImportFrom)]

print(json.dumps(globals()[sys.argv[1]](sys.argv[2])))
'''


def scan(check: str, path: Path):
    result = subprocess.run([sys.executable, "-c", _SCAN, check, str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("module", CHECKED)
def test_no_private_field_of_another_object(module):
    assert scan("foreign_private", SRC / module) == []


def test_the_check_finds_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(runner):\n    return runner._pending, self.runner._pending, self._own\n")
    assert scan("foreign_private", bad) == ["bad.py:2: ._pending", "bad.py:2: ._pending"]


def test_pipeline_and_executor_import_each_other_at_top_level_only():
    """The executor<->pipeline cycle is broken (the Job lives in engine/job.py): no import
    deferred into a function between the two."""
    assert "playground.engine.executor" not in scan("deferred_imports", SRC / "engine" / "pipeline.py")
    assert "playground.engine.pipeline" not in scan("deferred_imports", SRC / "engine" / "executor.py")


def test_web_server_does_not_import_serve_command():
    """serve_command imports web_server when serving (textual-serve is an extra); web_server
    keeps what it needs itself, so the two do not import each other."""
    path = SRC / "cli" / "web_server.py"
    imports = scan("imported_modules", path)
    assert "playground.cli.serve_command" not in imports


def test_the_scenario_model_does_not_reach_for_its_loader():
    """The loader imports the model; the model no longer hands out the loader's names
    through a module __getattr__ (every caller imports them from scenario.loader)."""
    assert "playground.scenario" not in scan("deferred_imports", SRC / "scenario" / "model.py")
    assert "__getattr__" not in (SRC / "scenario" / "model.py").read_text()


def test_the_pipeline_asks_the_catalogue_which_commands_block_or_run_scripts():
    """No second list of blocking or script commands in the pipeline: they come from the
    catalogue (a command added there is never pipelined)."""
    from playground.engine.catalogue import BLOCK_TIMEOUT_AT, SCRIPT_COMMANDS
    from playground.engine.pipeline import pipelinable

    text = (SRC / "engine" / "pipeline.py").read_text()
    assert "blpop" not in text and "evalsha" not in text
    assert not any(pipelinable([name]) for name in [*BLOCK_TIMEOUT_AT, *SCRIPT_COMMANDS, b"xread"])
