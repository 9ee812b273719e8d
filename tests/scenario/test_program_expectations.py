"""A lesson of programs alone says what must hold at the end of each part: the final
keys, each program's exit status and return value (`expect`), checked by `run` and
`check` on each server; and `--pace` waits before each move of its programs, the
lesson's time held meanwhile, as before each step."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import redis

from playground.cli.main import main
from playground.errors import ScenarioError
from playground.scenario import transcript
from playground.scenario.expectations import same_value
from playground.scenario.loader import load_scenario
from playground.scenario.runner import Runner

LESSONS = Path(__file__).parent / "lessons"


def test_a_return_value_is_compared_as_a_value():
    assert same_value("'charged'", "charged") and same_value("b'charged'", "charged")
    assert same_value("(1, 'a')", [1, "a"]) and same_value("{'n': b'1'}", {"n": "1"})
    assert same_value("True", True) and not same_value("True", 1) and not same_value("1", True)
    assert same_value("<Thing at 0x1>", "<Thing at 0x1>")     # no literal: its repr, exactly
    assert not same_value("'duplicate'", "charged") and not same_value("None", "None!")
    assert same_value("None", "None")


@pytest.mark.server
async def test_check_judges_the_final_keys_and_each_programs_end(pg, private_server):
    lesson = load_scenario(LESSONS / "charge-once.toml")
    result = await Runner(pg, lesson_time=True).run(lesson)
    assert result.ok, (result.error, [(e.part, c.what, c.detail) for e, c in result.failed_end_checks])
    first, fixed = result.ends
    assert {c: (o.status, o.returned) for c, o in first.outcomes.items()} == {
        "A": (0, "'charged'"), "B": (0, "'duplicate'")}
    assert [c.what for c in fixed.checks] == ["state total", "state charged:o1", "return value A",
                                              "exit status B", "return value B"]
    # the server's own state at the end: what the checks said
    r = redis.Redis(unix_socket_path=private_server.socket_path)
    assert r.get("total") == b"1" and r.get("charged:o1") == b"yes"
    r.close()
    line = transcript.check_line(result)
    assert line == "✓ charge-once: 9 checks passed"
    text = transcript.render_text(result)
    assert "A: exit status 0, returned 'charged'" in text and "no checks: the programs ran" not in text


@pytest.mark.server
async def test_an_expectation_that_does_not_hold_fails_the_check_in_one_line(pg, tmp_path):
    text = (LESSONS / "charge-once.toml").read_text().replace('[parts.expect.state]\ntotal = "1"\n"charged:o1"',
                                                              '[parts.expect.state]\ntotal = "2"\n"charged:o1"')
    path = tmp_path / "charge-wrong.toml"
    path.write_text(text)
    (tmp_path / "programs").mkdir()
    for program in (LESSONS / "programs").iterdir():
        (tmp_path / "programs" / program.name).write_text(program.read_text())
    result = await Runner(pg, lesson_time=True).run(load_scenario(path))
    assert not result.ok and result.error is None
    assert transcript.check_line(result) == \
        "✗ charge-wrong: part 'SET NX': at the end: state total: expected '2', got '1'"


@pytest.mark.server
async def test_an_expected_exit_status_is_a_check_not_a_failure(pg, tmp_path):
    lesson = load_scenario(LESSONS / "worker-crash.toml")
    result = await Runner(pg, lesson_time=True).run(lesson)
    assert result.ok and result.error is None
    end, = result.ends
    assert end.outcomes["A"].status == 3 and end.outcomes["A"].returned is None
    # the job is pending for the worker that died: the server says so
    pending, = await pg.reader.run([[b"XPENDING", b"jobs", b"workers"]])
    assert int(pending[0]) == 1
    # without the expectation, the same exit ends the run with one line naming the program
    path = tmp_path / "worker-crash.toml"
    path.write_text((LESSONS / "worker-crash.toml").read_text().replace("[expect.programs.A]\nstatus = 3\n", ""))
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "worker_crash.py").write_text((LESSONS / "programs" / "worker_crash.py").read_text())
    plain = await Runner(pg, lesson_time=True).run(load_scenario(path))
    assert plain.error.startswith("program A (python programs/worker_crash.py) exited with status 3")


@pytest.mark.server
async def test_pace_waits_before_each_program_move_with_the_lessons_time_held(pg):
    """0.6 s before each of the program's moves (three GETs), a 0.4 s lease: the run takes
    at least the pace's 1.8 s (a sleep is never shorter), and the lease, held meanwhile,
    is still there at the end."""
    lesson = load_scenario(LESSONS / "lease-paced.toml")
    started = time.monotonic()
    held = await Runner(pg, lesson_time=True, pace=0.6).run(lesson)
    assert time.monotonic() - started >= 3 * 0.6
    assert len([s for s in held.steps if s.argv]) == 3
    assert held.ok, [(c.what, c.detail) for _, c in held.failed_end_checks]


def test_expect_mistakes_are_one_line(tmp_path):
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "charge.py").write_text((LESSONS / "programs" / "charge.py").read_text())
    head = 'title = "t"\nlesson = "x"\n[programs]\nA = ["python", "x.py"]\n' \
           'B = { function = "programs/charge.py:charge", args = ["o"] }\n'
    cases = {
        "[expect.programs.A]\nreturns = 1\n":
            "expect.programs.A.returns: A is a command line, not a function: it returns no value",
        "[expect.programs.C]\nstatus = 0\n": "expect.programs.C: C is not a program (programs: A, B)",
        "[expect.programs.B]\nstatus = 300\n": "expect.programs.B.status: an exit status: a whole number from 0 to 255",
        "[expect.programs.B]\ncolour = 1\n": "expect.programs.B.colour: unknown field",
        "[expect]\nfinal = 1\n": "expect.final: unknown field",
    }
    for body, message in cases.items():
        path = tmp_path / "bad.toml"
        path.write_text(head + body)
        with pytest.raises(ScenarioError) as caught:
            load_scenario(path)
        assert message in str(caught.value), (body, str(caught.value))
        assert "\n" not in str(caught.value)
    path = tmp_path / "parts.toml"
    path.write_text(head + '[expect.state]\nk = "1"\n[[parts]]\nname = "p"\n')
    with pytest.raises(ScenarioError, match="parts: use either top-level setup/steps/expect or"):
        load_scenario(path)


@pytest.mark.server
def test_run_prints_the_end_and_json_has_it(server_binary, capsys):
    code = main(["run", str(LESSONS / "charge-once.toml"), "--server", server_binary.path])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("At the end:") == 2 and "B: exit status 0, returned 'duplicate'" in out
    assert "✓ 9 of 9 checks passed" in out
    code = main(["run", str(LESSONS / "charge-once.toml"), "--server", server_binary.path, "--format", "json"])
    ends = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"end": true' in line]
    assert code == 0 and [e["part"] for e in ends] == ["check, then charge", "SET NX"]
    assert ends[1]["programs"]["A"] == {"status": 0, "returned": "'charged'"}
