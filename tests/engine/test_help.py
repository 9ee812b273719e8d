"""Help, completion and hints as redis-cli builds them from COMMAND DOCS."""

from playground.engine.help import HelpIndex


async def test_from_server_docs(pg):
    index = await pg.help_index()
    assert index.lookup(["client", "list", "x"]).full == "CLIENT LIST"
    assert index.lookup(["SET", "k", "v"]).params.startswith("key value [NX|XX")
    assert "string" in index.groups


async def test_hints_like_redis_cli(pg):
    index = await pg.help_index()
    params = index.lookup(["SET"]).params
    assert index.hint("SET") == " " + params
    assert index.hint("SET k ") == params[len("key "):]
    assert index.hint("SET k v").startswith(" [NX|XX")
    assert index.hint("GET k") == " "  # nothing left to type
    assert index.hint("NOSUCH") is None
    assert index.hint('SET "k') is None


def test_completion():
    index = HelpIndex.bundled()
    assert "INCRBY" in index.complete("incr")
    assert all(c.upper().startswith("INCR") for c in index.complete("incr"))
    assert "help @string" in index.complete("help @str")
    assert index.complete("client li") == ["CLIENT LIST"]


def test_bundled_table_is_complete_enough():
    index = HelpIndex.bundled()
    for name in ("GET", "SET", "EVAL", "WATCH", "MULTI", "EXEC", "BLPOP", "SUBSCRIBE"):
        assert name in index.command_names()
