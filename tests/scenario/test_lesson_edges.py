"""Small rough edges of lessons, `run`, `check` and `explore` (issue 25), each on real
servers: course order in `check`, transcripts wrapped at spaces, server steps shown as
server lines, a pending reply's annotation before the reply, a refused script never
called atomic, why-note numbers that start over on a rewind, singular counts."""

import pytest
import subprocess
import sys

from playground.engine.executor import Executor
from playground.engine.playground import Playground
from playground.explore.explorer import explore
from playground.explore.report import figures
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner
from playground.scenario.stepper import Stepper
from playground.scenario.transcript import check_line, render_text
from playground.server import make_server
from playground.server.topology import Topology
from playground.tui.app import make_app
from pilot import log_text, started, wait_until
from pilot import panel_text, press_and_wait
from servers import shared
from paths import SCENARIOS as SCENARIOS_DIR

SCENARIOS = SCENARIOS_DIR


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_check_lists_in_course_order(tmp_path, server_binary):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    for name, order in (("alpha", 2), ("beta", 1)):
        write(lessons, f"{name}.toml", f'title = "{name}"\nlesson = "l"\norder = {order}\n'
                                       '[[steps]]\nclient = "A"\ncommand = "PING"\nreply = "PONG"\n')
    out = subprocess.run([sys.executable, "-m", "playground", "check", "--server", server_binary.path, str(lessons)],
                         capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert [line.split(":")[0] for line in out[1:3]] == ["✓ beta", "✓ alpha"], out


async def test_run_transcript_wraps_at_spaces(tmp_path, pg):
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    path = write(tmp_path, "long.toml", 'title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\n'
                                        f"command = 'SET greeting \"{words}\"'\nreply = \"OK\"\n")
    text = render_text(await Runner(pg).run(load_scenario(path)))
    lines = [line.strip(" │") for line in text.splitlines()]
    for word in words.split():   # each word whole on one line (chop cut "delta" in two)
        assert any(word in line.replace('"', " ").split() for line in lines), (word, text)


BLOCKING = '''
title = "t"
lesson = "l"

[[steps]]
client = "A"
command = "BLPOP q 0"
blocking = true

[[steps]]
client = "B"
command = "RPUSH q x"

[[steps]]
client = "A"
wait = true
'''


async def test_a_pending_reply_is_announced_before_it_in_the_transcript(tmp_path, pg):
    text = render_text(await Runner(pg).run(load_scenario(write(tmp_path, "b.toml", BLOCKING))))
    lines = text.splitlines()
    note = next(i for i, line in enumerate(lines) if "(the reply to BLPOP q 0)" in line)
    reply = next(i for i, line in enumerate(lines) if '1) "q"' in line)
    assert note < reply


async def test_a_pending_reply_is_announced_before_it_in_the_pane(tmp_path, server_binary):
    app = make_app(server=shared(server_binary), open_scenario=load_scenario(write(tmp_path, "b.toml", BLOCKING)))
    async with app.run_test(size=(140, 45)) as pilot:
        await started(pilot, app)
        await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app))
        app.scenario_run.speed_index = 0
        for _ in range(3):
            await press_and_wait(pilot, app, "space")
        lines = log_text(app, "A")
        at = lines.index("(the pending reply arrives)")
        assert lines[at + 1] == "# the reply to BLPOP q 0" and lines[at + 2] == '1) "q"', lines


async def test_a_server_step_is_a_server_line_not_typed_by_a_client(server_binary):
    server = make_server(server_binary, "replica", None).spawn()
    try:
        app = make_app(open_scenario=load_scenario(SCENARIOS / "lock-lost-on-failover.toml"), server=server)
        async with app.run_test(size=(140, 45)) as pilot:
            await started(pilot, app)
            await wait_until(pilot, lambda: app.scenario_run is not None and "Press Space" in panel_text(app),
                             timeout=60)
            app.scenario_run.speed_index = 0
            await press_and_wait(pilot, app, "space")      # server = "pause-replication replica-1"
            lines = [line for client in ("A", "B") for line in log_text(app, client)]
            assert "# [server] pause-replication replica-1" in lines, lines
            assert not any(line.startswith(("A> [server]", "B> [server]")) for line in lines)
    finally:
        server.stop()


@pytest.mark.slow
async def test_a_script_refused_with_crossslot_is_not_called_atomic(server_binary):
    async with Playground(server=Topology(server_binary, "cluster", 0), clients=("A",)) as pg:
        stepper = Stepper(pg, load_scenario(SCENARIOS / "cluster-crossslot.toml"))
        await stepper.start()
        await stepper.run_to_end()
    refused = [e for e in stepper.timeline.entries if "CROSSSLOT" in e.reply and e.lines[0].startswith(("EVAL", "$"))]
    assert refused, [(e.lines, e.reply) for e in stepper.timeline.entries]
    assert all(e.note == "refused: the script did not run" and not e.atomic for e in refused)
    ran = [e for e in stepper.timeline.entries if e.note == "one script: nothing interleaves"]
    assert stepper.timeline.render_text(("A",)).count("(one script") == len(ran)   # only those that ran


async def test_why_note_numbers_start_over_on_a_rewind(pg):
    stepper = Stepper(pg, load_scenario(SCENARIOS / "watch-abort.toml"), executor=Executor(pg, explain="en"))
    runs = []
    for _ in range(2):
        await stepper.goto(0)
        await stepper.run_to_end()
        runs.append(([r.seq for r in stepper.results], [w.text for r in stepper.results for w in r.whys]))
    assert runs[0][1] and "#" in "".join(runs[0][1])
    assert runs[0] == runs[1]


@pytest.mark.slow
async def test_one_is_singular(tmp_path, pg):
    path = write(tmp_path, "req.toml", 'title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\ncommand = "NOSUCHCMD"\n'
                                       'requires = { command = "NOSUCHCMD" }\n'
                                       '[[steps]]\nclient = "A"\ncommand = "PING"\nreply = "PONG"\n')
    line = check_line(await Runner(pg).run(load_scenario(path)))
    assert ", 1 step skipped (" in line, line
    result = await explore(pg, load_scenario(SCENARIOS / "rate-limit-lua.toml"))   # its steps are bound
    assert figures(result).startswith("1 schedule ("), figures(result)


def test_open_as_a_challenge_a_lesson_without_one_says_which_have_one(tmp_path):
    """`open watch-abort --challenge` (a lesson with no challenge) on a terminal: one line
    naming the lessons that have one, exit 2, no server started (it ended in a traceback)."""
    import os
    import pty

    master, slave = pty.openpty()
    app = subprocess.Popen([sys.executable, "-m", "playground", "open", "watch-abort", "--challenge"],
                           stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                           env=dict(os.environ, TERM="xterm-256color",
                                    REDIS_PLAYGROUND_STATE_DIR=str(tmp_path)))
    os.close(slave)
    try:
        assert app.wait(timeout=60) == 2
        said = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the terminal's other side closed, all read
                break
            if not chunk:
                break
            said += chunk
    finally:
        app.kill()
        app.wait()
        os.close(master)
    lines = said.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("redis-playground: watch-abort has no challenge; these lessons have one: ")
    having = lines[0].split("have one: ")[1].split(" (")[0].split(", ")
    assert "lost-update" in having and "oversell" in having and "watch-abort" not in having
