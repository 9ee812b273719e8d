"""The scenario format's second round (issue 17): ${n} substitutions and $$, hash tags
sent as written, the `when` grammar, pttl / hash_has checks, part-level requires, error
with match, reconnect steps, per-server replies, `args`, `check DIR` and the server named
by `check` — each feature on the real servers, and each mistake as its one line."""

import subprocess
import sys
from pathlib import Path

import pytest

from playground.scenario.model import ScenarioError
from playground.scenario.loader import load_scenario
from playground.scenario.recorder import Recorder
from playground.scenario.runner import Runner
from playground.scenario.when import WhenError, parse_when
from commands import send
from paths import DOCS as DOCS_DIR

HEAD = 'title = "t"\nlesson = "l"\n'


def step(client="A", **fields) -> str:
    lines = ["[[steps]]", f'client = "{client}"']
    for name, value in fields.items():
        if isinstance(value, bool):
            lines.append(f"{name} = {'true' if value else 'false'}")
        elif isinstance(value, str) and value.startswith(("{", "[")):
            lines.append(f"{name} = {value}")
        elif "\n" in value:
            lines.append(f"{name} = '''{value}'''")
        else:
            lines.append(f"{name} = '{value}'")
    return "\n".join(lines) + "\n"


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path, text) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, text, "bad.toml"))
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(tmp_path / "bad.toml") + ": ")
    return message[len(str(tmp_path / "bad.toml")) + 2:]


async def run(pg, tmp_path, text):
    result = await Runner(pg).run(load_scenario(write(tmp_path, text)))
    assert result.error is None, result.error
    return result


def failures(result):
    return [(s.step.number, c.what, c.detail) for s, c in result.failed_checks]


# -- ${n}, $$ and hash tags -------------------------------------------------------------

async def test_saved_value_fills_in_and_hash_tags_pass_through(pg, tmp_path):
    text = HEAD + "setup = ['SET n 41']\n" + step(command="GET n", reply='"41"', save="n") \
        + step(command="SET {n}:x ${n+1}", reply="OK") \
        + step(command="SET price:${n} $$5", reply="OK") \
        + step(command="MGET {n}:x price:41 n", reply='1) "42"\n2) "$5"\n3) "41"')
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    assert result.steps[1].command == "SET {n}:x 42"  # the hash tag stayed, ${n+1} became 42
    assert await send(pg, "A", [b"EXISTS", b"{n}:x"]) == 1


async def test_dollar_escape_in_an_argument_list_and_before_a_script_name(pg, tmp_path):
    text = HEAD + "[scripts]\none = 'return 1'\n" \
        + step(args='["SET", "k", "$$one"]', reply="OK") + step(command="GET k", reply='"$one"') \
        + step(command="EVAL $one 0", reply="(integer) 1")
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)


@pytest.mark.parametrize("command, expected", [
    ("SET k {n+1}", "step 2: command: {n+1} is the old spelling of a saved value: write ${n+1}"),
    ("SET k {n}", "step 2: command: {n} is the old spelling of a saved value: write ${n}"),
    ("SET k ${m}", "step 2: command: ${m}: 'm' is not saved by an earlier step of this client"),
    ("SET k ${n*2}", "step 2: command: ${n*2}: a saved value is written ${name}, ${name+1} or ${name-1} "
                     "(for a literal $ write $$)"),
    ("SET k ${n", "step 2: command: ${n: a saved value is written"),
])
def test_substitution_mistakes(tmp_path, command, expected):
    text = HEAD + step(command="GET n", save="n") + step(command=command)
    assert error_of(tmp_path, text).startswith(expected)


def test_setup_cannot_use_saved_values(tmp_path):
    text = HEAD + "setup = ['SET k ${n}']\n" + step(command="PING")
    assert error_of(tmp_path, text).startswith("setup: ${n}: 'n' is not saved")


def test_recorder_writes_a_typed_dollar_as_two(tmp_path):
    rec = Recorder()
    rec.sent("A", "SET price $5")
    rec.replied("A", "OK\n", None)
    rec.sent("A", "EVAL $x 0")
    from playground.resp.replies import Err
    rec.replied("A", "(error) ERR x\n", Err(b"ERR x"))
    path = write(tmp_path, rec.to_toml("dollars", ("A", "B")))
    s = load_scenario(path)
    assert s.steps[0].argv == (b"SET", b"price", b"$5") and s.steps[1].argv == (b"EVAL", b"$x", b"0")
    assert s.steps[0].display == "SET price $5"


# -- when ---------------------------------------------------------------------------

@pytest.mark.parametrize("source, saved, expected", [
    ("r == nil", {"r": None}, True),
    ("r == (nil)", {"r": None}, True),
    ("r != nil", {"r": ("OK",)}, True),          # an EXEC that ran is an array, not nil
    ("r == nil", {"r": ("OK",)}, False),
    ("n > 0", {"n": "3"}, True),                  # a bulk "3" compares as a number
    ("n > 0", {"n": "abc"}, False),
    ("n >= 2.5", {"n": 3}, True),
    ("n < -1", {"n": -2}, True),
    ('s == "active"', {"s": "active"}, True),
    ("s == 'active'", {"s": "active"}, True),
    ('s < "b"', {"s": "a"}, True),                 # text compares as text
    ('n == "5"', {"n": 5}, True),
    ("a < b", {"a": "9", "b": "10"}, True),         # two numbers: as numbers
    ("a < b", {"a": "x9", "b": "x10"}, False),      # else as text
    ("n > 0 and s == 'on'", {"n": 1, "s": "off"}, False),
    ("n > 0 or s == 'on'", {"n": 0, "s": "on"}, True),
    ("not n > 0", {"n": 0}, True),
    ("not (n > 0 or m > 0) and k == nil", {"n": 0, "m": 0, "k": None}, True),
    ("n > 0 or m > 0 and k == 1", {"n": 1, "m": 0, "k": 0}, True),  # and binds tighter
    ("r == nil", {}, True),                         # never saved (its step was skipped): nil
])
def test_when_grammar(source, saved, expected):
    assert parse_when(source).holds(saved) is expected


@pytest.mark.parametrize("source, column, message", [
    ("n >", 4, "expected a value after '>'"),
    ("n = 1", 3, "unexpected '='"),
    ("n > 0 and", 10, "expected a condition"),
    ("(n > 0", 7, "expected ')' to close the '(' of column 1"),
    ("n > 0 m > 1", 7, "unexpected 'm': join conditions with and / or"),
    ("n", 2, "expected == != < <= > or >= after n, found the end"),
    ('s == "open', 6, "unexpected '\"'"),
])
def test_when_errors_name_the_column(source, column, message):
    with pytest.raises(WhenError) as info:
        parse_when(source)
    assert info.value.column == column and message in str(info.value)


def test_when_mistakes_in_a_file(tmp_path):
    base = HEAD + step(command="GET n", save="n")
    assert error_of(tmp_path, base + step(command="PING", when="n >> 0")).startswith(
        "step 2: when: column 4: expected a value after '>'")
    assert error_of(tmp_path, base + step(command="PING", when='n == "(nil)"')).startswith(
        'step 2: when: column 6: "(nil)" is text; a nil reply is written nil')
    assert error_of(tmp_path, base + step(command="PING", when="n > 0 and m > 0")) == \
        "step 2: when: column 11: 'm' is not saved by an earlier step of client A"
    deep = "(" * 30 + "n > 0" + ")" * 30
    assert "nested more than 20 deep" in error_of(tmp_path, base + step(command="PING", when=deep))


async def test_when_nil_after_an_aborted_exec(pg, tmp_path):
    text = HEAD + "setup = ['SET k 1']\n" + step(command="WATCH k", reply="OK") \
        + step("B", command="SET k 2", reply="OK") + step(command="MULTI", reply="OK") \
        + step(command="INCR k", reply="QUEUED") + step(command="EXEC", reply="(nil)", save="r") \
        + step(command="SET retried yes", reply="OK", when="r == nil") \
        + step(command="SET ran yes", reply="OK", when="r != (nil)")
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    assert result.steps[5].skipped is None
    assert result.steps[6].skipped == "A saw r = (nil), so it does not do this"
    from playground.i18n import set_language, tr_in

    try:  # in Chinese, the skipped step's note is Chinese (issue 28)
        set_language("zh")
        chinese = await run(pg, tmp_path, text)
    finally:
        set_language("en")
    assert chinese.steps[6].skipped == tr_in("zh", "{client} saw {seen}, so it does not do this",
                                             client="A", seen="r = (nil)") == "A 看到的是 r = (nil)，所以不做这一步"


# -- state checks -------------------------------------------------------------------

async def test_pttl_and_hash_has(pg, tmp_path):
    # (a TTL of a minute: a loaded machine may take a second between two steps)
    text = HEAD + step(command="SET k v PX 60000", reply="OK", state='{ k = { pttl = [1, 60000] } }') \
        + step(command="HSET h a 1 b 2", reply="(integer) 2",
               state='{ h = { hash_has = { a = "1" } }, k = { pttl = [1, 60000], ttl = [0, 60] } }')
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    bad = HEAD + step(command="SET k v PX 800", state='{ k = { pttl = [801, 5000] } }') \
        + step(command="HSET h a 1 b 2", state='{ h = { hash = { a = "1" } } }') \
        + step(command="PING", state='{ h = { hash_has = { c = "3" } } }')
    result = await run(pg, tmp_path, bad)
    details = [c.detail for _, c in result.failed_checks]
    assert details[0].startswith("expected PTTL 801..5000, got ") and int(details[0].split()[-1]) <= 800
    assert details[1] == "expected hash {'a': '1'}, got {'a': '1', 'b': '2'}"  # hash is exact
    assert details[2] == "expected a hash with {'c': '3'}, got {'a': '1', 'b': '2'}"


async def test_zcard(pg, tmp_path):
    text = HEAD + step(command="ZADD board 1 ada 2 bob", reply="(integer) 2", state='{ board = { zcard = 2 } }')
    assert (await run(pg, tmp_path, text)).ok
    result = await run(pg, tmp_path, HEAD + step(command="ZADD board 1 ada", state='{ board = { zcard = 2 } }'))
    assert [c.detail for _, c in result.failed_checks] == ["expected zcard 2, got 1"]
    assert "zcard" in error_of(tmp_path, HEAD + step(command="PING", state='{ board = { zcard = "2" } }'))


def test_pttl_mistake(tmp_path):
    text = HEAD + step(command="PING", state='{ k = { pttl = "soon" } }')
    assert error_of(tmp_path, text) == "step 1: state.k: pttl: milliseconds, -1 for no expiry, or [min, max]"


# -- part-level requires ------------------------------------------------------------

async def test_part_requires_skips_the_part_and_its_setup(pg, tmp_path):
    other = "redis" if pg.server.flavour.lower() == "valkey" else "valkey"
    text = HEAD + f'''[[parts]]
name = "elsewhere"
requires = {{ flavour = "{other}" }}
setup = ["SET k from-setup"]
{step(command="GET k", reply='"never checked"').replace("[[steps]]", "[[parts.steps]]")}
[[parts]]
name = "here"
{step(command="GET k", reply="(nil)").replace("[[steps]]", "[[parts.steps]]")}'''
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    assert result.steps[0].skipped.startswith(f"needs {other.capitalize()}")
    assert result.steps[1].skipped is None and result.steps[1].reply == "(nil)\n"


def test_part_requires_is_read_and_merged(tmp_path):
    text = HEAD + '[[parts]]\nname = "p"\nrequires = { min_version = "7.0" }\n' \
        + step(command="PING", requires='{ command = "PING" }').replace("[[steps]]", "[[parts.steps]]")
    s = load_scenario(write(tmp_path, text))
    assert s.parts[0].requires.min_version == (7, 0)
    assert s.steps[0].requires.min_version == (7, 0) and s.steps[0].requires.commands == ("PING",)
    bad = HEAD + '[[parts]]\nname = "p"\nrequires = { flavour = "keydb" }\n' \
        + step(command="PING").replace("[[steps]]", "[[parts.steps]]")
    assert error_of(tmp_path, bad) == "part 'p': requires: flavour: \"redis\" or \"valkey\""


# -- error + match --------------------------------------------------------------------

async def test_error_code_and_message_together(pg, tmp_path):
    text = HEAD + "setup = ['SET s x']\n" \
        + step(command="LPUSH s a", error="WRONGTYPE", match="wrong kind of value")
    assert (await run(pg, tmp_path, text)).ok
    bad = HEAD + "setup = ['SET s x']\n" + step(command="LPUSH s a", error="WRONGTYPE", match="no such text")
    result = await run(pg, tmp_path, bad)
    assert [c.what for _, c in result.failed_checks] == ["reply matches"]  # the code passed, the text not


def test_error_and_reply_mistakes(tmp_path):
    assert error_of(tmp_path, HEAD + step(command="PING", reply="PONG", error="ERR")).startswith(
        "step 1: reply: reply is the whole reply: use it alone, or error and/or match")
    assert error_of(tmp_path, HEAD + step(command="PING", error="ERR wrong")).startswith(
        "step 1: error: only the error code, one word")


# -- reconnect ------------------------------------------------------------------------

async def test_reconnect_after_quit_and_after_being_killed(pg, tmp_path):
    text = HEAD + step(command="QUIT", reply="OK") + step(reconnect=True) \
        + step(command="PING", reply="PONG") \
        + step(command="CLIENT ID", save="id") + step(command="CLIENT KILL ID ${id} SKIPME no", reply="(integer) 1") \
        + step(reconnect=True) + step(command="CLIENT ID", save="id2") \
        + step(command="PING", reply="PONG", when="id2 > id")
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    assert result.steps[1].note == "client A: reconnected as a new client"
    assert result.steps[7].skipped is None  # a new connection, a new client id


async def test_without_reconnect_the_killed_client_fails_its_next_step(pg, tmp_path):
    text = HEAD + step(command="CLIENT ID", save="id") + step(command="CLIENT KILL ID ${id} SKIPME no") \
        + step(command="PING", reply="PONG")
    result = await run(pg, tmp_path, text)
    assert "connection lost" in result.failed_checks[0][1].detail


@pytest.mark.parametrize("fields, expected", [
    ({"reconnect": True, "command": "PING"}, "step 1: command: a reconnect step has no command"),
    ({"reconnect": True, "reply": "OK"}, "step 1: reply: a reconnect step gets no reply to check"),
    ({"reconnect": True, "wait": True}, "step 1: reconnect: a step is one of wait or reconnect"),
    ({"reconnect": True, "save": "x"}, "step 1: save: a reconnect step has no reply to save"),
    ({"reconnect": "yes"}, "step 1: reconnect: true or false"),
])
def test_reconnect_mistakes(tmp_path, fields, expected):
    assert error_of(tmp_path, HEAD + step(**fields)).startswith(expected)


# -- per-server replies ---------------------------------------------------------------

KEYSLOT = HEAD + '''[[steps]]
client = "A"
command = "CLUSTER KEYSLOT user1"
[steps.valkey]
reply = "(integer) 8106"
[steps.redis]
error = "ERR"
match = "cluster support disabled"
'''


async def test_each_server_checks_its_own_reply(pg, tmp_path):
    result = await run(pg, tmp_path, KEYSLOT)
    assert result.ok, failures(result)
    flavour = pg.server.flavour
    assert all(c.what.endswith(f"on {flavour}") for c in result.steps[0].checks)
    # the expectation for this server is the one checked: spoil it and the check fails
    spoiled = KEYSLOT.replace('"(integer) 8106"', '"(integer) 1"').replace('"cluster support', '"nope')
    result = await run(pg, tmp_path, spoiled)
    assert len(result.failed_checks) == 1 and result.failed_checks[0][1].what.endswith(f"on {flavour}")


async def test_per_server_beside_a_default(pg, tmp_path):
    text = HEAD + step(command="PING", reply="PONG", valkey='{ match = "^PONG" }')
    s = load_scenario(write(tmp_path, text))
    assert s.steps[0].expect("redis").reply == "PONG" and s.steps[0].expect("valkey").match == "^PONG"
    assert (await run(pg, tmp_path, text)).ok


@pytest.mark.parametrize("table, expected", [
    ('valkey = "OK"', "step 1: valkey: a table of reply, error and/or match for this server"),
    ('valkey = { reply = "OK", colour = "red" }', "step 1: valkey.colour: unknown field"),
    ('redis = { reply = "OK", error = "ERR" }', "step 1: redis.reply: reply is the whole reply"),
    ('keydb = { reply = "OK" }', "step 1: keydb: unknown field"),
])
def test_per_server_mistakes(tmp_path, table, expected):
    text = HEAD + step(command="PING") + table + "\n"
    assert error_of(tmp_path, text).startswith(expected)


# -- args -----------------------------------------------------------------------------

def test_args_is_the_command_as_a_list(tmp_path):
    s = load_scenario(write(tmp_path, HEAD + step(args='["SET", "k", "a b"]', reply="OK")))
    assert s.steps[0].argv == (b"SET", b"k", b"a b") and s.steps[0].display == 'SET k "a b"'
    assert error_of(tmp_path, HEAD + step(args='["PING"]', command="PING")) == \
        "step 1: args: use command or args, not both"
    assert error_of(tmp_path, HEAD + step(args="PING")) == \
        'step 1: args: a list of arguments: ["SET", "k", "a b"]'


# -- check DIR, and the server named -----------------------------------------------------

def test_check_a_directory_names_the_server(tmp_path, server_binary):
    folder = tmp_path / "lessons"
    folder.mkdir()
    write(folder, HEAD + step(command="PING", reply="PONG"), "one.toml")
    write(folder, HEAD + step(command="ECHO hi", reply='"hi"'), "two.toml")
    (folder / "notes.txt").write_text("not a scenario")
    result = subprocess.run([sys.executable, "-m", "playground", "check", str(folder), "--server",
                             server_binary.path], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"on {server_binary.flavour} {server_binary.version} ({server_binary.path})"
    assert lines[1:] == ["✓ one: 1 check passed", "✓ two: 1 check passed", "2 passed, 0 failed"]
    empty = tmp_path / "empty"
    empty.mkdir()
    result = subprocess.run([sys.executable, "-m", "playground", "check", str(empty), "--server",
                             server_binary.path], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == f"redis-playground: {empty}: no .toml scenario files in this directory"


# -- the documentation's examples run -----------------------------------------------------

DOCS = DOCS_DIR / "scenarios.md"


def docs_example(heading: str) -> str:
    import re
    section = DOCS.read_text(encoding="utf-8").split(heading, 1)[1]
    return re.search(r"```toml\n(.*?)```", section, re.S).group(1)


@pytest.mark.parametrize("heading", ["## A complete example", "## A second example"])
async def test_docs_examples_pass(pg, tmp_path, heading):
    result = await run(pg, tmp_path, docs_example(heading))
    assert result.ok and result.check_count > 5, failures(result)
    assert not any(s.skipped for s in result.steps if s.step.when is None)


async def test_docs_per_server_and_reconnect_snippets_pass(pg, tmp_path):
    for heading in ("## Per-server replies", "## Reconnecting"):
        result = await run(pg, tmp_path, HEAD + docs_example(heading))
        assert result.ok and result.check_count >= 1, (heading, failures(result))


async def test_docs_second_example_challenge_can_be_won(pg):
    from playground.scenario.loader import parse_scenario
    import tomllib
    from playground.scenario.challenge import Challenge
    scenario = parse_scenario(tomllib.loads(docs_example("## A second example")), Path("tickets.toml"))
    game = Challenge(pg, scenario)
    await game.reset()
    for client in ("A", "B", "A", "A", "B", "B"):
        await game.move(client)
    assert await game.won() is True


async def test_check_line_names_the_part_and_text_shows_a_reconnect(pg, tmp_path):
    from playground.scenario.transcript import check_line, render_text
    text = HEAD + '[[parts]]\nname = "second"\n' + step(command="PING", reply="PONG").replace(
        "[[steps]]", "[[parts.steps]]") + step(reconnect=True).replace("[[steps]]", "[[parts.steps]]") \
        + step(command="ECHO x", reply='"y"').replace("[[steps]]", "[[parts.steps]]")
    result = await run(pg, tmp_path, text)
    assert check_line(result).startswith("✗ s: part 'second': step 3 (A> ECHO x): reply: expected '\"y\"'")
    assert "A: (reconnects)" in render_text(result)


async def test_a_script_with_dollars_in_a_step_with_saved_values(pg, tmp_path):
    text = HEAD + "[scripts]\ncat = '''return ARGV[1] .. \"$$\" .. ARGV[2]'''\n" \
        + step(command="INCR n", save="n") + step(command="EVAL $cat 0 ${n+1} $$x", reply='"2$$$x"')
    result = await run(pg, tmp_path, text)
    assert result.ok, failures(result)
    assert result.steps[1].argv[1] == b'return ARGV[1] .. "$$" .. ARGV[2]'  # the source as written
