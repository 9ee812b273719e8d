"""A RESTORE payload that is well-formed on the surface but corrupt inside, for the tests
that a server checks payloads through (`sanitize-dump-payload yes`) and that `--url`
refuses RESTORE.

The payload is the server's own DUMP of a two-field hash with its second field renamed to
the first (same length, the checksum recomputed): a hash with a duplicate field. A server
that checks only the payload's header and checksum takes it (a later access can crash
it); one that checks it through answers `Bad data format`.
"""

from __future__ import annotations

_POLY = 0x95ac9329ac4bc9b5  # the servers' CRC-64 (Jones: 0xad93d23594c935a9, reflected), initial value 0


def crc64(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
    return crc


def with_checksum(body: bytes) -> bytes:
    """`body` (type, data, 2-byte RDB version) with the 8-byte little-endian CRC after it."""
    return body + crc64(body).to_bytes(8, "little")


def duplicate_field_payload(dump: bytes) -> bytes:
    """From DUMP of a hash {field-a: 1, field-b: 2}: the same with field-b named field-a."""
    body = dump[:-8]
    assert crc64(body).to_bytes(8, "little") == dump[-8:], "not the servers' checksum"
    assert body.count(b"field-b") == 1, body
    return with_checksum(body.replace(b"field-b", b"field-a"))
