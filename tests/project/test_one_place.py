"""Issue 37's "one fact in one place", kept: the source holds no second copy of a fact the
engine keeps once. Each scan looks for how a copy is spelt (a lower-case command name
compared against), so a command the program sends (`[b"PSUBSCRIBE", ...]`) is no copy."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import playground
from playground import topology_kinds

SRC = Path(playground.__file__).parent


def _holders(pattern: str) -> set[str]:
    found = re.compile(pattern)
    return {str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if found.search(p.read_text(encoding="utf-8"))}


def test_the_subscribe_family_is_named_only_in_the_catalogue():
    """SUBSCRIBE and kin (which enter, leave, are answered a frame a channel): the
    catalogue's SUBSCRIBES, UNSUBSCRIBES, SUBSCRIBE_FAMILY; the gate, the session, the
    line run, the pipeline, repl and the setup rules ask it."""
    assert _holders(r'b"[ps]?(un)?subscribe"') == {"engine/catalogue.py"}


def test_only_the_engine_follows_multi():
    """Whether a client is inside MULTI, and what its lines are to the transaction, is
    engine/units.py's (`UnitTracker`, `transaction_roles`): the explorer's footprints and
    witnesses and the scenario's setup rules ask it, so no module outside the engine
    compares a command with MULTI itself."""
    holders = _holders(r'b"multi"')
    assert "engine/units.py" in holders
    assert {h for h in holders if not h.startswith("engine/")} == set()


# -- topologies: playground/topology_kinds.py --------------------------------------------

TOPOLOGY_NAMES_ELSEWHERE = {("server/sandbox.py", "cluster"): 1,   # the CLUSTER command's kept subcommands
                            ("scenario/tags.py", "cluster"): 1}    # a lesson tag
"""Literals equal to a topology's name that are something else."""


def _trees(root: Path = SRC):
    for path in sorted(root.rglob("*.py")):
        relative = str(path.relative_to(root))
        if relative != "topology_kinds.py":
            yield relative, ast.parse(path.read_text(encoding="utf-8"))


def topology_names_elsewhere(root: Path = SRC) -> dict[tuple[str, str], int]:
    """(file, name) -> how often a literal equal to a topology's name is in the file."""
    names = set(topology_kinds.NAMES)
    found: dict[tuple[str, str], int] = {}
    for relative, tree in _trees(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                found[relative, node.value] = found.get((relative, node.value), 0) + 1
    return found


def test_topology_names_are_spelled_only_in_topology_kinds():
    """`--topology`'s choices, a scenario's `topology`, server steps, the servers that
    start them: each asks topology_kinds (NAMES, SINGLE.name, KINDS[...].sharded), so
    a topology is added in one place."""
    assert topology_names_elsewhere() == TOPOLOGY_NAMES_ELSEWHERE


_SPELT_BOUND = re.compile(r"\b\d+ to \d+\b|\(default \d+\)")


def replica_numbers_elsewhere(root: Path = SRC) -> list[tuple[str, int, str]]:
    """(file, line, what) for each comparison of a replica count with a number, `range`
    of numbers for --replicas or for a topology's nodes (server/topology*), and text
    (not a docstring) with a range or a default of replicas written out."""
    spelt = []
    for relative, tree in _trees(root):
        docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
        option = {id(n) for call in ast.walk(tree) if _adds_replicas_option(call) for n in ast.walk(call)}
        for node in ast.walk(tree):
            numbers = {c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and type(c.value) is int}
            if isinstance(node, ast.Compare) and "replica" in ast.unparse(node) and numbers - {0, 1}:
                spelt.append((relative, node.lineno, ast.unparse(node)))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
                  and numbers and (id(node) in option or relative.startswith("server/topology"))):
                spelt.append((relative, node.lineno, ast.unparse(node)))
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and "replica" in node.value and _SPELT_BOUND.search(node.value)):
                spelt.append((relative, node.lineno, node.value))
    return spelt


def _adds_replicas_option(call: ast.AST) -> bool:
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"
            and any(isinstance(a, ast.Constant) and a.value == "--replicas" for a in call.args))


def test_the_replica_bound_and_defaults_are_spelled_only_in_topology_kinds():
    """MAX_REPLICAS and each kind's replicas and primaries, asked of topology_kinds
    wherever replicas are checked, offered or started."""
    assert replica_numbers_elsewhere() == []


def test_parse_info_means_one_thing():
    """resp/info_text.parse_info reads INFO text; COMMAND INFO's entries are
    engine/command_info.parse_command_info's."""
    defined = {relative for relative, tree in _trees() for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef) and node.name == "parse_info"}
    assert defined == {"resp/info_text.py"}
