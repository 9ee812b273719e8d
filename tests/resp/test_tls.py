"""--url over TLS (rediss://, --tls, --cacert, --cert, --key, --insecure) and ACL users
(--user, a URL's user name), against a throwaway TLS server of the test's own: Debian's
redis-server on 127.0.0.1, a free port, certificates made here with the openssl CLI."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REDIS = "/usr/bin/redis-server"
PASSWORD = "s3cret-Pa55"


def _skip_reason() -> str | None:
    if not os.access(REDIS, os.X_OK):
        return f"{REDIS} is not installed (Debian's redis-server is built with TLS)"
    if shutil.which("openssl") is None:
        return "no openssl command to make the test certificates"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by it."""
    d = tmp_path_factory.mktemp("certs")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
             "-days", "2", "-subj", "/CN=playground test CA", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name in ("server", "client"):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", f"/CN=127.0.0.1 {name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", "san.ext", cwd=d)
    return d


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(certs: Path, tmp: Path, auth_clients: str):
    port = _free_port()
    conf = tmp / "redis.conf"
    conf.write_text(f"user alice on >{PASSWORD} ~* &* +@all\n")  # the password never on a command line
    conf.chmod(0o600)
    proc = subprocess.Popen(
        [REDIS, str(conf), "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
         "--tls-cert-file", str(certs / "server.crt"), "--tls-key-file", str(certs / "server.key"),
         "--tls-ca-cert-file", str(certs / "ca.crt"), "--tls-auth-clients", auth_clients,
         "--save", "", "--appendonly", "no", "--dir", str(tmp)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in proc.stdout:  # ends when the server exits (no TLS in this build, a bad option)
        seen.append(line)
        if "Ready to accept connections" in line:
            return proc, port
    proc.wait(timeout=10)
    pytest.skip(f"{REDIS} did not start with TLS: {''.join(seen[-3:]).strip()}")


@pytest.fixture(scope="module", params=["no", "yes"], ids=["server-only", "client-cert-required"])
def tls_server(request, certs, tmp_path_factory):
    proc, port = _start(certs, tmp_path_factory.mktemp("tls"), request.param)
    yield port, request.param == "yes"
    proc.terminate()
    proc.wait(timeout=10)


def _repl(*args: str, stdin: str = "A> PING\nB> PING\n", env: dict | None = None):
    return subprocess.run([sys.executable, "-m", "playground", *args, "repl"], input=stdin,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LANG": "C.UTF-8", **(env or {})})


def _client(certs: Path, required: bool) -> list[str]:
    return ["--cert", str(certs / "client.crt"), "--key", str(certs / "client.key")] if required else []


def test_rediss_with_cacert(tls_server, certs):
    port, required = tls_server
    result = _repl("--url", f"rediss://127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required), stdin="A> PING\nA> SET k v\nB> GET k\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "PONG\nOK\n\"v\"\n"


def test_tls_option_on_a_redis_url(tls_server, certs):
    """--tls turns TLS on for a redis:// URL, as redis-cli's --tls does for -h/-p."""
    port, required = tls_server
    result = _repl("--url", f"redis://127.0.0.1:{port}", "--tls", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "PONG\nPONG\n"


def test_without_the_ca_one_clear_line(tls_server, certs):
    port, required = tls_server
    result = _repl("--url", f"rediss://127.0.0.1:{port}", *_client(certs, required))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "certificate verify failed" in lines[0] and "--cacert" in lines[0]
    assert result.stdout == ""


def test_insecure_skips_the_check(tls_server, certs):
    port, required = tls_server
    result = _repl("--url", f"rediss://127.0.0.1:{port}", "--insecure", *_client(certs, required))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "PONG\nPONG\n"


def test_client_certificate_required(tls_server, certs):
    port, required = tls_server
    if not required:
        pytest.skip("this server does not ask for a client certificate")
    result = _repl("--url", f"rediss://127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"))
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert f"127.0.0.1:{port}" in result.stderr


def test_acl_user_in_the_url(tls_server, certs):
    """The user in the URL, its password from $REDISCLI_AUTH: never on the command line."""
    port, required = tls_server
    url = f"rediss://alice@127.0.0.1:{port}"
    result = _repl("--url", url, "--cacert", str(certs / "ca.crt"), *_client(certs, required),
                   stdin="A> ACL WHOAMI\nB> ACL WHOAMI\n", env={"REDISCLI_AUTH": PASSWORD})
    assert result.returncode == 0, result.stderr
    assert result.stdout == '"alice"\n"alice"\n'


def test_acl_user_and_password_in_a_url_file(tls_server, certs, tmp_path):
    port, required = tls_server
    url_file = tmp_path / "url"
    url_file.write_text(f"rediss://alice:{PASSWORD}@127.0.0.1:{port}\n")
    url_file.chmod(0o600)
    result = _repl("--url-file", str(url_file), "--cacert", str(certs / "ca.crt"), *_client(certs, required),
                   stdin="A> ACL WHOAMI\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == '"alice"\n'
    url_file.chmod(0o644)
    result = _repl("--url-file", str(url_file), "--cacert", str(certs / "ca.crt"), *_client(certs, required))
    assert result.returncode == 2 and "chmod 600" in result.stderr and PASSWORD not in result.stderr


def test_a_password_in_url_on_the_command_line_is_refused(tls_server, certs):
    """ps shows every process's arguments to every user of the machine (redis-cli warns
    for -a and -u; --class-url refuses too): nothing is sent, the ways are named."""
    port, required = tls_server
    result = _repl("--url", f"rediss://alice:{PASSWORD}@127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required))
    assert result.returncode == 2 and result.stdout == ""
    line, = result.stderr.strip().splitlines()
    assert "no password on the command line" in line and "REDISCLI_AUTH" in line and "--url-file" in line
    assert PASSWORD not in line


def test_acl_user_option_with_rediscli_auth(tls_server, certs):
    port, required = tls_server
    result = _repl("--user", "alice", "--url", f"rediss://127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required), stdin="A> ACL WHOAMI\n", env={"REDISCLI_AUTH": PASSWORD})
    assert result.returncode == 0, result.stderr
    assert result.stdout == '"alice"\n'


def test_wrong_password_never_shown(tls_server, certs):
    port, required = tls_server
    wrong = "Not-The-Pa55word"
    result = _repl("--url", f"rediss://alice@127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required), env={"REDISCLI_AUTH": wrong})
    assert result.returncode != 0
    assert "WRONGPASS" in result.stderr
    assert wrong not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    result = _repl("--user", "alice", "--url", f"rediss://127.0.0.1:{port}", "--cacert", str(certs / "ca.crt"),
                   *_client(certs, required), env={"REDISCLI_AUTH": wrong})
    assert "WRONGPASS" in result.stderr and wrong not in result.stderr + result.stdout


def test_option_mistakes_are_one_line(tmp_path):
    cases = [
        (["--tls"], "--url"),
        (["--url", "redis://127.0.0.1:1", "--cacert", "x.pem"], "--tls"),
        (["--url", "unix:///tmp/x.sock", "--tls"], "unix"),
        (["--url", "rediss://127.0.0.1:1", "--cert", "c.pem"], "--key"),
        (["--url", "rediss://127.0.0.1:1", "--cacert", str(tmp_path / "missing.pem")], "missing.pem"),
    ]
    for args, expected in cases:
        result = _repl(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_options_after_the_command(tls_server, certs):
    port, required = tls_server
    result = subprocess.run([sys.executable, "-m", "playground", "repl", "--url", f"rediss://127.0.0.1:{port}",
                             "--insecure", *_client(certs, required)], input="A> PING\n",
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "PONG\n"
