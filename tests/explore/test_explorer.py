"""The race explorer: every interleaving of the clients' programs, on the real servers."""

from __future__ import annotations

import json
import re

import pytest

from playground.cells import width
from playground.cli.main import main
from playground.explore import schedules as sch
from playground.explore.explorer import ExploreError, explore, programs_of
from playground.explore.free_play import typed_scenario
from playground.explore.report import render_json, render_markdown, render_text
from playground.scenario.library import resolve
from playground.scenario.loader import load_scenario
from commands import send
from servers import shared


def scenario(ref: str, lang: str = "en"):
    return load_scenario(resolve(ref), lang)


def write(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return load_scenario(path)


def outcomes(result) -> dict:
    """{(deadlock, ((key, shown), ...)): schedules covered}"""
    return {(c.deadlock, tuple((k, c.snapshot.describe(k)) for k in result.keys)): c.count
            for c in result.classes}


def counter_of(cls) -> str:
    return cls.snapshot.describe("counter")


# -- counting ----------------------------------------------------------------------------

def test_hand_counted_interleavings():
    two = list(sch.all_schedules({"A": 2, "B": 2}))
    assert [sch.label(s) for s in two] == ["A1 A2 B1 B2", "A1 B1 A2 B2", "A1 B1 B2 A2",
                                           "B1 A1 A2 B2", "B1 A1 B2 A2", "B1 B2 A1 A2"]
    three = list(sch.all_schedules({"A": 3, "B": 3}))
    assert len(set(three)) == len(three) == sch.count_schedules({"A": 3, "B": 3}) == 20
    assert [sch.unrank({"A": 3, "B": 3}, r) for r in range(20)] == three


@pytest.mark.asyncio
async def test_every_schedule_runs_on_the_server(pg):
    # every step writes the same key: nothing commutes, so all 6 (2x2) and 20 (3x3) run
    two = typed_scenario([("A", "APPEND k a1"), ("A", "APPEND k a2"), ("B", "APPEND k b1"), ("B", "APPEND k b2")])
    result = await explore(pg, two)
    assert (result.total, result.covered, result.runs) == (6, 6, 6)
    assert len(result.classes) == 6  # each order leaves its own string
    assert {c.snapshot.describe("k") for c in result.classes} == {
        '"a1a2b1b2"', '"a1b1a2b2"', '"a1b1b2a2"', '"b1a1a2b2"', '"b1a1b2a2"', '"b1b2a1a2"'}
    three = typed_scenario([(c, f"APPEND k {c}{i}") for c in "AB" for i in (1, 2, 3)])
    result = await explore(pg, three)
    assert (result.total, result.runs, len(result.classes)) == (20, 20, 20)


# -- lost update and its fixes -------------------------------------------------------------

@pytest.mark.asyncio
async def test_lost_update_loses_an_increment_in_four_of_six(pg):
    result = await explore(pg, scenario("lost-update"))
    assert result.total == result.covered == 6
    by_counter = {counter_of(c): c for c in result.classes}
    assert set(by_counter) == {'"5"', '"6"'}
    lost, kept = by_counter['"5"'], by_counter['"6"']
    assert (lost.count, kept.count) == (4, 2)
    assert lost.goal_reached is True and kept.goal_reached is False  # the challenge's state: counter 5
    assert lost.own and not kept.own                                 # the scripted order loses one
    assert kept.label == "A1 A2 B1 B2"


LUA_FIX = '''
title = "lost update, fixed with a script"
lesson = "GET and SET in one script."
setup = ["SET counter 4"]
[scripts]
incr = "local n = redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], n + 1) return n + 1"
[[steps]]
client = "A"
command = "EVAL $incr 1 counter"
[[steps]]
client = "B"
command = "EVAL $incr 1 counter"
'''

WATCH_FIX = '''
title = "lost update, fixed with WATCH"
lesson = "An aborted EXEC is seen by its client: it records nothing as done."
setup = ["SET counter 4"]
''' + "".join(f'''
[[steps]]
client = "{c}"
command = "WATCH counter"
[[steps]]
client = "{c}"
command = "GET counter"
save = "n"
[[steps]]
client = "{c}"
command = "MULTI"
[[steps]]
client = "{c}"
command = "SET counter ${{n+1}}"
[[steps]]
client = "{c}"
command = "RPUSH done {c}"
[[steps]]
client = "{c}"
command = "EXEC"
''' for c in "AB")


@pytest.mark.asyncio
async def test_the_fixes_never_lose_an_increment(pg, tmp_path):
    for fix in (scenario("incr-is-atomic"), write(tmp_path, "lua-fix", LUA_FIX)):
        result = await explore(pg, fix)
        assert result.covered == 2
        assert [counter_of(c) for c in result.classes] == ['"6"']
    result = await explore(pg, write(tmp_path, "watch-fix", WATCH_FIX))
    assert result.total == result.covered == 924  # 12 steps, 6 each
    assert result.runs < result.total             # queued commands commute with everything
    done = {c.snapshot.describe("done") for c in result.classes}
    # an increment is lost only if the counter says less than the commits it records
    for cls in result.classes:
        committed = len(cls.snapshot.keys["done"].items)
        assert int(counter_of(cls).strip('"')) == 4 + committed, cls.label
    assert done >= {'["A"]', '["B"]', '["A", "B"]', '["B", "A"]'}  # aborts happened, and were seen


# -- blocking -----------------------------------------------------------------------------

MAY_DEADLOCK = '''
title = "A waits for a job that B may take back"
lesson = "x"
[[steps]]
client = "A"
command = "BLPOP jobs 0"
blocking = true
[[steps]]
client = "B"
command = "RPUSH jobs j1"
[[steps]]
client = "A"
wait = true
save = "got"
[[steps]]
client = "B"
command = "LPOP jobs"
'''


@pytest.mark.asyncio
async def test_a_blocked_client_waits_and_a_stuck_schedule_is_a_deadlock(pg, tmp_path):
    result = await explore(pg, scenario("blocking-pop"))
    assert result.total == 3 and result.covered == 2  # A2 (the reply) cannot come before B1
    assert [c.label for c in result.classes] == ["A1 B1 A2"] and result.classes[0].own
    assert result.classes[0].deadlock is None

    result = await explore(pg, write(tmp_path, "deadlock", MAY_DEADLOCK))
    stuck = [c for c in result.classes if c.deadlock]
    assert len(stuck) == 1
    assert stuck[0].deadlock == "A waits in BLPOP jobs 0"
    assert stuck[0].label == "B1 B2 A1" and stuck[0].count == 1   # B took its job back first
    assert any(not c.deadlock for c in result.classes)
    assert [c.own for c in result.classes if not c.deadlock] != [False] * (len(result.classes) - 1)


# -- reduction ------------------------------------------------------------------------------

@pytest.mark.asyncio
async def test_reduced_run_agrees_with_the_exhaustive_one(pg, tmp_path):
    cases = [scenario("lost-update"), scenario("oversell"), scenario("watch-abort"),
             write(tmp_path, "deadlock", MAY_DEADLOCK),
             typed_scenario([("A", "SET x 1"), ("B", "SET y 1"), ("A", "INCR y"), ("B", "INCR x"),
                             ("A", "GET y"), ("B", "MSET x 5 y 5")])]
    fewer = 0
    for case in cases:
        reduced = await explore(pg, case)
        exhaustive = await explore(pg, case, reduce=False)
        assert outcomes(reduced) == outcomes(exhaustive), case.id
        assert reduced.covered == exhaustive.covered == exhaustive.runs, case.id
        fewer += reduced.runs < exhaustive.runs
    assert fewer >= 3


def test_class_sizes_add_up_to_every_schedule():
    # A's first step commutes with everything of B's, nothing else does
    independent = lambda x, y: (x[0], x[1]) == ("A", 0) or (y[0], y[1]) == ("A", 0)  # noqa: E731
    lengths = {"A": 2, "B": 3}
    runs = list(sch.canonical_schedules(lengths, independent))
    assert len(runs) < sch.count_schedules(lengths)
    assert sum(sch.class_size(s, independent) for s in runs) == sch.count_schedules(lengths)
    assert {sch.canonical_form(s, independent, "AB") for s in sch.all_schedules(lengths)} == set(runs)


# -- sampling ------------------------------------------------------------------------------

@pytest.mark.asyncio
async def test_past_the_limit_a_reproducible_sample(pg):
    watch_retry = scenario("watch-retry")
    first = await explore(pg, watch_retry, limit=4, reduce=False)
    again = await explore(pg, watch_retry, limit=4, reduce=False)
    other = await explore(pg, watch_retry, limit=4, reduce=False, seed=7)
    assert first.sampled and first.total == 13 and first.runs == 5  # 4 drawn, and the scenario's own order
    assert [(c.label, c.count) for c in first.classes] == [(c.label, c.count) for c in again.classes]
    assert sch.sample_schedules({"A": 12, "B": 1}, 4, 0) != sch.sample_schedules({"A": 12, "B": 1}, 4, 7)
    assert other.sampled
    assert "more than --limit 4" in render_text(first) and "seed 0" in render_text(first)
    assert len(set(sch.sample_schedules({"A": 10, "B": 10}, 1000, 3))) == 1000


# -- reports and the command --------------------------------------------------------------

@pytest.mark.asyncio
async def test_three_formats(pg):
    result = await explore(pg, scenario("lost-update"))
    text = render_text(result)
    assert "6 schedules" in text and "4 run" in text
    assert "A1 B1 A2 B2" in text and 'counter = "5"' in text
    assert "4 of 6 schedules reach the challenge's state" in text
    md = render_markdown(result)
    assert ("| 4 | `counter = \"5\"` | `A1 B1 A2 B2` | ⚠ the challenge's state<br>◀ the scenario's own order"
            "<br>no serial order gives this |") in md
    assert "| 2 | `counter = \"6\"` | `A1 A2 B1 B2` | same as A then B<br>same as B then A |" in md
    data = json.loads(render_json(result))
    assert data["schedules"] == 6 and data["covered"] == 6 and data["run"] == 4
    assert [(c["count"], c["state"]["counter"]["value"], c["goal_reached"]) for c in data["classes"]] == [
        (4, "5", True), (2, "6", False)]


@pytest.mark.asyncio
async def test_chinese_values_line_up(pg):
    result = await explore(pg, typed_scenario([("A", "SET 名字 张三"), ("B", "SET 名字 li")]))
    rows = [line for line in render_text(result).splitlines() if "名字 =" in line or "first schedule" in line]
    starts = {width(line[:re.search("A1|B1|first schedule", line).start()]) for line in rows}
    assert len(rows) == 3 and len(starts) == 1


def test_cli_bad_input_is_one_line(capsys):
    assert main(["explore", "no-such-scenario", "--server", "bundled"]) == 2
    assert main(["explore", "lost-update", "--part", "2", "--server", "bundled"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no such scenario" in err[0] and "--part 2" in err[1]


def test_cli_explores_in_chinese(capsys, server_binary):
    assert main(["explore", "lost-update", "--server", server_binary.path, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "安排 A 和 B 的先后顺序" in out and "A1 B1 A2 B2" in out


def test_free_play_input_mistakes():
    with pytest.raises(ExploreError, match="nothing typed"):
        typed_scenario([("A", "   ")])
    with pytest.raises(ExploreError, match='A> SET "x: Invalid'):
        typed_scenario([("A", 'SET "x')])


@pytest.mark.asyncio
async def test_a_class_steps_through_as_its_own_scenario(pg, tmp_path):
    from playground.explore.schedule_replay import schedule_scenario
    from playground.explore.snapshot import Snapshotter
    from playground.scenario.runner import Runner

    for case in (scenario("lost-update"), write(tmp_path, "deadlock", MAY_DEADLOCK)):
        result = await explore(pg, case)
        for cls in result.classes:
            ordered = schedule_scenario(result, cls)
            programs = programs_of(case, case.parts[0])
            commands = [c for c, i in sch.moves(cls.first) if not programs[c][i].wait]
            assert [s.client for s in ordered.parts[0].steps if not s.wait] == commands
            replay = await Runner(pg).run(ordered)
            assert replay.ok, (cls.label, replay.failed_checks)
            assert (await Snapshotter(pg).read()).signature == cls.snapshot.signature, cls.label


@pytest.mark.asyncio
async def test_a_class_stepped_through_is_narrated_in_the_interface_language(pg):
    from playground.explore.schedule_replay import schedule_scenario
    from playground.i18n import set_language, tr_in

    result = await explore(pg, scenario("lost-update", "zh"))
    cls = result.classes[0]
    label = sch.label(cls.first_run.schedule)
    try:
        set_language("zh")
        ordered = schedule_scenario(result, cls)
    finally:
        set_language("en")
    first = ordered.parts[0].steps[0]
    assert ordered.title == tr_in("zh", "{title} · schedule {label}", title=result.scenario.title, label=label)
    assert first.narration.startswith(tr_in("zh", "Move {n} of {total} in {label}: {move}.", n=1,
                                            total=len(sch.moves(cls.first_run.schedule)), label=label,
                                            move=f"{first.client}1"))
    assert schedule_scenario(result, cls).title.endswith(f" · schedule {label}")  # English again


async def test_in_the_app_pick_an_outcome_and_step_through_it(server_binary):
    from textual.widgets import OptionList

    from playground.tui.app import make_app
    from playground.tui.dialogs.explore_screen import ExploreScreen
    from pilot import log_text, wait_until
    from pilot import opened, panel_text, press_and_wait

    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ExploreScreen))
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2
        assert "A1 A2 B1 B2" in str(options.get_option_at_index(1).prompt)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: "schedule A1 A2 B1 B2" in panel_text(app) and "Press Space" in panel_text(app))
        app.scenario_run.speed_index = 0
        for _ in range(4):
            await press_and_wait(pilot, app, "space")
        assert log_text(app, "A") == ["A> GET counter", '"4"', "A> SET counter 5", "OK"]
        assert log_text(app, "B") == ["B> GET counter", '"5"', "B> SET counter 6", "OK"]


async def test_s_mid_lesson_explores_apart_and_esc_comes_back_to_the_same_step(server_binary):
    """`s` explored on the app's own server (the inspector showed a state the lesson never
    reached) and Esc threw the lesson back to step 1 with panes and keys cleared."""
    from playground.tui.app import make_app
    from playground.tui.dialogs.explore_screen import ExploreScreen
    from pilot import log_text, wait_until
    from pilot import opened, panel_text, press_and_wait

    app = make_app(server=shared(server_binary), open_scenario=scenario("lost-update"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        for _ in range(3):
            await press_and_wait(pilot, app, "space")
        lines_a, lines_b = log_text(app, "A"), log_text(app, "B")
        generation = app.playground.server.generation
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ExploreScreen), timeout=20)
        assert await send(app.executor, "B", [b"GET", b"counter"], quiet=True) == b"5"  # A's SET, nothing else
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ExploreScreen) and not app.mode_screen.busy)
        assert app.scenario_run.stepper.cursor == 3 and "step 4 of" in panel_text(app)
        assert (log_text(app, "A"), log_text(app, "B")) == (lines_a, lines_b)
        assert app.playground.server.generation == generation
        from playground.tui.dialogs.scenario_dialogs import PredictScreen

        await pilot.press("space")  # the lesson goes on: B's SET (after its question), the lost update
        await wait_until(pilot, lambda: isinstance(app.screen, PredictScreen))
        await press_and_wait(pilot, app, "1")
        assert log_text(app, "B")[-3:-1] == ["B> SET counter 5", "OK"]


async def test_free_play_in_the_app_leaves_the_keys_alone(server_binary):
    from playground.tui.app import make_app
    from playground.tui.dialogs.explore_screen import ExploreScreen
    from pilot import started, type_command, wait_until

    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        for client, line in (("A", "SET k a"), ("B", "SET k b"), ("A", "APPEND k 1")):
            await type_command(pilot, app, client, line)
        app.action_explore_typed()
        await wait_until(pilot, lambda: isinstance(app.screen, ExploreScreen), timeout=20)
        assert app.screen.result.total == 3
        assert {c.snapshot.describe("k") for c in app.screen.result.classes} == {'"a1"', '"b"', '"b1"'}
        assert await send(app.executor, "A", [b"GET", b"k"], quiet=True) == b"b1"  # untouched


def test_the_command_line_agrees_with_the_explorer_and_does_not_load_it_for_other_commands():
    """The parser is built for every command: it names the explorer's default limit and
    formats without importing the explorer (start-up of `repl`)."""
    import subprocess
    import sys

    from playground.cli import explore_command
    from playground.explore.explorer import BY, DEFAULT_LIMIT
    from playground.explore.lanes import MOST, PARALLEL_FROM
    from playground.explore.report import RENDERERS

    assert explore_command.DEFAULT_LIMIT == DEFAULT_LIMIT
    assert explore_command.FORMATS == tuple(RENDERERS)
    assert explore_command.BY == BY
    from playground.scenario.loader import EXPLORE_BY
    assert EXPLORE_BY == BY
    assert (explore_command.PARALLEL_FROM, explore_command.MOST_LANES) == (PARALLEL_FROM, MOST)
    probe = ("import sys; from playground.cli.main import build_parser; build_parser(); "
             "print('playground.explore.explorer' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


async def test_s_explores_the_part_on_screen(server_binary):
    """After a part's last step (the next Space begins the next part) and after the lesson's
    last, `s` explores the part whose replies are in the panes: it took the next step's part,
    and part 1 at the end."""
    from playground.tui.app import make_app
    from pilot import wait_until
    from pilot import opened, press_and_wait

    app = make_app(server=shared(server_binary), open_scenario=scenario("multi-no-rollback"))
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot, app)
        run = app.scenario_run
        assert run.explore_part() == 1                       # nothing ran yet: the first part
        first = len(run.scenario.parts[0].steps)
        await run.stepper.goto(first)                          # part 1 done, part 2 next
        assert run.stepper.next_step()[0] is run.scenario.parts[1]
        assert run.explore_part() == 1
        await press_and_wait(pilot, app, "e")                      # to the end (questions skipped)
        await wait_until(pilot, lambda: run.stepper.finished)
        assert run.explore_part() == 2
