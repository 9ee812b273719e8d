"""Free play's "Could it have gone differently?" for programs the learner started by hand
against the gate (Ctrl+G): each schedule runs the same programs again (same command
line, same directory, same environment but REDIS_URL), on a server of the exploration's
own. Real redis-py programs, started as a learner would (a relative path, in a directory
of their own), on both real servers. The explorer's outcomes are compared with the
programs themselves run one after the other, to their ends, in both orders."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap

import pytest

from playground.explore.explorer import ExploreError
from playground.explore.free_play import explore_typed, hand_programs
from playground.explore.report import render_text
from playground.gate.endpoint import Gate, socket_path
from servers import shared
from playground.server import choose_binary

pytest.importorskip("redis")

READ_MODIFY_WRITE = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
value = int(r.get("counter") or 0)
r.set("counter", value + 1)
'''
INCR = '''
import os, redis
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.incr("counter")
'''


async def start(url: str, directory, env: dict | None = None) -> asyncio.subprocess.Process:
    """`REDIS_URL=url python p.py` in `directory`, as from a shell (with `env` too)."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "p.py", cwd=directory, env=dict(os.environ, REDIS_URL=url, **(env or {})),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def ended(process) -> None:
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, err.decode()


async def by_hand(pg, tmp_path, source: str, steps: str, env: dict | None = None):
    """Two programs started by hand at a free-play gate (as Ctrl+G opens it), their
    commands let through one at a time in `steps` ("0101": the first program's, the
    second's ...), each then to its end. The gate, still open, and its URL."""
    (tmp_path / "p.py").write_text(textwrap.dedent(source))
    gate = Gate.for_playground(pg)
    url = await gate.listen(None)
    processes = []
    for i in range(2):
        processes.append(await start(url, tmp_path, env))
        assert await gate.wait_for(lambda i=i: len(gate.clients) > i and gate.clients[i].next, 30)
    for i in map(int, steps):
        held = await gate.wait_for(lambda i=i: gate.clients[i].next, 30)
        gate.release(held)
        await held.done
    for process in processes:
        await ended(process)
    return gate, url


async def serially(pg, tmp_path) -> set[str]:
    """The final counter of the two programs run one after the other, to their ends, in
    each order (they are the same program: both orders are one), through a gate that
    lets everything through: no explorer."""
    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen("serial")
        gate.run_free()
        seen = set()
        for _ in range(2):
            await pg.session("A").execute([b"DEL", b"counter"])
            for _ in range(2):
                await ended(await start(url, tmp_path))
            seen.add(f'"{(await pg.session("A").execute([b"GET", b"counter"])).decode()}"')
        return seen
    finally:
        await gate.close()


def outcomes(result) -> dict[str, int]:
    return {c.snapshot.describe("counter"): c.count for c in result.classes}


@pytest.mark.slow
async def test_two_read_modify_write_programs_started_by_hand(pg, tmp_path, server_binary):
    gate, url = await by_hand(pg, tmp_path, READ_MODIFY_WRITE, "0101")  # both GET, then both SET: 1
    programs, order = hand_programs(gate, url)
    await gate.close()
    assert [(p.client, p.argv, p.by_hand.cwd) for p in programs] == [
        ("C", (sys.executable, "p.py"), str(tmp_path)), ("D", (sys.executable, "p.py"), str(tmp_path))]
    # named after their script; two processes of it apart (not "python#1", "python#2": one program's two
    # connections, as the programs panel read)
    assert [c.name for c in gate.clients] == ["p.py#1", "p.py (2)#1"]
    assert order == ("C", "D", "C", "D")
    assert await pg.session("A").execute([b"GET", b"counter"]) == b"1"   # the lost update, as it happened

    result = await explore_typed([], ("A", "B"), choose_binary(server_binary.path), programs=programs, order=order)
    assert result.total == 6 and result.runs == 4 and not result.sampled   # GET, SET each: the GETs commute
    assert outcomes(result) == {'"1"': 4, '"2"': 2}
    serial = await serially(pg, tmp_path)
    assert serial == {'"2"'} and set(outcomes(result)) == serial | {'"1"'}
    lost, = [c for c in result.classes if c.snapshot.describe("counter") == '"1"']
    assert not lost.serial and result.serial_known
    assert lost.own and result.own_order == ("C", "D", "C", "D")   # the order it ran in at the gate
    text = render_text(result)
    assert "6 schedules (every interleaving that keeps each client's order): 4 run," in text
    assert "◀ the order it ran in" in text and "the order you typed" not in text
    assert f"each further command {sys.executable} p.py sends" in text


@pytest.mark.slow
async def test_two_incr_programs_started_by_hand(pg, tmp_path, server_binary):
    gate, url = await by_hand(pg, tmp_path, INCR, "01")
    programs, order = hand_programs(gate, url)
    await gate.close()
    result = await explore_typed([], ("A", "B"), choose_binary(server_binary.path), programs=programs, order=order)
    assert result.total == result.runs == 2
    assert set(outcomes(result)) == await serially(pg, tmp_path) == {'"2"'}
    assert "Every schedule ends the same" in render_text(result)


@pytest.mark.slow
async def test_typed_lines_and_programs_are_explored_together(pg, tmp_path, server_binary):
    """A's SET goes before, between or after the two INCRs: three outcomes (the programs
    ignored: one). No own order is claimed: the lines and the programs' commands are
    not numbered in one order here. The key comes from the programs' own environment:
    each is run again with it."""
    gate, url = await by_hand(pg, tmp_path, INCR.replace('"counter"', 'os.environ["KEY"]'), "01", {"KEY": "counter"})
    programs, order = hand_programs(gate, url)
    await gate.close()
    result = await explore_typed([("A", "SET counter 10")], ("A", "B"), choose_binary(server_binary.path),
                                 programs=programs, order=order)
    assert result.runs == 6
    assert set(outcomes(result)) == {'"10"', '"11"', '"12"'}
    assert result.own_order is None and not any(c.own for c in result.classes)
    assert "◀" not in render_text(result)


@pytest.mark.parametrize("quiet", [False, True], ids=["fails", "swallows the error"])
async def test_a_program_that_names_the_gate_itself_is_refused_there_when_run_again(pg, tmp_path, server_binary,
                                                                                    quiet):
    """A program that ignores REDIS_URL and connects to the playground's gate by its path
    (written into its source, so not pointed elsewhere when run again): the gate refuses
    its runs for the exploration (the learner's counter is not changed once per
    schedule), and the exploration says so in one line, not outcomes without it; also
    when the program swallows the error and ends well, having sent nothing."""
    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen(None)
        source = textwrap.dedent(READ_MODIFY_WRITE).replace(
            'redis.Redis.from_url(os.environ["REDIS_URL"])', f"redis.Redis(unix_socket_path={socket_path(url)!r})")
        if quiet:
            source = "try:\n" + textwrap.indent(source, "    ") + "except redis.RedisError:\n    pass\n"
        (tmp_path / "p.py").write_text(source)
        processes = []
        for i in range(2):
            processes.append(await start(url, tmp_path))
            assert await gate.wait_for(lambda i=i: len(gate.clients) > i and gate.clients[i].next, 30)
        gate.run_free()
        for process in processes:
            await ended(process)
        programs, order = hand_programs(gate, url)
        assert sorted(order) == ["C", "C", "D", "D"]  # both GETs held, then let through at once (in either order)
        assert await pg.session("A").execute([b"GET", b"counter"]) == b"1"
        clients = len(gate.clients)
        said = (r"^p\.py#1, p\.py \(2\)#1: sent no command when run again for the exploration, .* "
                r"\(REDIS_URL\), not to an address written into it$") if quiet else \
            r"^free-play: program C \(.*p\.py\) exited with status 1: .*; program D \(.*p\.py\) exited with status 1: "
        # (its error: the gate's refusal, or the connection it then closed: as redis-py meets them)
        with pytest.raises(ExploreError, match=said):
            await explore_typed([], ("A", "B"), choose_binary(server_binary.path), programs=programs, order=order)
        assert await pg.session("A").execute([b"GET", b"counter"]) == b"1"  # no run reached it
        assert len(gate.clients) == clients  # nor was taken for a program of its own
    finally:
        await gate.close()


async def test_a_program_whose_start_cannot_be_known_is_named(pg):
    """A TCP peer: the kernel tells no pid, so no command line. One line naming it,
    not an exploration that leaves it out."""
    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen(None, tcp=True)
        port = int(url.rpartition(":")[2])
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            assert await gate.wait_for(lambda: gate.clients, 30)
            with pytest.raises(ExploreError, match=r"^program#1: how it was started cannot be known .* "
                                                   r"cannot be run again for each order$"):
                hand_programs(gate, url)
        finally:
            writer.close()
    finally:
        await gate.close()


@pytest.mark.slow
async def test_in_the_app_programs_started_by_hand_are_explored_apart(server_binary, tmp_path, monkeypatch):
    """Ctrl+G, two programs started by hand, Ctrl+N four times (both GETs, then both SETs:
    the update is lost), then the palette's "Could it have gone differently?": both
    outcomes, found on a server of its own (the app's counter stays as it was)."""
    import subprocess

    from playground.tui.app import make_app
    from playground.tui.dialogs.explore_screen import ExploreScreen
    from commands import send
    from pilot import gate_opened, hear_notices, notices, started, wait_until

    hear_notices(monkeypatch)
    (tmp_path / "p.py").write_text(textwrap.dedent(READ_MODIFY_WRITE))
    app = make_app(server=shared(server_binary))
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        await gate_opened(pilot, app)
        gate, processes = app.own_programs.gate, []
        try:
            for i in range(2):
                processes.append(subprocess.Popen([sys.executable, "p.py"], cwd=tmp_path, start_new_session=True,  # noqa: ASYNC220 (a user's program, polled)
                                                  env=dict(os.environ, REDIS_URL=app.own_programs.url),
                                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                await wait_until(pilot, lambda i=i: len(gate.clients) > i and gate.clients[i].next, timeout=30)
            for n in range(1, 5):
                await pilot.press("ctrl+n")
                await wait_until(pilot, lambda n=n: len([h for h in gate.log if h.seq is not None]) == n, timeout=30)
            for process in processes:
                await wait_until(pilot, lambda process=process: process.poll() is not None, timeout=30)
                assert process.returncode == 0, process.stderr.read().decode()
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()
                process.communicate()
        assert await send(app.executor, "A", [b"GET", b"counter"], quiet=True) == b"1"
        app.action_explore_typed()
        await wait_until(pilot, lambda: isinstance(app.screen, ExploreScreen), timeout=60)
        result = app.screen.result
        assert set(result.scenario.programs) == {"C", "D"}   # both programs (the screen that ran it named them)
        assert {c.snapshot.describe("counter"): c.count for c in result.classes} == {'"1"': 4, '"2"': 2}
        assert result.own_order == ("C", "D", "C", "D")
        assert await send(app.executor, "A", [b"GET", b"counter"], quiet=True) == b"1"  # untouched
        await pilot.press("enter")   # (stepping through needs a pane per program: one line says so)
        await wait_until(pilot, lambda: any("cannot be stepped through in the panes yet: C1 D1 C2 D2" in m
                                            for m in notices(app)))
        assert app.scenario_run is None and not isinstance(app.screen, ExploreScreen)


async def test_the_plan_counts_the_commands_programs_sent_that_wait_at_the_gate(pg, tmp_path):
    """Two programs started by hand whose first commands still wait at the gate (nothing
    let through yet) and two lines typed: the plan told before the first order runs is the
    orders of those four commands (4! = 24), not of the typed lines alone (2)."""
    from playground.explore.free_play import _program_progress, typed_scenario

    (tmp_path / "p.py").write_text(textwrap.dedent(READ_MODIFY_WRITE))
    gate = Gate.for_playground(pg)
    url = await gate.listen(None)
    processes = []
    try:
        for i in range(2):
            processes.append(await start(url, tmp_path))
            assert await gate.wait_for(lambda i=i: len(gate.clients) > i and gate.clients[i].next, 30)
        programs, order = hand_programs(gate, url)
        assert ([p.held for p in programs], order) == ([1, 1], ())
        typed = [("A", "SET counter 10"), ("B", "INCR counter")]
        scenario = typed_scenario(typed, programs=programs, order=order)
        told = []
        _program_progress(lambda *plan: told.append(plan), scenario, programs, order, 2000)(0, 0, 0, False)
        assert told == [(0, 24, 24, False)]
    finally:
        await gate.close()   # (their held commands fail: the programs end)
        for process in processes:
            await asyncio.wait_for(process.communicate(), 30)


def test_a_search_that_stopped_at_its_limit_says_so_for_programs_started_by_hand():
    """Free play's programs are a search (explore/program_moves.py), not a sample: no seed,
    and one outcome seen is not "every schedule ends the same" when not every schedule ran."""
    from playground.explore.free_play import HandProgram, typed_scenario
    from playground.explore.outcomes import Exploration, OutcomeClass
    from playground.explore.report import figures, summary_line
    from playground.gate.programs import ByHand

    programs = [HandProgram(c, f"python#{n}", ("python", "p.py"), ByHand("/tmp", (), "/tmp/gate-any.sock"))
                for n, c in enumerate("CD", 1)]
    scenario = typed_scenario([], programs=programs, order=("C", "D"))
    result = Exploration(scenario, scenario.parts[0], 1, "server", {"C": [], "D": []}, 2500, runs=2000,
                         sampled=True, limit=2000, classes=[OutcomeClass(None, None, ("C", "D"), 2000, 2000)])
    assert figures(result) == ("At least 2,500 schedules: more than 2,000, so the search stopped after the first "
                               "2,000, and the serial orders ran too.")
    assert summary_line(result) == "Every schedule run ends the same."
    result.sampled, result.total = False, 2000
    assert summary_line(result) == "Every schedule ends the same."


@pytest.mark.slow
async def test_no_own_order_is_claimed_when_the_programs_send_otherwise_on_a_fresh_server(pg, tmp_path, server_binary):
    """At the free-play gate `flag` was there already (typed long ago), so each program sent
    GET flag, INCR n; on the exploration's fresh server the first sets it too: the first
    schedule is not the order the commands ran in, and is not marked as such."""
    await pg.session("A").execute([b"SET", b"flag", b"typed"])
    gate, url = await by_hand(pg, tmp_path, '''
        import os, redis
        r = redis.Redis.from_url(os.environ["REDIS_URL"])
        if r.get("flag") is None:
            r.set("flag", "program")
        r.incr("n")
        ''', "0011")
    programs, order = hand_programs(gate, url)
    await gate.close()
    assert order == ("C", "C", "D", "D")
    result = await explore_typed([], ("A", "B"), choose_binary(server_binary.path), programs=programs, order=order)
    assert {c.snapshot.describe("n") for c in result.classes} == {'"2"'}
    assert result.own_order is None and not any(c.own for c in result.classes)
    assert "◀" not in render_text(result)


async def test_a_program_given_the_gates_socket_on_its_command_line_reaches_the_explorations_gate(
        pg, tmp_path, server_binary):
    """`python p.py /…/gate-any.sock`: each run goes to the exploration's own gate, never
    to the playground's (still open here, and still with only the two first connections)."""
    from playground.gate.endpoint import socket_path

    (tmp_path / "p.py").write_text(textwrap.dedent('''
        import sys, redis
        redis.Redis(unix_socket_path=sys.argv[1]).incr("counter")
        '''))
    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen(None)
        gate.run_free()
        for _ in range(2):
            process = await asyncio.create_subprocess_exec(
                sys.executable, "p.py", socket_path(url), cwd=tmp_path,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            await ended(process)
        programs, order = hand_programs(gate, url)
        assert order == ("C", "D") and programs[0].argv == (sys.executable, "p.py", socket_path(url))
        result = await explore_typed([], ("A", "B"), choose_binary(server_binary.path), programs=programs, order=order)
        assert outcomes(result) == {'"2"': 2}
        assert len(gate.clients) == 2 and await pg.session("A").execute([b"GET", b"counter"]) == b"2"
    finally:
        await gate.close()


async def test_a_program_started_by_hand_is_named_after_its_script_and_its_connections_numbered(pg, tmp_path):
    """One process, two connections: p.py#1 and p.py#2 (one program); started again, the
    second process is p.py (2), numbered from #1 again."""
    (tmp_path / "p.py").write_text(textwrap.dedent('''
        import os, redis
        first, second = (redis.Redis.from_url(os.environ["REDIS_URL"]) for _ in range(2))
        first.set("a", 1)
        second.set("b", 2)
        '''))
    gate = Gate.for_playground(pg)
    try:
        url = await gate.listen(None)
        gate.run_free()
        for _ in range(2):
            await ended(await start(url, tmp_path))
        assert [c.name for c in gate.clients] == ["p.py#1", "p.py#2", "p.py (2)#1", "p.py (2)#2"]
    finally:
        await gate.close()
