"""The `[programs]` table of a scenario file (docs/scenarios.md, "Programs"): which
clients are programs, and the marking of their steps, each of which releases the
program's next command instead of sending one of its own."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from playground.gate.program_argv import CALL, is_function
from playground.i18n import tr

TIME_LIMIT_FIELD = "program_time_limit"
NEED_FIELD = "programs_need"


def parse_needs(data: dict, where) -> tuple[tuple[str, ...], ...]:
    """`programs_need`: commands that must succeed for the programs to run (e.g.
    ["node", "-e", "require('ioredis')"]); where one fails the scenario is skipped."""
    raw = data.get(NEED_FIELD)
    if raw is None:
        return ()
    if "programs" not in data:
        raise where.error(tr("only with [programs]"), field_name=NEED_FIELD)
    if (not isinstance(raw, list) or not raw or not all(
            isinstance(c, list) and c and all(isinstance(a, str) and a and "\0" not in a for a in c) for c in raw)):
        raise where.error(tr('a list of commands, each a list: [["node", "-e", "require(\'ioredis\')"]]'),
                          field_name=NEED_FIELD)
    return tuple(tuple(c) for c in raw)


def parse_programs(data: dict, where, clients: tuple) -> tuple[dict[str, tuple[str, ...]], float | None]:
    """({client: argv}, the time limit in seconds or None) from the file's top level."""
    raw = data.get("programs")
    limit = data.get(TIME_LIMIT_FIELD)
    if raw is None:
        if limit is not None:
            raise where.error(tr("only with [programs]"), field_name=TIME_LIMIT_FIELD)
        return {}, None
    if not isinstance(raw, dict) or not raw:
        raise where.error(tr('a table of client = ["python", "program.py"]'), field_name="programs")
    programs = {}
    for name, argv in raw.items():
        if name not in clients:
            raise where.error(tr("unknown client {name} (this scenario has {clients})", name=repr(name),
                                 clients=", ".join(clients)), field_name="programs")
        if isinstance(argv, dict):
            programs[name] = function_argv(argv, where, f"programs.{name}")
            continue
        if (not isinstance(argv, list) or not argv
                or not all(isinstance(a, str) and a and "\0" not in a for a in argv)):
            raise where.error(tr('the program and its arguments: ["python", "program.py"]'),
                              field_name=f"programs.{name}")
        programs[name] = tuple(argv)
    if limit is not None and (type(limit) not in (int, float) or not 1 <= limit <= 300):
        raise where.error(tr("seconds a program may run, 1 to 300"), field_name=TIME_LIMIT_FIELD)
    return programs, None if limit is None else float(limit)


def parse_part_programs(raw_part: dict, programs: dict, where, part: str) -> tuple:
    """A part's own `programs` (a bug in one part, its fix in the next): ((client, argv),
    ...) for clients of the top-level [programs] (a client is a program in every part or
    in none); an entry with only `args` calls [programs]'s function with these."""
    raw = raw_part.get("programs")
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw:
        raise where.error(tr('a table of client = ["python", "program.py"]'), part=part, field_name="programs")
    out = []
    for name, spec in raw.items():
        field = f"programs.{name}"
        if name not in programs:
            raise where.error(tr("{name} is not in [programs]: a client is a program in every part or in none",
                                 name=repr(name)), part=part, field_name="programs")
        if isinstance(spec, dict) and "function" not in spec and "args" in spec:
            top = programs[name]
            if not is_function(top):
                raise where.error(tr("args alone: only for a client whose [programs] entry is a function"),
                                  part=part, field_name=field)
            spec = dict(spec, function=top[3])
        if isinstance(spec, dict):
            out.append((name, function_argv(spec, where, field, part=part)))
        elif isinstance(spec, list) and spec and all(isinstance(a, str) and a and "\0" not in a for a in spec):
            out.append((name, tuple(spec)))
        else:
            raise where.error(tr('the program and its arguments: ["python", "program.py"]'), part=part,
                              field_name=field)
    return tuple(out)


def part_programs(scenario, part) -> dict[str, tuple[str, ...]]:
    """Each program client's argv in `part` (its own, else [programs]'s)."""
    return {**scenario.programs, **dict(part.programs)} if part is not None else dict(scenario.programs)


def mark_program_steps(raw_parts: list, programs: dict, where) -> list:
    """The parts with every step of a program client marked `release = true` (copies),
    but its wait steps; a program's step with a command of its own, or a release step of
    a client that is not a program, is an error."""
    parts = []
    for i, part in enumerate(raw_parts, 1):
        label = part.get("name") or (str(i) if i > 1 else None)
        steps = part.get("steps")
        if not isinstance(steps, list):
            parts.append(part)
            continue
        marked = []
        for n, step in enumerate(steps, 1):
            if isinstance(step, dict) and "server" not in step:
                if step.get("client") in programs:
                    for name in ("command", "args", "reconnect"):
                        if name in step:
                            raise where.error(tr(
                                "client {name} is a program: each of its steps releases its next command",
                                name=step["client"]), part=label, step=n, field_name=name)
                    if step.get("wait") is not True:  # (a wait step takes the reply of its command that blocked)
                        step = dict(step, release=True)
                elif "release" in step:
                    raise where.error(tr("only a program's steps release a command (see [programs])"),
                                      part=label, step=n, field_name="release")
            marked.append(step)
        parts.append(dict(part, steps=marked))
    return parts


def function_argv(raw: dict, where, field: str, part: str | None = None) -> tuple[str, ...]:
    """`A = { function = "transfer.py:transfer", args = ["alice", "bob", 30] }`: a function
    in a .py file beside the lesson, called with a redis.Redis client and `args` by the
    app's interpreter (gate/call_function.py). Its argv: python -m CALL FILE:NAME ARGS-JSON."""
    unknown = sorted(set(raw) - {"function", "args"})
    if unknown:
        raise where.error(tr("unknown field (known: function, args)"), part=part, field_name=f"{field}.{unknown[0]}")
    spec = raw.get("function")
    file, _, name = spec.rpartition(":") if isinstance(spec, str) else ("", "", "")
    if not file.endswith(".py") or not name.isidentifier() or "\0" in file:
        raise where.error(tr('a .py file beside the lesson and a function in it: "transfer.py:transfer"'),
                          part=part, field_name=f"{field}.function")
    problem = _function_problem(Path(where.path).resolve().parent, file, name)
    if problem:
        raise where.error(problem, part=part, field_name=f"{field}.function")
    args = raw.get("args", [])
    try:
        if not isinstance(args, list):
            raise TypeError
        encoded = json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        encoded = None
    if encoded is None:
        raise where.error(tr("a list of the function's arguments after the client (text, numbers, true/false, "
                             "lists, tables)"), part=part, field_name=f"{field}.args")
    return ("python", "-m", CALL, str(spec), encoded)  # (spec: a str, checked above)


def _function_problem(directory: Path, file: str, name: str) -> str | None:
    """Why FILE (relative to the lesson's directory) defines no function NAME at its top
    level, or None. The file is parsed, not run."""
    path = directory / file
    if Path(file).is_absolute() or not path.is_file():
        return tr("{file}: no such file beside the lesson", file=file)
    try:
        tree = ast.parse(path.read_bytes(), filename=file)
    except SyntaxError as exc:
        return tr("{file}, line {line}: not valid Python ({error})", file=file, line=exc.lineno, error=exc.msg)
    except ValueError as exc:  # a NUL byte
        return tr("{file}: not valid Python ({error})", file=file, error=exc)
    except OSError as exc:
        return tr("{file}: cannot be read ({error})", file=file, error=exc.strerror or exc)
    if not any(isinstance(node, ast.FunctionDef) and node.name == name for node in tree.body):
        return tr("{file} has no function {name} (a def at its top level)", file=file, name=name)
    return None

