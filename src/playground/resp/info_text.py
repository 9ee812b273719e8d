"""The one reader of the servers' `field:value` text: INFO (every section), CLUSTER INFO;
and of CONFIG GET's name, value pairs (`config_values`, `config_value`).

Sections' headers (`# Server`) and blank lines are skipped; a value keeps everything after
the first colon (`db0:keys=1,expires=0` -> "keys=1,expires=0"), stripped of the line's end.
"""

from __future__ import annotations


def parse_info(reply: object) -> dict[str, str]:
    """`reply` (bytes, a Bulk or Verbatim reply, or str) as {field: value}; anything else
    (an error reply, nil) as {}."""
    if isinstance(reply, str):
        text = reply
    elif isinstance(reply, (bytes, bytearray)):   # Bulk and Verbatim are bytes
        text = bytes(reply).decode(errors="replace")
    else:
        return {}
    info = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if sep:
            info[key] = value.strip()
    return info


def config_values(reply: object) -> dict[bytes, bytes] | None:
    """CONFIG GET's reply (RESP2: name, value, name, value ...; RESP3: a map) as
    {name: value}; None for anything else (an error reply: NOPERM, a refused CONFIG)."""
    if not isinstance(reply, (list, tuple)) or isinstance(reply, (bytes, str)):
        return None
    if reply and all(isinstance(pair, tuple) for pair in reply):   # (a RESP3 map: (name, value) pairs)
        items = list(reply)
    elif len(reply) % 2 == 0 and all(isinstance(x, (bytes, bytearray)) for x in reply):
        items = list(zip(reply[::2], reply[1::2], strict=True))  # (even: a value for each name)
    else:
        return None
    return {bytes(k): bytes(v) for k, v in items}


def config_value(reply: object, name: bytes) -> bytes | None:
    """One parameter's value in CONFIG GET's reply; None when the reply does not hold it."""
    values = config_values(reply)
    return None if values is None else values.get(name)
