"""No module reaches into another object's private members: not our own objects' (the
pipeline and the explorer use the public methods of Session, Executor and Runner, never
`runner._pending`, `session._conn`: issue 23), and not other libraries' (asyncio's
StreamReader internals, textual-serve's `_task`, Textual's `_app`: issue 37). The whole
package is checked; the few exceptions are listed in ALLOWED with the reason for each.
The source is parsed in a fresh interpreter (Python 3.11's ast.parse can fail with
"recursion depth mismatch" late in a long test session)."""

import json
import subprocess
import sys
from pathlib import Path


import playground

SRC = Path(playground.__file__).parent

# (module, member) -> why it is not a private member after all, or why it has to be used
ALLOWED = {
    ("*", "_exit"): "os._exit: documented (the way out of a forked child, or past stuck threads)",
    ("*", "_replace"): "namedtuple's documented method (a SplitResult, a command's tuple)",
    ("gate/warm_python.py", "_run_exitfuncs"): "atexit has no public way to run its handlers before the "
                                               "interpreter's ending: a forked program's way there (SystemExit "
                                               "up to Py_FinalizeEx) costs ~0.6 ms of copied pages a program, "
                                               "where the atexit handlers are all that must run",
    ("gate/warm_python.py", "_ncallbacks"): "atexit has no public way to ask whether a handler was registered: "
                                            "a kept child (_run_again) must end, not run a program again, after "
                                            "a run registered one (it would never run)",
    ("cli/main.py", "_split_lines"): "argparse.HelpFormatter has no public hook for wrapping: the stdlib's own "
                                     "RawTextHelpFormatter overrides this method the same way (Chinese help is "
                                     "wrapped by terminal cells)",
    ("cli/main.py", "_fill_text"): "the same, for descriptions (RawDescriptionHelpFormatter overrides it too)",
}

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

def _private(name):
    return name.startswith("_") and not name.startswith("__")

def _own(node):
    return isinstance(node, ast.Name) and node.id in ("self", "cls")

def privates_in_tree(root):
    """Every private member used in the package that is not its holder's own: `x._name`
    and getattr(x, "_name") with x not self/cls; and `self._name` where the package binds
    `_name` nowhere (a private of a library's base class: Textual's, textual-serve's)."""
    import pathlib
    bound, own_uses, found = set(), [], []
    for path in sorted(pathlib.Path(root).rglob("*.py")):
        where = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bound.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if not _own(node.value):
                    found.append([where, node.lineno, node.attr])
                elif isinstance(node.ctx, ast.Load):
                    own_uses.append([where, node.lineno, node.attr])
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                    and _private(node.args[1].value)):
                if _own(node.args[0]):
                    bound.add(node.args[1].value)
                else:
                    found.append([where, node.lineno, node.args[1].value])
    return found + [use for use in own_uses if use[2] not in bound]

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


def allowed(module: str, member: str) -> bool:
    return (module, member) in ALLOWED or ("*", member) in ALLOWED


def test_no_module_uses_a_private_member_of_another_object_or_library():
    found = [f"{module}:{line}: .{member}" for module, line, member in scan("privates_in_tree", SRC)
             if not allowed(module, member)]
    assert found == []


def test_every_exception_is_still_needed():
    """An entry of ALLOWED that nothing uses any more goes (a stale exception would let a
    new use through unseen)."""
    used = {(module, member) for module, _, member in scan("privates_in_tree", SRC)}
    for module, member in ALLOWED:
        assert any(m == member and module in ("*", m_module) for m_module, m in used), (module, member)


def test_the_check_finds_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(runner):\n    return runner._pending, self.runner._pending, self._own\n")
    assert scan("foreign_private", bad) == ["bad.py:2: ._pending", "bad.py:2: ._pending"]


def test_the_tree_check_finds_each_kind(tmp_path):
    """Another object's private member, by attribute or by getattr, and a private member of
    a library's base class (bound nowhere in the package); not an object's own."""
    (tmp_path / "bad.py").write_text(
        "class Driver(WebDriver):\n"
        "    def __init__(self, reader):\n"
        "        self._mine = getattr(self, '_lazy', None)\n"
        "        self._lazy = 1\n"
        "    def poke(self, reader):\n"
        "        return reader._buffer, getattr(reader, '_waiter'), self._app, self._mine\n")
    assert scan("privates_in_tree", tmp_path) == [["bad.py", 6, "_buffer"], ["bad.py", 6, "_waiter"],
                                                  ["bad.py", 6, "_app"]]


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
