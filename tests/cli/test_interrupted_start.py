"""Ctrl+C at any point of start-up ends the command with status 130 and no traceback
(cli/launch.py while it imports and reads the command line; cli/main.py's
KeyboardInterrupt path once it runs its command, every `finally` stopping the servers).
Before, a SIGINT while argparse built the parser printed a traceback.

No timing: the child sends itself SIGINT when start-up first calls a given function of
ours (a profile hook), so each phase is hit exactly, the same on a loaded machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.server, pytest.mark.slow]

SRC = str(Path(__file__).resolve().parents[2] / "src")

CHILD = r"""
import os, signal, sys
target = sys.argv[1]
def hook(frame, event, arg):
    if event == "call" and frame.f_code.co_name == target and "playground" in frame.f_code.co_filename:
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGINT)
sys.argv = ["redis-playground", *sys.argv[2:]]
sys.setprofile(hook)
from playground.cli.launch import entry
entry()
"""

# start-up's steps for `repl --topology cluster`, in order: importing the command (N_: its
# texts), reading the command line, starting the nodes, forming the cluster, the clients
PHASES = ["N_", "set_language", "build_parser", "parse_args", "_given_url", "_url_address", "create", "start",
          "form_cluster", "wait_cluster_ok", "run_repl"]


@pytest.mark.parametrize("phase", PHASES)
def test_sigint_while_a_cluster_repl_starts_ends_quietly(server_binary, phase, tmp_path):
    env = dict(os.environ, PYTHONPATH=SRC, TMPDIR=str(tmp_path))
    env.pop("REDIS_PLAYGROUND_SERVER", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, phase, "--server", server_binary.path,
                           "--topology", "cluster", "repl"],
                          input=b"A> PING\n", capture_output=True, timeout=120, env=env, check=False)
    err = proc.stderr.decode(errors="replace")
    assert "Traceback" not in err and "Exception" not in err, err
    assert proc.returncode == 130, (proc.returncode, err)
    assert proc.stdout == b""  # it never got to run the line
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("redis-playground-")]  # no node left its dir
