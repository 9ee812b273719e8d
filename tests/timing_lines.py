"""redis-cli's timing line, "(0.61s)": printed under a reply that took half a second or
more (by a pane, and by `repl` as redis-cli does with piped input). A loaded machine can
print one under any reply; a test that is not about timing sets them aside."""

from __future__ import annotations

import re

TIMING_LINE = re.compile(r"\(\d+\.\d\ds\)")


def without_timing(lines: list[str]) -> list[str]:
    """`lines` without any timing line."""
    return [line for line in lines if not TIMING_LINE.fullmatch(line)]
