"""Ctrl+P finds the explorer by "explore" (issue 44: it was named only "Could it have gone
differently?"), in free play and in a lesson, in English and in Chinese."""

import pytest
from textual.command import CommandList, CommandPalette

from playground.tui.app import make_app
from pilot import started, wait_until
from pilot import scenario

pytestmark = [pytest.mark.server, pytest.mark.tui]


def found(app) -> list[str]:
    results = app.screen.query_one(CommandList)
    return [str(results.get_option_at_index(i).prompt) for i in range(results.option_count)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("lesson", [False, True])
async def test_explore_finds_the_explorer(server_binary, lang, lesson):
    app = make_app(server_binary.path, open_scenario=scenario("set-nx-lock") if lesson else None, lang=lang)
    async with app.run_test(size=(120, 35)) as pilot:
        await started(pilot, app)
        if lesson:
            await wait_until(pilot, lambda: app.scenario_run is not None)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        for key in "explore":
            await pilot.press(key)
        await wait_until(pilot, lambda: len(found(app)) >= (2 if lesson else 1))
        shown = " | ".join(found(app))
        free = "could it have gone differently" if lang == "en" else "还可能有别的结果吗"
        assert free in shown, shown
        if lesson:
            assert ("every schedule of this part" if lang == "en" else "所有调度") in shown, shown
