"""The one reader of INFO's `field:value` text, on what the real servers send."""

from __future__ import annotations

from playground.resp.info_text import parse_info
from playground.resp.replies import Err


async def test_info_of_the_real_server(a, b):
    await a.execute([b"SET", b"k", b"v"])
    await a.execute([b"SELECT", b"3"])
    await a.execute([b"SET", b"k3", b"v"])
    info = parse_info(await b.execute([b"INFO", b"keyspace"]))
    assert set(info) == {"db0", "db3"}                  # no "# Keyspace" header, no blank line
    assert info["db3"].startswith("keys=1,")            # the value keeps what follows the first colon
    server = parse_info(await b.execute([b"INFO", b"server"]))
    assert server["tcp_port"] == "0"                    # the private server: no TCP listener
    assert not any(value.endswith("\r") for value in server.values())


def test_what_is_not_info_text_reads_as_nothing():
    assert parse_info(Err("ERR unknown section")) == {}
    assert parse_info(None) == {}
    assert parse_info("a:1:2\n# S\nnot a field\n") == {"a": "1:2"}
