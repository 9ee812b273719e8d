"""Every shell example in README.md and docs/*.md runs (issue 44: docs/lessons.md gave
`open watch-abort --challenge`, which exits 2).

Each `redis-playground ...` example is run as written, in a directory holding the files the
examples name (my.toml, my-lesson.toml, slow-lesson.toml, my-lessons/: a bundled lesson of
two parts). Those that start the app (no subcommand, `open`) are run without a terminal:
they must get past every check of their arguments and their lesson to the app's one line
"the app needs a terminal". `repl` answers a PING from stdin. A synopsis (an upper-case
placeholder: ID, SECONDS) is parsed with the real parser. `serve` runs until stopped and
the class examples name a class server on another machine: parsed only, never run. Any
other shell line must be one of EXEMPT, with the reason it is not run here.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from playground.cli.main import build_parser
from playground.scenario.library import bundled_dir

pytestmark = [pytest.mark.server, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SAMPLE = "multi-no-rollback"  # two parts, one server: what my.toml and the others stand for
NEEDS_TERMINAL = "the app needs a terminal"

EXEMPT = {
    "python3 -m venv .venv && . .venv/bin/activate": "makes a virtual environment (the suite runs in one)",
    "pip install -e . && redis-playground": "installs the package (the suite runs it installed); "
                                            "`redis-playground` alone is checked apart",
    "pip install -e '.[test]' && python -m pytest": "the whole suite: this test is part of it",
    "printf '%s\\n' 'redis://:s3cret@10.0.0.5:6379' > ~/.class-url && chmod 600 ~/.class-url":
        "writes into the home directory (the next line's --class-url-file is parsed)",
    "export REDISCLI_AUTH='the monitor user's password'":
        "the capture's credentials, for a server of the reader's own (tests/cli/test_import_monitor.py "
        "captures with this user on a server of its own)",
    "timeout 10 redis-cli -h HOST -p PORT --user monitor-only monitor > incident.txt":
        "a capture from the reader's own server (tests/cli/test_import_monitor.py makes real ones)",
    "python -m benchmarks.bench --runs 5 --commands 300 --json bench.json":
        "the benchmarks: timings, not a pass/fail test (benchmarks/ runs them; ~20 s)",
    "ACL SETUSER monitor-only on >A-LONG-RANDOM-PASSWORD resetchannels -@all +monitor":
        "a command for the reader's own server, not a shell's (tests/cli/test_import_monitor.py makes "
        "this user and captures with it)",
}
PARSED_ONLY = re.compile(r"^(REDIS_PLAYGROUND_\w+=\S+ )?redis-playground serve\b")
PLACEHOLDER = {"ID": "lost-update", "SECONDS": "1", "PATH": "lost-update", "N": "1", "DIR": ".",
               "FILE": "incident.txt"}
CAPTURE = """\
1733300000.000001 [0 127.0.0.1:50001] "CLIENT" "SETNAME" "svc-a"
1733300000.000101 [0 127.0.0.1:50001] "GET" "counter"
1733300000.000201 [0 127.0.0.1:50002] "GET" "counter"
1733300000.000301 [0 127.0.0.1:50001] "SET" "counter" "11"
1733300000.000401 [0 127.0.0.1:50002] "SET" "counter" "11"
"""
"""incident.txt of docs/import.md: two services' read-modify-write, as MONITOR prints it."""


def examples() -> list[tuple[str, str]]:
    """(where, command) of each shell example: `redis-playground ...` in inline code, the
    lines of fenced blocks without a language, and indented code blocks."""
    found = []
    for path in DOCS:
        fence, last_blank, in_block = None, True, False
        for n, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{n}"
            marker = re.match(r"^\s*```(\S*)", line)
            if marker:
                fence = (marker.group(1) or "text") if fence is None else None
                continue
            if fence is not None:
                if fence in ("text", "sh", "bash", "shell", "console") and re.match(r"\s*redis-playground(\s|$)", line):
                    found.append((where, re.sub(r"\s+#.*$", "", line.strip())))
                continue
            indented = line.startswith("    ") and line.strip()
            if indented and (in_block or last_blank) and not _in_list(path, n):
                in_block = True
                if not line.strip().startswith("#"):
                    found.append((where, re.sub(r"\s+#.*$", "", line.strip())))  # (a comment after it: not run)
            else:
                in_block = False
                for code in re.findall(r"`(redis-playground(?: [^`]*)?)`", line):
                    found.append((where, code))
            last_blank = not line.strip()
    return found


def _in_list(path: Path, n: int) -> bool:
    """Whether line `n` continues a list item (indented text, not a code block)."""
    lines = path.read_text().splitlines()[:n - 1]
    for line in reversed(lines):
        if not line.strip():
            continue
        if line.startswith("    "):
            continue
        return bool(re.match(r"\s*([-*+]|\d+\.) ", line))
    return False


EXAMPLES = examples()


def test_the_examples_are_found():
    commands = [c for _, c in EXAMPLES]
    assert "redis-playground open lost-update --challenge" in commands
    assert "redis-playground explore my.toml --part 2 --format json" in commands
    assert "pip install -e . && redis-playground" in commands
    assert not [c for c in commands if "fresh" in c or c.startswith(("XREADGROUP", "of nothing"))], commands


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    here = tmp_path_factory.mktemp("docs")
    lesson = bundled_dir() / f"{SAMPLE}.toml"
    for name in ("my.toml", "my-lesson.toml", "slow-lesson.toml"):
        shutil.copy(lesson, here / name)
    (here / "my-lessons").mkdir()
    shutil.copy(lesson, here / "my-lessons" / f"{SAMPLE}.toml")
    (here / "incident.txt").write_text(CAPTURE)  # docs/import.md's, and the lesson its first example makes
    made = _run(["import", "monitor", "incident.txt", "--setup", "SET counter 10", "-o", "incident.toml"], here)
    assert made.returncode == 0, made.stderr
    return here


def _run(argv: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "REDIS_PLAYGROUND_STATE_DIR": str(cwd / "state"), "REDIS_PLAYGROUND_EXPORT_DIR": str(cwd)}
    return subprocess.run([sys.executable, "-m", "playground", *argv], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=1200)


@pytest.mark.parametrize("where,command", EXAMPLES, ids=[f"{w} {c}" for w, c in EXAMPLES])
def test_every_shell_example_runs(where, command, workdir):
    if command in EXEMPT:
        assert EXEMPT[command]  # a reason, said where it is exempted
        return
    assert command.startswith("redis-playground") or PARSED_ONLY.match(command), \
        f"{where}: {command!r} is neither a redis-playground command nor exempted with a reason"
    argv = shlex.split(command)
    if PARSED_ONLY.match(command):  # serve: runs until stopped; --class-url names another machine
        argv = argv[argv.index("redis-playground") + 1:]
        build_parser().parse_args([os.path.expanduser(a) if a.startswith("~") else a for a in argv])
        return
    argv = argv[1:]
    if any(a in PLACEHOLDER for a in argv):  # a synopsis: parsed with a value in each place
        args = build_parser().parse_args([PLACEHOLDER.get(a, a) for a in argv])
        if getattr(args, "command", None) == "open" and args.challenge:
            from playground.scenario.library import challenge_of
            challenge_of(args.scenario)
        return
    if not argv or argv[0] == "open":  # the app: every check of its arguments passes, then it needs a terminal
        done = _run(argv, workdir)
        assert done.returncode == 2 and NEEDS_TERMINAL in done.stderr, f"{where}: {command}\n{done.stderr}"
        return
    if argv[0] == "repl":
        done = _run(argv, workdir, stdin="PING\n")
        assert done.returncode == 0 and "PONG" in done.stdout, f"{where}: {command}\n{done.stdout}{done.stderr}"
        return
    done = _run(argv, workdir)
    assert done.returncode == 0, f"{where}: {command} exited {done.returncode}\n{done.stdout[-2000:]}{done.stderr}"
    if "-o" in argv:  # (what it makes goes to the file: stdout stays empty)
        assert (workdir / argv[argv.index("-o") + 1]).stat().st_size, f"{where}: {command} wrote nothing"
    else:
        assert done.stdout.strip(), f"{where}: {command} printed nothing"
