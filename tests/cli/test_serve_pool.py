"""serve's ready pool (cli/ready_pool.py) on its own: how many apps it starts, when, and
when it stops starting them. The apps are stand-ins (the browser tests in test_serve.py
run the real ones)."""

from __future__ import annotations

import asyncio

from playground.cli.ready_pool import ReadyPool


class Apps:
    """Stand-in apps: each start is a new object; `draws` decides if it draws or ends."""

    def __init__(self, room: int = 100, draws: bool = True) -> None:
        self.started: list[object] = []
        self.drawing = asyncio.Event()
        self.room, self.draws = room, draws

    async def start(self):
        app = object()
        self.started.append(app)
        return app

    async def drawn(self, app) -> bool:
        await self.drawing.wait()
        return self.draws


async def _settle() -> None:
    for _ in range(20):  # the pool's tasks run to their next wait
        await asyncio.sleep(0)


def test_the_pool_starts_one_app_at_a_time_up_to_its_size_and_refills_after_a_take():
    async def scenario() -> None:
        apps = Apps()
        pool = ReadyPool(3, apps.start, apps.drawn, lambda: apps.room)
        pool.fill()
        pool.fill()
        await _settle()
        assert len(apps.started) == 1  # the second waits for the first to draw
        apps.drawing.set()
        await _settle()
        assert len(apps.started) == 3 and pool.ready == apps.started
        first = pool.take()
        assert first is apps.started[0]  # the oldest
        pool.fill()
        await _settle()
        assert len(apps.started) == 4 and first not in pool.ready and len(pool.ready) == 3
        assert pool.take() is not first  # never given twice

    asyncio.run(scenario())


def test_max_tabs_bounds_the_pool():
    async def scenario() -> None:
        apps = Apps(room=2)
        apps.drawing.set()
        pool = ReadyPool(4, apps.start, apps.drawn, lambda: apps.room)
        pool.fill()
        await _settle()
        assert len(pool.ready) == 2
        pool.take()
        apps.room = 1  # the taken app is a tab's session now: one place left, and it is in the pool
        pool.fill()
        await _settle()
        assert len(pool.ready) == 1 and len(apps.started) == 2
        apps.room = 0
        pool.take()
        pool.fill()
        await _settle()
        assert not pool.ready and len(apps.started) == 2

    asyncio.run(scenario())


def test_an_app_that_ends_before_it_draws_is_not_restarted_in_a_loop():
    async def scenario() -> None:
        apps = Apps(draws=False)
        apps.drawing.set()
        pool = ReadyPool(2, apps.start, apps.drawn, lambda: apps.room)
        pool.fill()
        await _settle()
        assert len(apps.started) == 1  # it ended: serve discards it; the pool waits for the next tab
        pool.discard(apps.started[0])
        assert not pool.ready
        pool.fill()  # a tab came
        await _settle()
        assert len(apps.started) == 2

    asyncio.run(scenario())


def test_a_closed_pool_starts_nothing_and_gives_its_apps_back():
    async def scenario() -> None:
        apps = Apps()
        apps.drawing.set()
        pool = ReadyPool(2, apps.start, apps.drawn, lambda: apps.room)
        pool.fill()
        await _settle()
        assert await pool.close() == apps.started
        pool.fill()
        await _settle()
        assert len(apps.started) == 2

    asyncio.run(scenario())


def test_the_pool_waits_for_the_tabs_to_be_quiet_before_it_refills():
    """Tabs arriving (a class starting) come first: each app the pool started then would
    take a start's CPU from a learner's own. It refills once `quiet_in` says 0."""
    async def scenario() -> None:
        apps = Apps()
        apps.drawing.set()
        quiet = {"in": 0.0}
        pool = ReadyPool(2, apps.start, apps.drawn, lambda: apps.room, lambda: quiet["in"])
        pool.fill()
        await _settle()
        assert len(apps.started) == 2
        quiet["in"] = 0.05                    # a tab just came
        pool.take()
        pool.fill()
        await _settle()
        assert len(apps.started) == 2         # not now
        quiet["in"] = 0.0                     # quiet when the pool asks again
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while len(apps.started) < 3 and loop.time() < deadline:  # noqa: ASYNC110 (a state nothing signals)
            await asyncio.sleep(0.01)
        assert len(apps.started) == 3 and len(pool.ready) == 2
        await pool.close()

    asyncio.run(scenario())


def test_the_pool_holds_its_size_less_the_tabs_so_a_class_is_not_followed_by_as_many_more():
    """--ready 3 for a class of 3: the class takes the three ready apps, and the pool then
    holds one for a latecomer, not three more (twice the apps); as tabs end it holds more
    again, up to its size."""
    async def scenario() -> None:
        apps = Apps()
        apps.drawing.set()
        tabs = {"n": 0}
        pool = ReadyPool(3, apps.start, apps.drawn, lambda: apps.room, tabs=lambda: tabs["n"])
        pool.fill()
        await _settle()
        assert len(pool.ready) == 3
        for _ in range(3):  # the class arrives: each tab takes one, the pool asked to refill each time
            pool.take()
            tabs["n"] += 1
            pool.fill()
            await _settle()
        assert len(pool.ready) == 1 and len(apps.started) == 4  # one for a latecomer, no more
        tabs["n"] += 1  # the latecomer takes it: one again
        pool.take()
        pool.fill()
        await _settle()
        assert len(pool.ready) == 1 and len(apps.started) == 5
        tabs["n"] = 1  # most tabs ended: back up to 3 less 1
        pool.fill()
        await _settle()
        assert len(pool.ready) == 2 and len(apps.started) == 6
        await pool.close()

    asyncio.run(scenario())
