"""The real servers the suite runs against: the bundled Valkey always, Debian's
redis-server when it is installed. Shared by the fixtures and the golden generator."""

from __future__ import annotations

import shutil

from playground.server import ServerBinary, bundled_binary_path, identify


def available_binaries() -> list[ServerBinary]:
    binaries = []
    bundled = bundled_binary_path()
    if bundled:
        binaries.append(ServerBinary(bundled, "bundled", *identify(bundled)))
    system = shutil.which("redis-server")
    if system:
        binaries.append(ServerBinary(system, "system", *identify(system)))
    return binaries


def golden_dir_name(binary: ServerBinary) -> str:
    """Goldens differ between servers only in error texts: one folder per server version."""
    return f"{binary.flavour.lower()}-{binary.version}"
