"""The one reader of the servers' `field:value` text: INFO (every section), CLUSTER INFO.

Sections' headers (`# Server`) and blank lines are skipped; a value keeps everything after
the first colon (`db0:keys=1,expires=0` -> "keys=1,expires=0"), stripped of the line's end.
"""

from __future__ import annotations


def parse_info(reply) -> dict[str, str]:
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
