"""Saved replies in commands: `save = "n"` remembers a reply, `${n}`, `${n+1}`, `${n-1}`
write it back into a later command of the same client; `$$` is a literal `$`.

Braces alone are Redis's own syntax (a Cluster hash tag: `{user1}:cart`) and are sent as
written. A command's arguments are kept as template text (every literal `$` doubled) until
the step runs; `fill_template` turns them into the bytes sent.
"""

from __future__ import annotations

import re

from playground.i18n import tr
from playground.resp.cli_lines import SplitError, format_argv, split_args
from playground.resp.replies import BigNumber, Bulk, Double, Err, Int, Map, Nil, Status, Verbatim
from playground.scenario.model import SCRIPT_REF

TEMPLATE = re.compile(r"\$\$|\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:([+-])\s*(\d+)\s*)?\}")
"""`$$`, or `${name}` / `${name+1}` / `${name - 2}` (group 1: name, 2: sign, 3: digits)."""
OLD_TEMPLATE = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)([+-]\d+)?\}")
"""The spelling before `${...}`: `{n+1}`. Refused as a whole argument where `n` is a saved
name (`SET counter {n+1}`); inside an argument (`{n}:cart`) it is a hash tag, sent as written."""
BAD_DOLLAR_BRACE = re.compile(r"\$\{[^}]*\}?")
INT64 = (-2**63, 2**63 - 1)


def escape(text: str) -> str:
    """Text to put into a command as it is: every `$` doubled."""
    return text.replace("$", "$$")


def unescape(text: str) -> str:
    """Template text with no `${...}` in it, as sent: `$$` -> `$`."""
    return text.replace("$$", "$")


def names_in(text: str) -> list[str]:
    """The saved names a template text uses, in order."""
    return [m.group(1) for m in TEMPLATE.finditer(text) if m.group(1)]


def template_problem(text: str, known: set[str]) -> str | None:
    """What is wrong with the substitutions in one argument (template text), or None."""
    rest = TEMPLATE.sub("", text)
    bad = BAD_DOLLAR_BRACE.search(rest)
    if bad:
        return tr("{text}: a saved value is written ${{name}}, ${{name+1}} or ${{name-1}} (for a literal $ write $$)",
                  text=_short(bad.group()))
    for m in TEMPLATE.finditer(text):
        if not m.group(1):
            continue
        if m.group(3) and not _in_int64(m.group(2) + m.group(3)):
            return tr("{text}: add or subtract a number from {low} to {high}",
                      text=f"${{{m.group(1)}{m.group(2)}{_short(m.group(3))}}}", low=INT64[0], high=INT64[1])
        if m.group(1) not in known:
            return tr("{text}: {name} is not saved by an earlier step of this client (save = \"{save}\")",
                      text=f"${{{m.group(1)}}}", name=repr(m.group(1)), save=m.group(1))
    old = OLD_TEMPLATE.fullmatch(text)  # a whole argument: the old spelling (a hash tag is part of a key)
    if old:
        if old.group(1) in known:
            new = "${" + old.group(1) + (old.group(2) or "") + "}"
            return tr("{old} is the old spelling of a saved value: write {new} "
                      "(inside a key, braces are a hash tag and are sent as written)", old=old.group(), new=new)
    return None


def fill_template(arg: bytes, saved: dict[str, object]) -> bytes:
    """The argument as sent: `$$` -> `$`, `${n}` / `${n+1}` / `${n-1}` -> the saved value
    (integer arithmetic). A name not saved (its step was skipped), or arithmetic on a
    value that is no integer, is sent as written."""
    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name is None:
            return "$"
        if name not in saved:
            return m.group(0)
        value = saved[name]
        if m.group(3):
            number = as_number(value)
            if not isinstance(number, int):
                return m.group(0)
            delta = int(m.group(3))
            return str(number + delta if m.group(2) == "+" else number - delta)
        return "" if value is None else show_plain(value)
    return TEMPLATE.sub(sub, arg.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def shown_command(display: str, argv: tuple[bytes, ...], saved: dict[str, object]) -> str:
    """A step's command as a learner reads it once its saved values are filled in: each
    argument as sent, but a named script as the step wrote it (`EVAL $rotate 1 k 5`, not the
    script's whole source).

    Args:
        display: the command as the step wrote it (template text: `EVAL $rotate 1 k ${n}`).
        argv: its arguments as template text, scripts' source in place of their names.
        saved: the client's saved values.
    """
    try:
        words = split_args(display)
    except SplitError:
        words = []
    if len(words) != len(argv):  # (a list of arguments is shown as sent)
        words = [b""] * len(argv)
    return format_argv([w if SCRIPT_REF.match(w.decode("utf-8", "replace")) else fill_template(a, saved)
                        for w, a in zip(words, argv, strict=True)])


def plain_value(reply) -> object:
    """A reply as a value a scenario can compare: text, an integer, None for nil, a tuple
    for an array (so an EXEC that ran is not nil), the error line for an error."""
    if reply is Nil or reply is None:
        return None
    if isinstance(reply, Int):
        return int(reply)
    if isinstance(reply, (Bulk, Status, Verbatim)):
        return bytes(reply).decode("utf-8", "replace")
    if isinstance(reply, Err):
        return reply.message.decode("utf-8", "replace")
    if isinstance(reply, Map):
        return tuple(plain_value(x) for pair in reply for x in pair)
    if isinstance(reply, list):
        return tuple(plain_value(x) for x in reply)
    if isinstance(reply, (Double, BigNumber)):
        return reply.raw.decode("utf-8", "replace")
    return None


def as_number(value):
    """An int or float from a saved value (an integer reply, or text that is a number);
    None if it is not a number."""
    if isinstance(value, bool) or value is None or isinstance(value, tuple):
        return None
    if isinstance(value, (int, float)):
        return value
    text = str(value).strip()
    if re.fullmatch(r"[+-]?\d{1,19}", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text) and len(text) < 64:
        return float(text)
    return None


def show_plain(value) -> str:
    """A saved value as text in a command: a nil as nothing (an empty argument, or an
    empty element of an array's), never Python's `None`; an array's elements joined by
    spaces."""
    if value is None:
        return ""
    if isinstance(value, tuple):
        return " ".join(show_plain(v) for v in value)
    return str(value)


def show_value(value) -> str:
    """A saved value in a note: (nil), "text", 5, [a, b]."""
    if value is None:
        return "(nil)"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return str(value)


def _in_int64(digits: str) -> bool:
    """Is this decimal text (sign allowed) a 64-bit integer? Checked by length first:
    Python refuses int() of more than 4300 digits."""
    body = digits.lstrip("+-")
    return len(body) <= 19 and INT64[0] <= int(digits) <= INT64[1]


def _short(text: str) -> str:
    """A value for a message: a 5000-digit number is not printed whole."""
    return text if len(text) <= 30 else tr("{start}…({count} characters)", start=text[:12], count=len(text))
