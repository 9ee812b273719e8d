"""The private server from outside: what it listens on, what it leaves behind, and
that it never outlives the app."""

import glob
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playground.server import PrivateServer, ServerError, choose_binary, identify
from paths import SRC as SRC_DIR


def _listening_tcp_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    return inodes


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def test_private_and_no_tcp(private_server):
    mode = stat.S_IMODE(os.stat(private_server.dir).st_mode)
    assert mode == 0o700
    assert stat.S_ISSOCK(os.stat(private_server.socket_path).st_mode)
    assert os.path.dirname(private_server.socket_path) == private_server.dir
    assert not (_socket_inodes(private_server.process.pid) & _listening_tcp_inodes())


async def test_no_persistence_config(pg):
    a = pg.session("A")
    for name, expected in [(b"port", b"0"), (b"save", b""), (b"appendonly", b"no"),
                           (b"unixsocketperm", b"700")]:
        reply = await a.execute([b"CONFIG", b"GET", name])
        assert [bytes(x) for x in reply] == [name, expected]
    reply = await a.execute([b"CONFIG", b"GET", b"dir"])
    assert bytes(reply[1]) == os.path.realpath(pg.server.dir).encode()  # noqa: ASYNC240 (procfs or a local path: no wait)


def test_stop_removes_everything(server_binary):
    server = PrivateServer(server_binary).start()
    pid, folder = server.process.pid, server.dir
    server.stop()
    assert not os.path.exists(folder)
    assert not _pid_running(pid)
    server.stop()  # twice is fine


def test_label_names_flavour_version_and_origin(private_server):
    label = private_server.label
    assert label.startswith(f"{private_server.flavour} {private_server.version} (")
    info_version = private_server.info.get("valkey_version") or private_server.info["redis_version"]
    assert info_version == private_server.version
    if private_server.binary.origin == "bundled":
        assert label.endswith("(bundled)")
    else:
        assert label.endswith(f"({private_server.binary.path})")


def test_restart_gives_a_fresh_empty_server(private_server):
    old_dir, old_pid = private_server.dir, private_server.process.pid
    private_server.restart()
    assert private_server.dir != old_dir and not os.path.exists(old_dir)
    assert private_server.process.pid != old_pid and private_server.alive()


def test_choose_binary_order(tmp_path, monkeypatch):
    bundled = choose_binary("bundled")
    assert bundled.origin == "bundled" and bundled.flavour == "Valkey"
    from_env = choose_binary(None, environ={"REDIS_PLAYGROUND_SERVER": bundled.path})
    assert from_env.origin == "$REDIS_PLAYGROUND_SERVER" and from_env.path == bundled.path
    explicit = choose_binary(bundled.path, environ={"REDIS_PLAYGROUND_SERVER": "/nonexistent"})
    assert explicit.origin == "--server"
    monkeypatch.setenv("PATH", str(tmp_path))  # no redis-server on PATH -> bundled
    assert choose_binary(None, environ={}).origin == "bundled"


def test_not_a_server(tmp_path):
    fake = tmp_path / "fake-server"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    with pytest.raises(ServerError, match="not a Redis or Valkey server"):
        identify(str(fake))
    with pytest.raises(ServerError, match="not found"):
        identify(str(tmp_path / "missing"))


def test_start_failure_shows_server_output(tmp_path, server_binary):
    fake = tmp_path / "redis-server"
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Redis server v=7.0.0 sha=0'; exit 0; fi\n"
                    "echo 'FATAL CONFIG FILE ERROR: something is off' >&2\nexit 1\n")
    fake.chmod(0o755)
    binary = choose_binary(str(fake))
    with pytest.raises(ServerError) as info:
        PrivateServer(binary).start()
    message = str(info.value)
    assert str(fake) in message and "FATAL CONFIG FILE ERROR" in message and "\n" not in message


def _pid_running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def _child_server(pid: int, timeout: float = 10) -> tuple[int, str]:
    """The server started by process `pid`, and its temp dir.

    Found by parent pid and executable, not by command line: a running server rewrites
    its process title (and so /proc/PID/cmdline), and the app's `--version` probe of the
    binary is a short-lived child of the same parent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        folders = glob.glob(f"/tmp/redis-playground-{pid}-*")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or len(folders) != 1:
                continue
            try:
                stat_fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                exe = os.path.basename(os.readlink(entry / "exe"))
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat_fields[1]) == pid and exe.endswith("-server") and b"--version" not in cmdline:
                return int(entry.name), folders[0]
        time.sleep(0.02)
    raise AssertionError("no server child found")


def _wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_running(pid):
            return True
        time.sleep(0.02)
    return False


def _start_repl(*extra):
    return subprocess.Popen([sys.executable, "-m", "playground", "repl", "--server", "bundled", *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_server_dies_with_sigkilled_app():
    app = _start_repl()
    try:
        server_pid, folder = _child_server(app.pid)
        app.kill()
        app.wait()
        assert _wait_gone(server_pid), "server outlived the SIGKILLed app"
    finally:
        app.kill()
    # The next start sweeps the dead app's temp dir.
    with PrivateServer(choose_binary("bundled")):
        assert not os.path.exists(folder)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signals_stop_server_and_remove_dir(sig):
    app = _start_repl()
    try:
        server_pid, folder = _child_server(app.pid)
        app.send_signal(sig)  # stdin is still open: the reading thread is blocked in a read
        app.wait(timeout=10)
        assert _wait_gone(server_pid)
        assert not os.path.exists(folder)
        assert app.returncode == 130  # not 134: "Fatal Python error: _enter_buffered_busy"
        assert b"Fatal Python error" not in app.stderr.read()
    finally:
        app.kill()


def test_a_second_signal_ends_at_once_and_still_removes_the_dir():
    """The second signal does not wait for the unwinding (nor does the grace's end, on a
    loaded machine): the server's private directory goes all the same, not left for the
    next start to sweep."""
    app = _start_repl()
    try:
        server_pid, folder = _child_server(app.pid)
        app.send_signal(signal.SIGTERM)
        app.send_signal(signal.SIGTERM)
        app.wait(timeout=10)
        assert _wait_gone(server_pid)
        assert not os.path.exists(folder)
        assert app.returncode == 130
    finally:
        app.kill()


def test_repl_into_a_closed_pipe_stops_quietly():
    """`redis-playground repl < lines | head -1`: one line out, then stdout is gone."""
    app = subprocess.Popen([sys.executable, "-m", "playground", "repl", "--server", "bundled"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        server_pid, _ = _child_server(app.pid)
        app.stdin.write(b"PING\n" * 3000)
        app.stdin.close()
        assert app.stdout.readline() == b"PONG\n"
        app.stdout.close()  # what `head -1` does after its line
        app.wait(timeout=30)
        err = app.stderr.read()
        assert app.returncode == 1 and b"Broken pipe" not in err and b"Traceback" not in err
        assert _wait_gone(server_pid)
    finally:
        app.kill()


def test_end_of_input_stops_server():
    app = _start_repl()
    server_pid, folder = _child_server(app.pid)
    out, err = app.communicate(b"SET a 1\nGET a\n", timeout=20)
    assert out == b'OK\n"1"\n'
    assert app.returncode == 0
    assert _wait_gone(server_pid) and not os.path.exists(folder)


@pytest.mark.parametrize("args, message", [
    (["--server", "/nonexistent/redis-server"], "server binary not found"),
    (["--server", "/bin/true"], "not a Redis or Valkey server"),
    (["--url", "http://example"], "bad --url"),
])
def test_bad_server_choice_is_one_line_exit_2(args, message):
    result = subprocess.run([sys.executable, "-m", "playground", "repl", *args],
                            input=b"PING\n", capture_output=True, timeout=20)
    assert result.returncode == 2
    assert result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in lines[0]


# -- wrapper scripts: the whole process group goes -------------------------------------

def _recording_wrapper(path: Path, body: str) -> Path:
    """A shell script that appends its own pid and those of its children to PATH.pids."""
    path.write_text(f'#!/bin/sh\necho $$ >> "{path}.pids"\n{body}\n')
    path.chmod(0o755)
    return path


def _recorded_pids(wrapper: Path) -> list[int]:
    return [int(x) for x in Path(f"{wrapper}.pids").read_text().split()]


def _no_wrapper_server(binary_path: str, wrapper: Path) -> Path:
    """Runs the server as a child (no exec), as a careless wrapper does."""
    return _recording_wrapper(wrapper, f'"{binary_path}" "$@" &\necho $! >> "{wrapper}.pids"\nwait')


def test_stop_ends_a_wrapper_scripts_server(tmp_path, server_binary):
    wrapper = _no_wrapper_server(server_binary.path, tmp_path / "wrap.sh")
    server = PrivateServer(choose_binary(str(wrapper))).start()
    pids = _recorded_pids(wrapper)
    assert len(pids) >= 4  # --version: shell + server; the server: shell + server
    assert all(_pid_running(p) for p in pids[-2:])
    server.stop()
    assert not any(_pid_running(p) for p in pids)


@pytest.mark.slow
def test_stop_ends_a_server_a_wrapper_moved_to_a_session_of_its_own(tmp_path, server_binary):
    """A wrapper that ignores SIGTERM and runs the server under `setsid -w`: the server is in
    another session and process group, beyond the group stop; the pid the server reported
    (INFO process_id, checked by its working directory) is killed too."""
    wrapper = tmp_path / "escape.sh"
    wrapper.write_text(f'#!/bin/sh\ntrap "" TERM\nexec setsid -w "{server_binary.path}" "$@"\n')
    wrapper.chmod(0o755)
    server = PrivateServer(choose_binary(str(wrapper))).start()
    pid = int(server.info["process_id"])
    assert os.getsid(pid) != os.getsid(server.process.pid)  # it did escape the group
    server.stop()
    assert _wait_gone(pid), "the setsid server outlived stop()"


def test_server_in_current_directory_and_normal_exit_leaves_nothing(tmp_path, server_binary):
    _no_wrapper_server(server_binary.path, tmp_path / "myredis")
    result = subprocess.run([sys.executable, "-m", "playground", "repl", "--server", "myredis"],
                            input=b"PING\n", capture_output=True, timeout=30, cwd=tmp_path,
                            env=dict(os.environ, PYTHONPATH=str(SRC_DIR)))
    assert result.returncode == 0 and result.stdout == b"PONG\n", result.stderr
    assert str(tmp_path / "myredis") in result.stderr.decode()
    pids = _recorded_pids(tmp_path / "myredis")
    assert len(pids) >= 4 and not any(_pid_running(p) for p in pids)


def test_sigkilled_app_takes_a_wrapper_scripts_server_with_it(tmp_path, server_binary):
    """PR_SET_PDEATHSIG reaches only the wrapper; the watchdog ends the server it started."""
    wrapper = _no_wrapper_server(server_binary.path, tmp_path / "wrap.sh")
    app = subprocess.Popen([sys.executable, "-m", "playground", "repl", "--server", str(wrapper)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        app.stdin.write(b"PING\n")
        app.stdin.flush()
        assert app.stdout.readline() == b"PONG\n"  # the server is up
        pids = _recorded_pids(wrapper)[-2:]  # the server's shell and the server
        assert all(_pid_running(p) for p in pids)
        app.kill()
        app.wait()
        assert all(_wait_gone(p) for p in pids), "a wrapper's server outlived the SIGKILLed app"
    finally:
        app.kill()
        app.wait()


def test_hanging_version_is_killed_with_its_children(tmp_path, monkeypatch):
    from playground.server import private

    monkeypatch.setattr(private, "VERSION_TIMEOUT", 0.3)
    wrapper = _recording_wrapper(tmp_path / "hangs", f'sleep 600 &\necho $! >> "{tmp_path}/hangs.pids"\nwait')
    started = time.monotonic()
    with pytest.raises(ServerError) as info:
        choose_binary(str(wrapper))
    assert time.monotonic() - started < 5
    assert "--version" in str(info.value) and "\n" not in str(info.value)
    pids = _recorded_pids(wrapper)
    assert len(pids) == 2 and not any(_pid_running(p) for p in pids)


def test_endless_version_output_is_bounded(tmp_path):
    chatty = tmp_path / "chatty"
    chatty.write_text("#!/bin/sh\nexec yes 'Redis server v=7.0.0'\n")
    chatty.chmod(0o755)
    assert identify(str(chatty)) == ("Redis", "7.0.0")
