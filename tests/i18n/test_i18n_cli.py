"""The command line's error lines in Chinese: with `--lang zh`, and from a Chinese locale.

Each is still one line on stderr with the same exit status; `--lang en` wins over the locale.
The Chinese is compared with the catalogue, so a text that stayed English fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from playground.i18n import tr_in

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def run_cli(*args: str, locale: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    if locale:
        env["LANG"] = locale
    return subprocess.run([sys.executable, "-m", "playground", *args], capture_output=True, text=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL)


def zh(text: str, **fields) -> str:
    return tr_in("zh", text, **fields)


CASES = {
    "url and server": (["repl", "--url", "unix:///nowhere.sock", "--server", "bundled"], 2,
                       zh("--url and --server exclude each other")),
    "no such scenario": (["run", "no-such-lesson"], 2,
                         zh("{ref}: no such scenario (known: {known})", ref="no-such-lesson", known="")[:-1]),
    "no server binary": (["repl", "--server", "/nonexistent/redis-server"], 2,
                         zh("server binary not found: {path}", path="/nonexistent/redis-server")),
    "bad url": (["repl", "--url", "http://localhost/"], 2,
                zh("bad --url {url}: {error}", url="http://localhost/",
                   error=zh("use redis://host:port/db, rediss://host:port/db or unix:///path/to/socket"))),
    "scenarios on --url": (["check", "--url", "unix:///nowhere.sock"], 2, zh(
        "{command} empties the server before every scenario (FLUSHALL); with --url add --allow-flush, "
        "and only for a server whose data may go", command="check")),
}


@pytest.mark.parametrize("how", ["option", "locale"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_error_lines_in_chinese(case, how):
    args, code, expected = CASES[case]
    result = run_cli(*args, "--lang", "zh") if how == "option" else run_cli(*args, locale="zh_CN.UTF-8")
    assert result.returncode == code, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("redis-playground: " + expected), (lines[0], expected)
    assert any("\u4e00" <= c <= "\u9fff" for c in lines[0])


def test_lang_en_wins_over_a_chinese_locale():
    result = run_cli("repl", "--url", "unix:///nowhere.sock", "--server", "bundled", "--lang", "en",
                     locale="zh_CN.UTF-8")
    assert result.stderr.strip() == "redis-playground: --url and --server exclude each other"


def test_an_argument_error_in_chinese_keeps_argparse_form():
    result = run_cli("repl", "--clients", "A,a", locale="zh_CN.UTF-8")
    assert result.returncode == 2
    assert zh("the client names must be distinct (case does not count)") in result.stderr


def test_a_failed_check_says_what_it_expected_in_chinese(tmp_path):
    """`run` in Chinese: the detail of a failed check (expected …, got …) is Chinese too."""
    lesson = tmp_path / "wrong.toml"
    lesson.write_text('title = "t"\nlesson = "l"\n\n[[steps]]\nclient = "A"\ncommand = "SET k 1"\n'
                      'reply = "OK"\n\n[steps.state]\nk = "2"\n'
                      '\n[[steps]]\nclient = "A"\ncommand = "INCR k"\nreply = "(integer) 3"\n')
    result = run_cli("--lang", "zh", "--server", "bundled", "run", str(lesson))
    assert result.returncode == 1, result.stderr
    assert zh("expected {want}, got {got}", want="'2'", got="'1'") in result.stdout
    assert zh("expected {want}, got {got}", want="'(integer) 3'", got="'(integer) 2'") in result.stdout
    assert "expected" not in result.stdout


LOADER_MISTAKES = {
    # a step with a field the loader does not know: FILE: step N: FIELD: message
    "unknown field": ('[[steps]]\nclient = "A"\ncommand = "SET k 1"\ncolour = "red"\n',
                      lambda path: zh(": ").join([
                          path, zh("step {n}", n=1), "colour",
                          zh("unknown field (known: {known})",
                             known="args, blocking, bound, client, command, error, match, "
                             "narration, pause, predict, reconnect, redis, release, reply, requires, save, "
                             "server_stops, sleep, state, valkey, wait, when")])),
    # a named part, and a `when` that ends too soon (the condition parser's words too)
    "bad when": ('[[parts]]\nname = "race"\n[[parts.steps]]\nclient = "A"\ncommand = "GET k"\nsave = "n"\n'
                 '[[parts.steps]]\nclient = "A"\ncommand = "SET k 1"\nwhen = "n >"\n',
                 lambda path: zh(": ").join([
                     path, zh("part {name}", name="'race'"), zh("step {n}", n=2), "when",
                     zh("column {column}: {message}", column=4, message=zh(
                         'expected {what} (a saved name, nil, a number or "text"), found {found}',
                         what=zh("a value after {op}", op="'>'"), found=zh("the end")))])),
}


@pytest.mark.parametrize("case", sorted(LOADER_MISTAKES))
def test_a_scenario_file_mistake_in_chinese(tmp_path, case):
    """A lesson file's mistake is one line in Chinese: file, part, step and field as written,
    the words around them from the catalogue; exit status 2, no traceback."""
    body, expected = LOADER_MISTAKES[case]
    lesson = tmp_path / "broken.toml"
    lesson.write_text('title = "t"\nlesson = "l"\n\n' + body)
    result = run_cli("--lang", "zh", "run", str(lesson))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0] == "redis-playground: " + expected(str(lesson)), lines[0]
    english = run_cli("--lang", "en", "run", str(lesson)).stderr.strip()
    assert english.startswith(f"redis-playground: {lesson}: ") and "：" not in english, english


@pytest.mark.parametrize("args, locale", [(["--help"], "zh_CN.UTF-8"), (["--lang", "zh", "repl", "--help"], None),
                                          (["repl", "--help", "--lang=zh"], None)])
def test_help_in_chinese(args, locale):
    """--help follows the interface's language: our own texts and argparse's words."""
    result = run_cli(*args, locale=locale)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(zh("usage: ") + "redis-playground"), out[:80]
    assert zh("options") + ":" in out and zh("show this help message and exit") in out
    assert zh("server") + ":" in out and zh("client certificate's private key") in out
    clients = zh("names of the clients, at most {count}, each with its own connection (default A,B)")
    assert clients.format(count=16) in out
    if "repl" in args:
        assert zh("start the clients in RESP3 mode (like redis-cli -3)") in out
    else:
        assert zh("Two real Redis clients side by side on a private server.") in out
        assert zh("replay one scenario and check it") in out
        assert zh("show program's version number and exit") in out
    assert "usage:" not in out and "show this help message" not in out


def test_help_lang_en_wins_over_a_chinese_locale():
    result = run_cli("--help", "--lang", "en", locale="zh_CN.UTF-8")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: redis-playground")
    assert "Two real Redis clients side by side on a private server." in result.stdout
    assert not any("\u4e00" <= c <= "\u9fff" for c in result.stdout)


def test_argparse_errors_in_chinese():
    result = run_cli("--lang", "zh", "run")
    assert result.returncode == 2
    assert result.stderr.startswith(zh("usage: "))
    assert zh("%(prog)s: error: %(message)s\n") % {
        "prog": "redis-playground run",
        "message": zh("the following arguments are required: %s") % "ID|PATH"} in result.stderr


def test_chinese_help_fits_the_terminal_width(monkeypatch):
    """argparse counts characters; a Chinese character takes two cells: the help is
    wrapped by cells, so no line is wider than the terminal."""
    from playground.cells import width

    monkeypatch.setenv("COLUMNS", "80")
    for command in ([], ["repl"], ["explore"]):
        result = run_cli("--lang", "zh", *command, "--help")
        assert result.returncode == 0, result.stderr
        assert max(width(line) for line in result.stdout.splitlines()) <= 80


def test_argparse_is_translated_through_gettext_not_patched(monkeypatch, capsys):
    """argparse reads our catalogue with gettext's own lookup (text domain + LANGUAGE), and
    everything is put back after parsing: no `argparse._` replaced, LANGUAGE as it was."""
    import argparse
    import gettext

    from playground.cli.main import main
    from playground.i18n import set_language

    monkeypatch.setenv("LANGUAGE", "fr")
    try:
        with pytest.raises(SystemExit) as exit_:
            main(["--lang", "zh", "run"])
    finally:
        set_language("en")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith(zh("usage: "))
    assert argparse._ is gettext.gettext and gettext.textdomain() == "messages"
    assert os.environ["LANGUAGE"] == "fr"


def test_the_locale_cache_keeps_one_set_of_catalogues(monkeypatch, tmp_path):
    """A catalogue edited or upgraded compiles into a new directory; the old ones go."""
    from playground.cli.argparse_lang import compiled_locale_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    stale = tmp_path / "redis-playground" / "locale" / "0123456789abcdef" / "zh" / "LC_MESSAGES"
    stale.mkdir(parents=True)
    (stale / "playground.mo").write_bytes(b"old")
    root = compiled_locale_dir()
    assert root is not None and root.parent == stale.parent.parent.parent
    assert [p.name for p in root.parent.iterdir()] == [root.name]
    assert compiled_locale_dir() == root and (root / "zh" / "LC_MESSAGES" / "playground.mo").stat().st_size > 1000
