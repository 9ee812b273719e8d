"""redis-cli's timing line, "(0.61s)": printed under a reply that took half a second or
more (by a pane, and by `repl` as redis-cli does with piped input). A loaded machine can
print one under any reply; a test that is not about timing sets them aside."""

from __future__ import annotations

import re

TIMING_LINE = re.compile(r"\(\d+\.\d\ds\)")
_TIMING_BYTES = re.compile(rb"(?m)^\(\d+\.\d\ds\)$")   # (the same, a whole line of bytes output)
_TIMING_BYTES_LINE = re.compile(rb"(?m)^\(\d+\.\d\ds\)\n")


def without_timing(lines: list[str]) -> list[str]:
    """`lines` without any timing line."""
    return [line for line in lines if not TIMING_LINE.fullmatch(line)]


def timing_masked(output: bytes, mask: bytes = b"(N.NNs)") -> bytes:
    """`output` (`repl`'s, redis-cli's) with each timing line as `mask`: whether one is
    printed is compared, not the time."""
    return _TIMING_BYTES.sub(mask, output)


def timing_dropped(output: bytes) -> bytes:
    """`output` without its timing lines (each with its newline)."""
    return _TIMING_BYTES_LINE.sub(b"", output)
