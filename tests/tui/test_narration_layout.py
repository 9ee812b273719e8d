"""The narration panel in a class of thirty (issue 38): what changes every second, or with
every step, repaints the panel and does not lay the whole screen out again. The lesson's
clock ticks every second in every learner's app; a layout of the screen for each tick was
most of an idle class's CPU on 2 cores. The panel keeps the height of its tallest text in
the lesson: the panes below stay where they are from one step to the next, and only a
taller text lays the screen out (and grows the panel)."""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from playground.scenario.loader import load_scenario
from playground.tui.app import make_app
from playground.tui.widgets.narration import NarrationPanel
from pilot import wait_until
from pilot import opened, press_and_wait
from servers import shared

LONG = " ".join(["A long narration that takes many lines of the panel."] * 6)

STEPS = f'''title = "Tall then short"
lesson = "Three steps: a tall narration, a short one, a taller one."

[[steps]]
client = "A"
command = "SET k 1"
narration = "{LONG}"

[[steps]]
client = "B"
command = "SET k 2"
narration = "Short."

[[steps]]
client = "A"
command = "GET k"
narration = "{LONG} {LONG}"
'''


def tall_then_short(server_binary, tmp_path):
    """The app, opening STEPS."""
    path = tmp_path / "tall.toml"
    path.write_text(STEPS)
    return make_app(server=shared(server_binary), open_scenario=load_scenario(path))


def drawn(widget: Widget) -> str:
    """What the widget draws now (its lines as the screen gets them)."""
    width, height = widget.size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


def spy_layouts(monkeypatch) -> list[Widget]:
    """Every widget that asks for a layout of its screen from now on."""
    asked: list[Widget] = []
    original = Widget.refresh

    def refresh(self, *regions, repaint=True, layout=False, recompose=False):
        if layout or recompose:
            asked.append(self)
        return original(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(Widget, "refresh", refresh)
    return asked


async def test_the_clock_repaints_the_panel_and_lays_out_nothing(server_binary, tmp_path, monkeypatch):
    app = tall_then_short(server_binary, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        panel = app.mode_screen.query_one(NarrationPanel)
        text = panel.query_one(Static)
        await wait_until(pilot, lambda: " 0:0" in drawn(text))
        asked = spy_layouts(monkeypatch)
        for minutes in (1, 2):  # the clock moves (as a second does): the panel shows it
            app.scenario_run.started_at -= 60
            app.scenario_run.tick()
            await wait_until(pilot, lambda minutes=minutes: f" {minutes}:0" in drawn(text))
        assert asked == []  # and nothing asked for a layout (before: the narration's text, each second)


async def test_the_panel_keeps_its_tallest_height_and_the_panes_stay(server_binary, tmp_path, monkeypatch):
    app = tall_then_short(server_binary, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await opened(pilot, app)
        panel = app.mode_screen.query_one(NarrationPanel)
        pane = app.pane("A")
        await press_and_wait(pilot, app, "space")  # the tall narration
        tall, pane_region = panel.size.height, pane.region
        assert tall > 4

        asked = spy_layouts(monkeypatch)
        await press_and_wait(pilot, app, "space")  # a short one: the panel keeps its height
        assert "Short." in drawn(panel.query_one(Static))
        assert panel.size.height == tall and pane.region == pane_region
        assert panel.query_one(Static) not in asked  # the narration asked for no layout

        await press_and_wait(pilot, app, "space")  # a taller one: the panel grows (up to its most)
        await wait_until(pilot, lambda: panel.size.height > tall)
        assert pane.region.height < pane_region.height


async def test_a_lesson_shows_its_text_while_its_server_is_set_up(server_binary, tmp_path, monkeypatch):
    """A class's lesson push opens the screen in every learner's app at once: its first frame
    already says which lesson and step it is, while the lesson's server is set up behind."""
    import asyncio

    from playground.tui.screens.scenario_screen import ScenarioScreen
    from playground.tui.scenario_runs.lesson_run import LessonRun

    released = asyncio.Event()
    original = LessonRun.reset

    async def slow_reset(self):
        await released.wait()  # the server's setup, held until the text was seen
        await original(self)

    monkeypatch.setattr(LessonRun, "reset", slow_reset)
    monkeypatch.setattr(ScenarioScreen, "_tick_clock", lambda self: None)  # (its tick draws it too, later)
    app = tall_then_short(server_binary, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_until(pilot, lambda: app.scenario_run is not None)
        text = app.mode_screen.query_one(NarrationPanel).query_one(Static)
        await wait_until(pilot, lambda: "step 1 of 3" in drawn(text) and "Tall then short" in drawn(text))
        assert app.mode_screen.busy and "Press Space" not in drawn(text)  # the setup still held
        released.set()
        await wait_until(pilot, lambda: "Press Space" in drawn(text) and not app.mode_screen.busy)
