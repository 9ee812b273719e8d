"""The tests' own waits (tests/pilot.py): a wait that times out says what it waited for
(it said only "condition not reached", and a failure 20 s after the real one was hard to
place)."""

import asyncio

import pytest

from pilot import wait_until


class _Pilot:
    async def pause(self, delay=None) -> None:
        await asyncio.sleep(delay or 0)


async def test_a_wait_that_times_out_names_what_it_waited_for():
    the_lesson_opened = False
    with pytest.raises(AssertionError, match=r"condition not reached in 0\.05 s: .*lambda: the_lesson_opened"):
        await wait_until(_Pilot(), lambda: the_lesson_opened, timeout=0.05)
