"""The pipeline and the explorer use the public methods of Session, Executor and Runner,
never their private fields (`runner._pending`, `session._conn` ...): issue 23's hygiene."""

import ast
from pathlib import Path

import pytest

import playground

SRC = Path(playground.__file__).parent
CHECKED = sorted(str(p.relative_to(SRC)) for p in (SRC / "explore").glob("*.py")) + ["engine/pipeline.py"]


def foreign_private(path: Path) -> list[str]:
    """`x._name` where x is not self or cls (a module's own `_helpers` are fine)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return found


@pytest.mark.parametrize("module", CHECKED)
def test_no_private_field_of_another_object(module):
    assert foreign_private(SRC / module) == []


def test_the_check_finds_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(runner):\n    return runner._pending, self.runner._pending, self._own\n")
    assert foreign_private(bad) == ["bad.py:2: ._pending", "bad.py:2: ._pending"]


def test_pipeline_and_executor_import_each_other_at_top_level_only():
    """The executor<->pipeline cycle is broken (the Job lives in engine/job.py): no import
    deferred into a function between the two."""
    for name, other in (("pipeline", "playground.engine.executor"), ("executor", "playground.engine.pipeline")):
        tree = ast.parse((SRC / "engine" / f"{name}.py").read_text())
        deferred = [n.module for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    for n in ast.walk(f) if isinstance(n, ast.ImportFrom)]
        assert other not in deferred, name
