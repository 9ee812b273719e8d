"""The one reader of INFO's `field:value` text, on what the real servers send."""

from __future__ import annotations

import re
from pathlib import Path

import playground
from playground.resp.info_text import config_value, config_values, parse_info
from playground.resp.replies import Err, Map


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


async def test_config_get_in_both_protocols(a):
    """CONFIG GET answers a flat array in RESP2 and a map in RESP3; one reader reads both,
    a pattern's many parameters included."""
    resp2 = await a.execute([b"CONFIG", b"GET", b"maxmemory*"])
    limit = (await a.execute([b"CONFIG", b"GET", b"maxmemory"]))[1]
    await a.execute([b"HELLO", b"3"])
    resp3 = await a.execute([b"CONFIG", b"GET", b"maxmemory*"])
    assert isinstance(resp3, Map) and not isinstance(resp2, Map)
    assert limit.isdigit()
    for reply in (resp2, resp3):
        values = config_values(reply)
        assert values[b"maxmemory"] == limit and values[b"maxmemory-policy"] == b"noeviction"
        assert config_value(reply, b"maxmemory-policy") == b"noeviction"
        assert config_value(reply, b"lua-time-limit") is None     # not asked for: not there
    assert config_value(await a.execute([b"CONFIG", b"GET", b"lua-time-limit"]), b"lua-time-limit") == b"5000"


def test_what_is_not_a_config_reply_reads_as_nothing():
    assert config_values(Err("NOPERM this user has no permissions")) is None
    assert config_value(None, b"maxmemory") is None
    assert config_values([]) == {}                              # a pattern that matches nothing


def test_config_get_is_read_in_one_place():
    """Every module that sends CONFIG GET reads its reply with info_text's reader (no
    `reply[1]` of its own: RESP3's map has no second element to take)."""
    src = Path(playground.__file__).parent
    senders = [p for p in src.rglob("*.py") if re.search(rb'\[b"CONFIG",\s*b"GET"', p.read_bytes())]
    assert senders
    for path in senders:
        text = path.read_text(encoding="utf-8")
        assert re.search(r"from playground\.resp\.info_text import .*config_value", text), path
        assert "reply[1]" not in text, path
