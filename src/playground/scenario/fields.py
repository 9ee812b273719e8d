"""The small readers every table of a scenario file uses: where a mistake is
(`Where`: `FILE: part P: step N: FIELD: message`), and fields of a given type."""

from __future__ import annotations

import re
from pathlib import Path

from playground.errors import ScenarioError
from playground.i18n import tr
from playground.scenario.model import FLAVOURS, Requirement

_REQUIRES = {"flavour", "min_version", "command", "commands"}


class Where:
    """Builds `FILE: part P: step N: FIELD: message` lines (in the interface's language:
    the message is translated by the caller, the words "part" and "step" here)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, message: str, *, part: str | None = None, step: int | None = None,
              field_name: str | None = None) -> ScenarioError:
        where = [str(self.path)]
        if part:
            where.append(tr("part {name}", name=repr(part)))
        if step is not None:
            where.append(tr("step {n}", n=step))
        if field_name:
            where.append(field_name)
        return ScenarioError(tr(": ").join(where + [message]))


def read_requires(raw, where: Where, fname: str, part=None, n=None) -> Requirement:
    """A `requires` table (flavour, min_version, command) read and checked, as a Requirement.

    Args:
        raw: the table's value as the TOML has it.
        where: the file, for messages.
        fname: the field's name, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
    """
    if not isinstance(raw, dict):
        raise where.error(tr("a table: flavour, min_version, command"), part=part, step=n, field_name=fname)
    check_unknown(raw, _REQUIRES, where, part=part, step=n, prefix=fname)
    flavour = raw.get("flavour")
    if flavour is not None and flavour not in FLAVOURS:
        raise where.error(tr("flavour: \"redis\" or \"valkey\""), part=part, step=n, field_name=fname)
    version = raw.get("min_version")
    parsed_version = None
    if version is not None:
        if not isinstance(version, str) or not re.match(r"^\d{1,5}(\.\d{1,5}){0,2}$", version):
            raise where.error(tr('min_version: like "7.0" or "8.4.0"'), part=part, step=n, field_name=fname)
        parsed_version = tuple(int(x) for x in version.split("."))
    commands = raw.get("commands", [])
    if "command" in raw:
        commands = [raw["command"]]
    commands = read_list(commands, where, fname + ".command", part, n)
    return Requirement(flavour, parsed_version, tuple(c.upper() for c in commands))


def check_unknown(raw: dict, allowed: set, where: Where, part=None, step=None, prefix=None) -> None:
    """Refuse the first key of `raw` that is not in `allowed`, naming the known ones.

    Args:
        raw: the table as the TOML has it.
        allowed: the field names the table may have.
        where: the file, for messages.
        part: the part's name, for messages.
        step: the step's number, for messages.
        prefix: the table's own field name, put before the key in messages.
    """
    for key in raw:
        if key not in allowed:
            name = f"{prefix}.{key}" if prefix else key
            raise where.error(tr("unknown field (known: {known})", known=", ".join(sorted(allowed))),
                              part=part, step=step, field_name=name)


def read_text(data: dict, key: str, where: Where, required: bool = False) -> str:
    """A top-level text field: non-empty text, or "" when absent and not required.

    Args:
        data: the table as the TOML has it.
        key: the field's name.
        where: the file, for messages.
        required: whether a missing field is refused.
    """
    if key not in data:
        if required:
            raise where.error(tr("missing"), field_name=key)
        return ""
    if not isinstance(data[key], str) or not data[key].strip():
        raise where.error(tr("must be non-empty text"), field_name=key)
    return data[key]


def read_typed(raw: dict, key: str, kind, where: Where, part, n, prefix, required: bool = False):
    """A field that must be of `kind` (an int is never a bool), or None when absent and not required.

    Args:
        raw: the table as the TOML has it.
        key: the field's name.
        kind: the Python type the value must have.
        where: the file, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
        prefix: the table's own field name, put before the key in messages.
        required: whether a missing field is refused.
    """
    if key not in raw:
        if required:
            raise where.error(tr("missing"), part=part, step=n, field_name=f"{prefix}.{key}")
        return None
    value = raw[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise where.error(tr("must be {type}", type=kind.__name__), part=part, step=n, field_name=f"{prefix}.{key}")
    return value


def read_bool(raw: dict, key: str, where: Where, part, n) -> bool:
    """A true/false field (false when absent).

    Args:
        raw: the table as the TOML has it.
        key: the field's name.
        where: the file, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
    """
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise where.error(tr("true or false"), part=part, step=n, field_name=key)
    return value


def read_list(value, where: Where, fname: str, part=None, n=None) -> list[str]:
    """A list of texts, copied.

    Args:
        value: the field's value as the TOML has it.
        where: the file, for messages.
        fname: the field's name, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
    """
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise where.error(tr("a list of text"), part=part, step=n, field_name=fname)
    return list(value)
