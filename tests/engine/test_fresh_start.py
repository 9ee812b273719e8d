"""A fresh start (`Playground.reset`: a scenario part, each schedule of `explore`) leaves
no cached script and no loaded function, whichever way a line that could leave one went
to the server: typed, queued in MULTI, pipelined, in a part's setup, sent by a program
through the gate. SCRIPT FLUSH and FUNCTION FLUSH each rebuild the server's Lua (most of
what a short schedule costs the server), so they are sent only after such a line
(catalogue.LOADS_SCRIPTS); the server itself is asked here whether anything is left."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from playground.engine.executor import Executor
from playground.engine.pipeline import run_lines
from playground.gate.endpoint import Gate

SCRIPT = b"return 'fresh-start-test'"
SHA = hashlib.sha1(SCRIPT).hexdigest().encode()
LIBRARY = b"#!lua name=freshlib\nredis.register_function('freshf', function() return 1 end)"


async def left_over(pg) -> tuple[bool, bool]:
    """(is the test's script cached?, is a function library loaded?), as the server says."""
    cached, libraries = await pg.admin.run([[b"SCRIPT", b"EXISTS", SHA], [b"FUNCTION", b"LIST"]])
    return bool(int(cached[0])), bool(libraries)


EVAL_LINE = f'EVAL "{SCRIPT.decode()}" 0'
LOAD_LINE = 'FUNCTION LOAD "' + LIBRARY.decode().replace("\n", "\\n") + '"'


async def typed(pg, *lines: str) -> None:
    ex = Executor(pg)
    for line in lines:
        await ex.run_line("A", line)


async def queued(pg) -> None:
    await typed(pg, "MULTI", EVAL_LINE, LOAD_LINE, "EXEC")


async def pipelined(pg) -> None:
    ex = Executor(pg)
    await run_lines(ex, [("B", (b"SET", b"k", b"1"), 1), ("A", (b"EVAL", SCRIPT, b"0"), 1)], settle_last=True)
    await run_lines(ex, [("B", (b"SET", b"k", b"2"), 1), ("A", (b"FUNCTION", b"LOAD", LIBRARY), 1)],
                    settle_last=True)


async def in_setup(pg) -> None:
    await pg.reset([[b"EVAL", SCRIPT, b"0"], [b"FUNCTION", b"LOAD", LIBRARY]])
    assert await left_over(pg) == (True, True)   # the setup runs after the flush


async def through_the_gate(pg) -> None:
    gate = Gate.for_playground(pg)
    gate.run_free()
    try:
        path = (await gate.listen("prog")).removeprefix("unix://").partition("?")[0]
        reader, writer = await asyncio.open_unix_connection(path)
        for argv in ([b"EVAL", SCRIPT, b"0"], [b"FUNCTION", b"LOAD", LIBRARY]):
            writer.write(b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv))
            await writer.drain()
            assert (await asyncio.wait_for(reader.readline(), 10)).startswith((b"$", b"+"))
            await asyncio.wait_for(reader.readline(), 10)
        writer.close()
    finally:
        await gate.close()


WAYS = {
    "typed": lambda pg: typed(pg, EVAL_LINE, LOAD_LINE),
    "script load typed": lambda pg: typed(pg, f'SCRIPT LOAD "{SCRIPT.decode()}"', LOAD_LINE),
    "queued in MULTI": queued,
    "pipelined": pipelined,
    "in a setup": in_setup,
    "a program through the gate": through_the_gate,
}


@pytest.mark.asyncio
@pytest.mark.parametrize("way", list(WAYS))
async def test_nothing_cached_or_loaded_survives_a_fresh_start(pg, way):
    await pg.reset()
    assert await left_over(pg) == (False, False)
    await WAYS[way](pg)
    assert await left_over(pg) == (True, True)   # (else this test proves nothing)
    await pg.reset()
    assert await left_over(pg) == (False, False)
    await pg.reset()   # a second fresh start in a row: still nothing
    assert await left_over(pg) == (False, False)


@pytest.mark.asyncio
async def test_an_exploration_whose_steps_load_nothing_starts_each_schedule_without_a_script(pg):
    """Scripts loaded before the exploration (by a pane) are flushed by its first fresh
    start, though no step of it could load one."""
    from playground.explore.explorer import explore
    from playground.explore.free_play import typed_scenario

    await typed(pg, EVAL_LINE)
    case = typed_scenario([("A", f"SCRIPT EXISTS {SHA.decode()}"), ("B", "SET k v")])
    result = await explore(pg, case, reduce=False)
    assert result.runs == 2
    assert await left_over(pg) == (False, False)
