"""A plain server of a test's own, as "the user's" (no sandbox, no limits: as a user's own
server is), for the `--url` tests: never anything but a unix socket in the test's
directory, or 127.0.0.1 for a cluster node."""

from __future__ import annotations

import contextlib
import subprocess
import time

import redis

from playground.server.node import free_port


@contextlib.contextmanager
def user_server(binary, tmp_path, *config: str, cluster: bool = False):
    """A plain server of the test's own (the "user's"): a redis-py client to it and its URL."""
    conf = tmp_path / "user.conf"
    if cluster:
        port = free_port()
        where = [f"port {port}", "bind 127.0.0.1", "cluster-enabled yes", f"cluster-port {free_port()}",
                 f"cluster-config-file {tmp_path}/nodes.conf"]
        client, url = redis.Redis(port=port), f"redis://127.0.0.1:{port}"
    else:
        sock = tmp_path / "user.sock"
        where = ["port 0", f"unixsocket {sock}", "unixsocketperm 700"]
        client, url = redis.Redis(unix_socket_path=str(sock)), f"unix://{sock}"
    conf.write_text("\n".join([*where, f"dir {tmp_path}", 'save ""', "appendonly no", *config]) + "\n")
    proc = subprocess.Popen([binary.path, str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:  # until it answers (bounded): readiness, not a timing assumption
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline, "the user's server did not start"
                time.sleep(0.01)
        yield client, url
    finally:
        client.close()
        proc.kill()
        proc.wait()
