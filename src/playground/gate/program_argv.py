"""A program's command line as the gate runs it and as messages name it: a lesson's
function is `python -m CALL FILE:NAME ARGS-JSON` (scenario/programs/lesson_format.py
writes it, call_function.py runs it)."""

from __future__ import annotations

import json

CALL = "playground.gate.call_function"  # an argv starting python -m CALL: a lesson's function


def is_function(argv: tuple[str, ...]) -> bool:
    """Whether `argv` calls a lesson's function (python -m CALL ...).

    Args:
        argv: a program's command line.
    """
    return tuple(argv[:3]) == ("python", "-m", CALL)


def shown_program(argv: tuple[str, ...]) -> str:
    """How messages name a program: its command line, or a lesson's function as
    `transfer.py:transfer("alice", 30)`.

    Args:
        argv: the program's command line.
    """
    if is_function(argv) and len(argv) == 5:
        return f"{argv[3]}({', '.join(json.dumps(a, ensure_ascii=False) for a in json.loads(argv[4]))})"
    return " ".join(argv)
