"""No user-visible text escapes the catalogue (issue 28): every string literal or f-string
passed to a sink that shows it to the user is marked (tr/trn/trp/N_ ...), has no words
(a pure format like f"{a}: {b}"), or is one of redis-cli's own texts listed below.

The sinks: notify(...) and say(...), the messages of the errors the user reads
(ServerError, ActionError, ExploreError, ScenarioError, where.error(...)), Text(...) and
.append(...) in the TUI, print(..., file=sys.stderr) in the command line. The scan reads the
source (ast), so a new `notify(f"cannot {x}")` fails here until it goes through tr.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from playground import i18n

SOURCE = Path(i18n.__file__).resolve().parent
MARKED = {"tr", "tr_in", "trn", "trn_in", "trp", "trp_in", "N_", "NP_", "tr_check"}
ERRORS = {"ServerError", "ActionError", "ExploreError", "ScenarioError"}
WORD = re.compile(r"[A-Za-z]{2,}")
PROGRAM = "redis-playground"            # the program's name before a message is not a word to translate
KEY = re.compile(r"[a-z]*_[a-z_]*")     # a message's key (why.say("noscript_never")), not its text

# Texts shown as Redis and redis-cli show them, in English whatever the interface's language:
# (file, the literal text of the string, its {fields} left out).
NOT_TRANSLATED = {
    ("explore/free_play.py", ": Invalid argument(s)"),   # redis-cli's own error for a bad line
    ("tui/widgets/pane_prompt.py", "(reverse-i-search)`'"),       # redis-cli's (linenoise's) history search prompt
    ("tui/widgets/pane_state.py", " (TX )"),                     # the pane's status: Redis's own names
    ("tui/widgets/pane_state.py", "  WATCH "),                   #   (the command, the protocol, the db number)
    ("tui/widgets/pane_state.py", "  RESP3"),
    ("tui/widgets/pane_state.py", "  db "),
    ("tui/help_text.py", "SET greeting hello"),          # commands the learner is asked to type
    ("tui/help_text.py", "GET greeting"),
    ("tui/widgets/own_programs.py", "  REDIS_URL= python myprog.py\n\n"),   # a shell line and a line of
    ("tui/widgets/own_programs.py", '  r = redis.Redis.from_url(os.environ["REDIS_URL"])\n\n'),  # Python to copy
}


def _sink(node: ast.Call, relative: str) -> list[ast.AST]:
    """The arguments of `node` that reach the user, if it is a sink."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name in ERRORS or name == "notify":
        return node.args[:1]
    if name == "say" and not node.keywords:          # why's say(kind, **values) takes a key, not a text
        return [a for a in node.args[:1] if not (isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                 and re.fullmatch(r"[a-z]+(_[a-z]+)*", a.value))]
    if name == "error" and isinstance(func, ast.Attribute) and relative.startswith("scenario/"):
        return node.args[:1]                          # where.error(message, ...), _Table.error(name, message)
    if relative.startswith("tui/") and name in ("Text", "append"):
        return node.args[:1]
    if (relative.startswith("cli/") and name == "print"
            and any(k.arg == "file" and ast.unparse(k.value) == "sys.stderr" for k in node.keywords)):
        return node.args
    return []


def _words(node: ast.AST) -> str | None:
    """The literal text of a string or f-string when it has words in it (else None)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    else:
        return None
    if KEY.fullmatch(text):
        return None
    return text if WORD.search(text.replace(PROGRAM, "")) else None


def _texts(node: ast.AST):
    """The unmarked literals in an argument: through + and conditional expressions, not
    into calls (a call to tr is marked; any other call is not a literal)."""
    if isinstance(node, ast.BinOp):
        yield from _texts(node.left)
        yield from _texts(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _texts(node.body)
        yield from _texts(node.orelse)
    elif isinstance(node, ast.Tuple):  # Text.append((text, style)) / Text.assemble-like pairs
        yield from _texts(node.elts[0]) if node.elts else ()
    elif _words(node) is not None:
        yield node


def unmarked(root: Path = SOURCE) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for arg in _sink(node, relative):
                for literal in _texts(arg):
                    text = _words(literal)
                    if (relative, text) not in NOT_TRANSLATED:
                        found.append(f"{relative}:{literal.lineno}: {ast.unparse(literal)}")
    return found


def test_every_user_visible_text_is_marked_for_the_catalogue():
    found = unmarked()
    assert not found, "shown to the user but not through tr/trn/trp/N_:\n" + "\n".join(found)


def test_the_lint_catches_an_unmarked_text_and_passes_a_marked_one(tmp_path):
    # A broken scan (a sink it no longer recognises) would pass everything above.
    (tmp_path / "cli").mkdir()
    (tmp_path / "tui").mkdir()
    (tmp_path / "cli" / "x.py").write_text(
        "import sys\n"
        "raise ServerError(f'cannot start {x}')\n"                  # 2: caught
        "raise ServerError(tr('cannot start {x}', x=x))\n"           # marked
        "print(f'{a}: {b}', file=sys.stderr)\n"                      # no words
        "print('bad ' + tr('ok'), file=sys.stderr)\n"                # 5: caught, the part not through tr
        "app.notify('saved' if ok else tr('not saved'))\n"           # 6: caught
        "why.say('sandbox')\n"                                        # a why note's key
        "self.say('reconnected again')\n",                            # 8: caught
        encoding="utf-8")
    (tmp_path / "tui" / "y.py").write_text("t = Text('(expires)')\nt.append(tr('(absent)'))\n", encoding="utf-8")
    lines = [line.split(": ")[0] for line in unmarked(tmp_path)]
    assert lines == ["cli/x.py:2", "cli/x.py:5", "cli/x.py:6", "cli/x.py:8", "tui/y.py:1"]
