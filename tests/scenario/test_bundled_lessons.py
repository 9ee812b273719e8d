"""The bundled library on every real server, and the list/run/check commands."""

import json
import subprocess
import sys

import pytest

from playground.scenario.library import bundled_dir, scenario_files
from playground.scenario.runner import Runner
from playground.scenario.loader import load_scenario
from paths import SHARED as SHARED_DIR

CATALOGUE = SHARED_DIR / "SCENARIOS.md"
FILES = scenario_files()
IDS = [f.stem for f in FILES]


def test_library_has_the_whole_catalogue():
    expected = {
        "watch-abort", "pcall", "refresh-double-spend", "lost-update", "incr-is-atomic", "oversell",
        "set-nx-lock", "setnx-expire-gap", "multi-queues", "multi-no-rollback", "stale-read-in-multi",
        "watch-retry", "watch-same-value", "watch-absent-key", "watch-wrong-connection", "rate-limit-lua",
        "rate-limit-gap", "compare-and-delete", "noscript", "busy-script", "session-create", "blocking-pop",
    }
    assert expected <= set(IDS)
    if CATALOGUE.exists():  # the spec, when it is beside the checkout
        import re
        assert set(re.findall(r"^### ([a-z0-9-]+) ", CATALOGUE.read_text(), re.M)) <= set(IDS)


def test_headline_scenarios_teach():
    for sid in ("watch-abort", "pcall", "refresh-double-spend"):
        s = load_scenario(bundled_dir() / f"{sid}.toml")
        assert all(step.narration for step in s.steps if not step.wait), sid
        assert any(step.predict for step in s.steps), sid
        assert any(step.pause for step in s.steps), sid


@pytest.mark.parametrize("path", FILES, ids=IDS)
async def test_bundled_scenario_passes(path, pg):
    scenario = load_scenario(path)
    if scenario.topology != "single":
        pytest.skip("a replica/cluster scenario: tests/server/test_topology.py runs it on its topology")
    result = await Runner(pg).run(scenario)
    if result.skipped and scenario.programs_need:
        pytest.skip(result.skipped)  # a program lesson whose language or library is missing here
    assert result.error is None
    assert not result.failed_checks, [(s.step.number, c.what, c.detail) for s, c in result.failed_checks]
    assert result.check_count > 0
    # every step with a deterministic reply asserts it
    for step in result.steps:
        if step.skipped is None and step.note is None:
            assert step.step.has_reply_check or step.step.server_stops, (scenario.id, step.step.number)


async def test_a_wrong_expectation_fails_loudly(tmp_path, pg):
    text = (bundled_dir() / "lost-update.toml").read_text().replace('counter = "5"', 'counter = "6"')
    path = tmp_path / "lost-update.toml"
    path.write_text(text)
    result = await Runner(pg).run(load_scenario(path))
    assert not result.ok
    (step, check), = result.failed_checks
    assert check.what == "state counter" and "expected '6', got '5'" in check.detail


async def test_unexpected_block_fails_and_does_not_hang(tmp_path, pg):
    path = tmp_path / "block.toml"
    path.write_text('title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\ncommand = "BLPOP q 0"\n'
                    '[[steps]]\nclient = "A"\ncommand = "PING"\nreply = "PONG"\n')
    result = await Runner(pg).run(load_scenario(path))
    assert "blocked" in result.failed_checks[0][1].detail
    assert result.steps[1].ok  # the client was reconnected and goes on


async def test_requirement_skips_a_step_with_a_note(tmp_path, pg):
    path = tmp_path / "req.toml"
    path.write_text('title = "t"\nlesson = "l"\n[[steps]]\nclient = "A"\ncommand = "NOSUCHCMD"\n'
                    'requires = { command = "NOSUCHCMD" }\nreply = "x"\n'
                    '[[steps]]\nclient = "A"\ncommand = "PING"\nreply = "PONG"\n')
    result = await Runner(pg).run(load_scenario(path))
    assert result.ok and "NOSUCHCMD" in result.steps[0].skipped


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_list_command():
    result = run_cli("list")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(FILES)
    assert any(line.startswith("watch-abort ") and "[watch, transactions, headline]" in line for line in lines)
    # full ids, however long, and the titles in one column after two spaces
    ids = [path.stem for path in FILES]
    width = max(map(len, ids))
    assert all(line[:width].rstrip() in ids and line[width:width + 2] == "  " and line[width + 2] != " "
               for line in lines), lines


def test_list_shows_a_long_id_whole(tmp_path):
    long_id = "a-rather-long-lesson-identifier-for-the-class"
    (tmp_path / f"{long_id}.toml").write_text('title = "Long"\nlesson = "l"\n'
                                              '[[steps]]\nclient = "A"\ncommand = "PING"\n')
    result = run_cli("list", "--scenarios", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert any(line.startswith(long_id + "  Long") for line in result.stdout.splitlines()), result.stdout


def test_run_format_md_is_markdown(server_binary):
    result = run_cli("run", "lost-update", "--format", "md", "--server", server_binary.path)
    assert result.returncode == 0 and result.stdout.startswith("## lost-update — "), result.stderr


def test_check_command_passes_and_counts(server_binary):
    result = run_cli("check", "--server", server_binary.path, "watch-abort", "pcall", "compare-and-delete")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 5 and lines[-1] == "3 passed, 0 failed"
    # the first line names the server it ran on: flavour and version
    assert lines[0].startswith(f"on {server_binary.flavour} {server_binary.version}")
    assert lines[1].startswith("✓ watch-abort")


def test_check_command_fails_with_exit_1(tmp_path, server_binary):
    bad = tmp_path / "bad-counter.toml"
    bad.write_text((bundled_dir() / "incr-is-atomic.toml").read_text().replace("(integer) 6", "(integer) 7"))
    broken = tmp_path / "broken.toml"
    broken.write_text("title = 1\n")
    result = run_cli("check", "--server", server_binary.path, str(bad), "incr-is-atomic", str(broken))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[1].startswith("✗ bad-counter: step 2 (B> INCR counter): reply: expected '(integer) 7'")
    assert lines[2].startswith("✓ incr-is-atomic")
    assert lines[3].startswith("✗ ") and "broken.toml: title" in lines[3]
    assert lines[-1] == "1 passed, 2 failed"


def test_run_json_lines(server_binary):
    result = run_cli("run", "watch-abort", "--format", "json", "--server", server_binary.path)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["step"] for r in rows] == list(range(1, len(rows) + 1))
    exec_row = rows[5]
    assert exec_row["client"] == "A" and exec_row["command"] == "EXEC" and exec_row["reply"] == "(nil)\n"
    assert exec_row["checks"] and all(c["ok"] for c in exec_row["checks"])
    b_row = rows[2]
    assert b_row["state"]["balance"] == {"type": "string", "ttl": -1, "value": "200"}


def test_run_text_and_markdown(server_binary):
    text = run_cli("run", "multi-queues", "--server", server_binary.path)
    assert text.returncode == 0
    assert "B> GET a" in text.stdout and "1) OK" in text.stdout and "✓" in text.stdout
    md = run_cli("run", "multi-queues", "--format", "markdown", "--server", server_binary.path)
    assert md.returncode == 0
    assert md.stdout.startswith("## multi-queues — ") and "| # | A | B | checks | what happens |" in md.stdout


async def test_setup_runs_as_the_scenarios_first_client_and_its_state_is_tracked(tmp_path, pg):
    """Setup goes in the reset's round trip of the scenario's first client (here B); a
    WATCH in setup is that client's, and its state shows it as after `execute`."""
    path = tmp_path / "setup.toml"
    path.write_text('title = "t"\nlesson = "l"\nclients = ["B", "A"]\n'
                    'setup = ["SET k 1", "CLIENT SETNAME setter", "WATCH k"]\n'
                    '[[steps]]\nclient = "B"\ncommand = "CLIENT GETNAME"\nreply = \'"setter"\'\n'
                    '[[steps]]\nclient = "A"\ncommand = "CLIENT GETNAME"\nreply = \'"A"\'\n')
    result = await Runner(pg).run(load_scenario(path))
    assert result.ok, [(s.step.number, c.detail) for s, c in result.failed_checks]
    assert pg.session("B").state.watched == (b"k",) and pg.session("A").state.watched == ()
