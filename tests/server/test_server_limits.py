"""Every private server bounds its memory and checks RESTORE payloads through
(server/sandbox.py `limit_config`, `ADDRESS_SPACE`): a lesson gets an error, the host and
the server survive."""

from __future__ import annotations

import pytest

from dump_payload import duplicate_field_payload
from playground.resp.replies import Err

pytestmark = pytest.mark.asyncio

MB = b"x" * (1 << 20)


@pytest.mark.slow
async def test_a_script_that_builds_a_huge_value_gets_an_error_and_the_server_lives(a):
    # 1 GB of Lua strings: maxmemory does not count Lua's heap, the address-space limit does
    reply = await a.execute([b"EVAL", b"local t = {} for i = 1, 1024 do t[i] = string.rep('x', 1048576 + i) end "
                                      b"return #t", b"0"])
    assert isinstance(reply, Err) and b"not enough memory" in reply.message, reply
    assert await a.execute([b"PING"]) == b"PONG"


async def test_writes_past_maxmemory_get_oom_and_the_server_lives(a):
    replies = [await a.execute([b"SET", b"k%d" % i, MB]) for i in range(100)]
    refused = [r for r in replies if isinstance(r, Err)]
    assert refused and all(r.message.startswith(b"OOM ") for r in refused), refused[:1]
    assert sum(1 for r in replies if r == b"OK") < 64  # 64 MB at most
    # a lesson's fresh start still works (it frees at once: FLUSHALL SYNC)
    assert await a.execute([b"FLUSHALL", b"SYNC"]) == b"OK"
    assert await a.execute([b"SET", b"k", MB]) == b"OK"


async def test_a_corrupt_restore_payload_is_refused_and_the_server_lives(a):
    await a.execute([b"HSET", b"h", b"field-a", b"1", b"field-b", b"2"])
    dump = await a.execute([b"DUMP", b"h"])
    reply = await a.execute([b"RESTORE", b"h2", b"0", duplicate_field_payload(bytes(dump))])
    assert isinstance(reply, Err) and b"Bad data format" in reply.message, reply
    assert await a.execute([b"EXISTS", b"h2"]) == 0
    assert await a.execute([b"HGETALL", b"h"]) == [b"field-a", b"1", b"field-b", b"2"]
