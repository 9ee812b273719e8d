"""The loader reads only regular files of a sane size: a FIFO named *.toml (or a device,
a socket) is refused before it is opened, so `run`, `list --scenarios DIR` and `check
--scenarios DIR` never hang on one; a file over the size limit says it is too big; a
session or a scenario has at most MAX_CLIENTS clients, and --help says so."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from playground.scenario.loader import MAX_FILE_BYTES, load_scenario
from playground.scenario.model import ScenarioError

MAX_CLIENTS = 16  # the documented limit (README, --help, docs/scenarios.md)

LESSON = 'title = "t"\nlesson = "l"\n\n[[steps]]\nclient = "A"\ncommand = "PING"\nreply = "PONG"\n'


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command in a child process, with a deadline: a hang fails the test, not the run."""
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifo_dir(tmp_path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "good.toml").write_text(LESSON)
    os.mkfifo(folder / "pipe.toml")
    return folder


def test_run_refuses_a_fifo(fifo_dir):
    result = cli("run", str(fifo_dir / "pipe.toml"))
    assert result.returncode == 2
    said = f"redis-playground: {fifo_dir / 'pipe.toml'}: a FIFO (named pipe), not a scenario file"
    assert result.stderr.strip() == said


def test_list_goes_on_past_a_fifo(fifo_dir):
    result = cli("list", "--scenarios", str(fifo_dir))
    assert result.returncode == 1
    assert "a FIFO (named pipe), not a scenario file" in result.stderr and "Traceback" not in result.stderr
    assert any(line.startswith("good ") for line in result.stdout.splitlines())


def test_check_reports_a_fifo_as_broken(fifo_dir):
    result = cli("check", "--scenarios", str(fifo_dir), "pipe", "good")
    assert result.returncode == 1
    assert "✗ " + str(fifo_dir / "pipe.toml") + ": a FIFO (named pipe), not a scenario file" in result.stdout
    assert "✓ good" in result.stdout and "1 passed, 1 failed" in result.stdout


def test_devices_and_sockets_are_refused(tmp_path):
    with pytest.raises(ScenarioError, match="a device, not a scenario file"):
        load_scenario("/dev/zero")  # (read, it would never end)
    path = tmp_path / "s.toml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(ScenarioError, match="a socket, not a scenario file"):
            load_scenario(path)


@pytest.mark.parametrize("filler", ["# a comment\n", "x = 1" + "1" * 5000 + "\n"], ids=["comments", "a long number"])
def test_a_file_over_the_limit_says_it_is_too_big(tmp_path, filler):
    path = tmp_path / "big.toml"
    path.write_text(LESSON + filler * (MAX_FILE_BYTES // len(filler) + 1))
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value) == f"{path}: too big for a scenario (more than 4 MB)"


def test_a_long_number_in_a_small_file_keeps_its_own_message(tmp_path):
    path = tmp_path / "number.toml"
    path.write_text(LESSON + "order = " + "1" * 5000 + "\n")
    with pytest.raises(ScenarioError, match="a number of more than 4300 digits"):
        load_scenario(path)


def test_a_scenario_has_at_most_max_clients(tmp_path):
    names = ["A"] + [f"c{i}" for i in range(MAX_CLIENTS)]
    path = tmp_path / "crowd.toml"
    path.write_text(f"clients = {names!r}\n".replace("'", '"') + LESSON)
    with pytest.raises(ScenarioError, match=f"at most {MAX_CLIENTS} clients"):
        load_scenario(path)
    path.write_text(f"clients = {names[:MAX_CLIENTS]!r}\n".replace("'", '"') + LESSON)
    assert len(load_scenario(path).clients) == MAX_CLIENTS


def test_clients_option_has_a_documented_limit():
    names = ",".join(f"c{i}" for i in range(MAX_CLIENTS + 1))
    result = cli("repl", "--clients", names)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(f": error: argument --clients: at most {MAX_CLIENTS} clients")
    assert f"at most {MAX_CLIENTS}" in " ".join(cli("--help").stdout.split())
