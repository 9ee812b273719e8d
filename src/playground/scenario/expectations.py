"""What must hold when a part ends (`[expect]`, or each part's `expect`): the final keys,
and each program's exit status and return value. A lesson of programs alone has no step
to check a reply at; this is where it says what it teaches:

    [expect.state]                 # the final keys, as a step's state checks
    counter = "7"

    [expect.programs.A]
    status = 0                     # its exit status (0: it ended well)
    returns = "charged"            # a function program's return value

`run` and `check` judge them once every program has run to its end (scenario/runner.py):
a program whose exit status is expected is judged by that check, not failed for a
non-zero one. A program's outcome is its exit status and its return value
(gate/programs.py: ProgramOutcome).

A return value is compared as a value: the function's result, read back from its
repr(), against the TOML value, bytes taken as UTF-8 text and a tuple as a list (so
`returns = "charged"` holds for `'charged'` and `b'charged'`, `returns = [1, 2]` for
`(1, 2)`); a bool is only a bool (`returns = 1` does not hold for `True`); or, for a
result that is no literal, its repr() text exactly.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from playground.i18n import tr
from playground.scenario.checks import CheckResult, parse_state
from playground.scenario.fields import Where, check_unknown
from playground.scenario.model import StateCheck

FIELDS = {"state", "programs"}
PROGRAM_FIELDS = {"status", "returns"}
_RETURNS = (str, int, float, bool, list, dict)


@dataclass(frozen=True)
class ProgramExpect:
    status: int | None = None         # its exit status; None: not checked
    returns: tuple = ()               # (the TOML value,) it must return; (): not checked


@dataclass(frozen=True)
class PartExpect:
    state: tuple[StateCheck, ...] = ()
    programs: tuple[tuple[str, ProgramExpect], ...] = ()   # (client, what it must end with)

    @property
    def judged(self) -> frozenset[str]:
        """The programs whose exit status is expected."""
        return frozenset(c for c, e in self.programs if e.status is not None)


def parse_expect(raw, where: Where, programs: dict, part: str | None = None) -> PartExpect:
    """A part's `expect` table; `programs`: client -> argv of the part's programs (a
    function's: python -m CALL ...). ScenarioError (one line) for a mistake."""
    from playground.gate.program_argv import CALL

    if not isinstance(raw, dict):
        raise where.error(tr("a table with state and/or programs"), part=part, field_name="expect")
    check_unknown(raw, FIELDS, where, part=part, prefix="expect")
    state = parse_state(raw.get("state", {}), where, part, None)
    raw_programs = raw.get("programs", {})
    if not isinstance(raw_programs, dict):
        raise where.error(tr("a table: a program's client = {{ status = 0, returns = ... }}"), part=part,
                          field_name="expect.programs")
    out = []
    for client, spec in raw_programs.items():
        field = f"expect.programs.{client}"
        if client not in programs:
            raise where.error(tr("{client} is not a program (programs: {names})", client=client,
                                 names=", ".join(programs) or tr("none")), part=part, field_name=field)
        if not isinstance(spec, dict) or not spec:
            raise where.error(tr("a table with status and/or returns"), part=part, field_name=field)
        check_unknown(spec, PROGRAM_FIELDS, where, part=part, prefix=field)
        status = spec.get("status")
        if status is not None and (type(status) is not int or not 0 <= status <= 255):
            raise where.error(tr("an exit status: a whole number from 0 to 255"), part=part,
                              field_name=f"{field}.status")
        returns: tuple = ()
        if "returns" in spec:
            if tuple(programs[client][:3]) != ("python", "-m", CALL):
                raise where.error(tr("{client} is a command line, not a function: it returns no value (expect its "
                                     "exit status with status)", client=client), part=part, field_name=f"{field}.returns")
            if not isinstance(spec["returns"], _RETURNS):
                raise where.error(tr("text, a number, true or false, a list or a table"), part=part,
                                  field_name=f"{field}.returns")
            returns = (spec["returns"],)
        out.append((client, ProgramExpect(status, returns)))
    return PartExpect(state, tuple(out))


def judge_programs(expect: PartExpect, outcomes: dict, describe: dict) -> list[CheckResult]:
    """Each program's expected exit status and return value, against how it ended
    (`outcomes`: client -> ProgramOutcome; `describe`: client -> "A (python x.py)")."""
    checks = []
    for client, want in expect.programs:
        got = outcomes.get(client)
        name = describe.get(client, client)
        if want.status is not None:
            if got is None or got.status is None:
                checks.append(CheckResult(f"exit status {client}", False,
                                          tr("program {program} did not end by itself", program=name)))
            else:
                ok = got.status == want.status
                checks.append(CheckResult(f"exit status {client}", ok, "" if ok else tr(
                    "program {program} exited with status {got}, expected {want}", program=name, got=got.status,
                    want=want.status)))
        if want.returns:
            value = want.returns[0]
            returned = got.returned if got is not None else None
            ok = returned is not None and same_value(returned, value)
            checks.append(CheckResult(f"return value {client}", ok, "" if ok else tr(
                "program {program} returned {got}, expected {want}", program=name,
                got=returned if returned is not None else tr("nothing (it did not return)"), want=repr(value))))
    return checks


def same_value(returned: str, expected) -> bool:
    """Does a function's result (its repr()) hold the expected TOML value?"""
    try:
        value = ast.literal_eval(returned)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return isinstance(expected, str) and returned == expected
    return _plain(value) == _plain(expected) or (isinstance(expected, str) and returned == expected)


def _plain(value):
    """A value as compared: bytes as text, tuples and lists alike, a bool tagged (True is
    not 1), a set sorted."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return ["seq", *(_plain(v) for v in value)]
    if isinstance(value, (set, frozenset)):
        return ["set", *sorted((_plain(v) for v in value), key=repr)]
    if isinstance(value, dict):
        return ["map", *sorted(((_plain(k), _plain(v)) for k, v in value.items()), key=repr)]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
