"""The footer shows whole keys only, F1 and F12 at every width and in every language
(issue 44: in Chinese F12 was cut at 120 columns and gone at 80)."""

from itertools import pairwise

import pytest

from playground.tui.app import make_app
from playground.tui.widgets.key_footer import KeyFooter
from pilot import started, wait_until
from pilot import scenario

pytestmark = [pytest.mark.server, pytest.mark.tui]


def footer_keys(app):
    """(action, x, width) of each key the footer drew, the palette's last."""
    footer = app.mode_screen.query_one(KeyFooter)
    keys = [w for w in footer.children if hasattr(w, "action")]
    return [(w.action, w.region.x, w.region.width, w.has_class("-command-palette")) for w in keys]


async def fits(pilot, app, width) -> None:
    """Waits until the footer's keys are laid out whole at `width` (a new footer's keys have
    no place until the next layout), then checks it; what is wrong, if they never are."""
    def whole() -> bool:
        try:
            check_fits(app, width)
        except AssertionError:
            return False
        return True

    try:
        await wait_until(pilot, whole)
    except AssertionError:
        check_fits(app, width)
        raise


def check_fits(app, width):
    keys = footer_keys(app)
    actions = [a for a, *_ in keys]
    assert any(a.endswith("switch_language") for a in actions), actions
    assert "help_screen" in actions, actions
    palette = [(x, w) for _, x, w, p in keys if p]
    right = palette[0][0] if palette else width
    for action, x, w, is_palette in keys:
        assert w > 0 and x + w <= width, (action, x, w)
        if not is_palette:
            assert x + w <= right, (action, x, w, right)  # not under the palette's key: whole
    drawn = sorted((x, x + w) for _, x, w, _ in keys)
    assert all(a[1] <= b[0] for a, b in pairwise(drawn)), drawn  # no key over another


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
@pytest.mark.parametrize("mode", ["free", "lesson", "challenge"])
async def test_f1_and_f12_whole_at_80_and_120_columns(server_binary, lang, size, mode):
    opened = {"free": None, "lesson": scenario("set-nx-lock"), "challenge": scenario("lost-update")}[mode]
    app = make_app(server_binary.path, open_scenario=opened, challenge=mode == "challenge", lang=lang)
    async with app.run_test(size=size) as pilot:
        await started(pilot, app)
        if mode != "free":
            await wait_until(pilot, lambda: app.scenario_run is not None)
        await pilot.pause()
        await fits(pilot, app, size[0])
        await pilot.press("f12")  # the other language: its own widths
        await wait_until(pilot, lambda: app.lang != lang)
        await pilot.pause()
        await fits(pilot, app, size[0])
        await pilot.resize_terminal(160, 45)
        await wait_until(pilot, lambda: len(footer_keys(app)) > 8)  # wider: more keys
        await fits(pilot, app, 160)
