"""The data flow of an imported capture: a value a client writes that is an earlier
reply of the same client, changed in a simple way, becomes a saved value in the lesson
(`save = "counter"` on the read, `SET counter ${counter+1}` on the write), so that
exploring the lesson follows the program's logic rather than the captured literals.

Only three simple ways are tried: the same value (`${v}`), an integer plus or minus a
whole number (`${v+1}`, `${v-50}`), and the value with text after it (`${v},c`). A
guess is kept only when the runner's own substitution (`fill_template`) gives back the
captured bytes; the importer also checks that the value ends up stored in the key
(scenario/monitor_import.py), so a TTL or an increment is never taken for a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playground.scenario.substitution import INT64, as_number, escape, fill_template

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]+")
NAME_LENGTH = 32


@dataclass(frozen=True)
class Guess:
    """One written argument as a saved value: its template text and how it was made."""

    template: str      # e.g. ${counter+1}
    how: str           # "same", "plus", "minus" or "suffix"
    amount: int = 0    # n of plus / minus
    suffix: str = ""   # the text after the value


def save_name(key: bytes, taken: dict[str, bytes]) -> str:
    """A name to save a read of `key` under (letters, digits and _), not one `taken` by
    another key of the same client; it is added to `taken`.

    Args:
        key: the key the reply was read from.
        taken: name -> key, the names the client uses so far (updated).
    """
    base = _NAME_CHARS.sub("_", key.decode("utf-8", "replace")).strip("_")[:NAME_LENGTH] or "value"
    if not re.match(r"[A-Za-z_]", base):
        base = "k_" + base[:NAME_LENGTH - 2]
    name, n = base, 2
    while taken.get(name, key) != key:
        name = f"{base[:NAME_LENGTH - 4]}_{n}"
        n += 1
    taken[name] = key
    return name


def guess(arg: bytes, value: object, name: str) -> Guess | None:
    """How `arg` (a written argument) could come from `value` (a reply saved as `name`),
    or None. The guess is checked: the runner's substitution gives `arg` back.

    Args:
        arg: the argument as captured.
        value: the earlier reply as a scenario saves it (substitution.plain_value: int or str).
        name: the saved value's name.
    """
    if value is None or isinstance(value, (tuple, bool)):
        return None
    text = str(value)
    if not text:
        return None
    try:
        written = arg.decode("utf-8")
    except UnicodeDecodeError:
        return None
    found: Guess | None = None
    number, target = as_number(value), as_number(written)
    if written == text:
        found = Guess(f"${{{name}}}", "same")
    elif isinstance(number, int) and isinstance(target, int) and str(target) == written:
        delta = target - number
        if abs(delta) <= INT64[1]:
            sign = "+" if delta > 0 else "-"
            found = Guess(f"${{{name}{sign}{abs(delta)}}}", "plus" if delta > 0 else "minus", abs(delta))
    elif number is None and written.startswith(text):
        suffix = written[len(text):]
        found = Guess(f"${{{name}}}" + escape(suffix), "suffix", suffix=suffix)
    if found is None or fill_template(found.template.encode(), {name: value}) != arg:
        return None
    return found
