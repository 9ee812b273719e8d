"""`when`: a step runs only if a condition on its client's saved replies holds.

The grammar (a tiny hand-written parser, no eval):

    condition  := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | "(" condition ")" | comparison
    comparison := value OP value            OP: == != < <= > >=
    value      := NAME | nil | (nil) | NUMBER | "text" | 'text'

NAME is a value saved by an earlier step of the same client (`save = "n"`); `nil` (also
written `(nil)`, as redis-cli prints it) is a nil reply. Comparing with a number compares
as numbers (a value that is not a number makes the comparison false); with text, as text;
two saved values compare as numbers when both are numbers, else as text. `nil` equals only
nil and is never less or greater than anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playground.i18n import tr
from playground.scenario.substitution import INT64, _in_int64, _short, as_number, show_value

MAX_LENGTH = 500
MAX_DEPTH = 20
OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<nil>\(\s*nil\s*\)(?![A-Za-z0-9_]))
  | (?P<number>[+-]?(?:\d+\.\d*|\.\d+|\d+)(?![A-Za-z0-9_.]))
  | (?P<string>"(?:[^"\\]|\\.)*"|'[^']*')
  | (?P<op>==|!=|<=|>=|<|>)
  | (?P<paren>[()])
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
""", re.VERBOSE)
_KEYWORDS = {"and", "or", "not", "nil"}


class WhenError(ValueError):
    """A condition that cannot be read: `column` is 1-based in the condition's text."""

    def __init__(self, column: int, message: str) -> None:
        super().__init__(tr("column {column}: {message}", column=column, message=message))
        self.column = column


@dataclass(frozen=True)
class _Token:
    kind: str      # nil number string op paren word end
    text: str
    column: int
    value: object = None


@dataclass(frozen=True)
class Name:
    """A saved value's name in a condition."""
    name: str


@dataclass(frozen=True)
class Literal:
    """A constant in a condition: nil, a number, or text (`is_text`: it was quoted)."""
    value: object  # None (nil), int, float or str
    is_text: bool = False


@dataclass(frozen=True)
class Compare:
    """`left op right`, one of OPERATORS."""
    left: object
    op: str
    right: object


@dataclass(frozen=True)
class Not:
    """`not inner`."""
    inner: object


@dataclass(frozen=True)
class Both:
    """`left and right`."""
    left: object
    right: object


@dataclass(frozen=True)
class Either:
    """`left or right`."""
    left: object
    right: object


@dataclass(frozen=True)
class When:
    """A parsed condition: `holds(saved)` evaluates it on a client's saved values."""

    source: str
    tree: object
    names: tuple[str, ...]

    def holds(self, saved: dict[str, object]) -> bool:
        return _eval(self.tree, saved)

    def seen(self, saved: dict[str, object]) -> str:
        """What the client saw, for the note of a skipped step: `r = (nil), n = 3`."""
        return ", ".join(f"{n} = {show_value(saved.get(n))}" for n in self.names)


def parse_when(source: str) -> When:
    """Parse a condition; WhenError (with its column) if it cannot be read."""
    if len(source) > MAX_LENGTH:
        raise WhenError(MAX_LENGTH + 1, tr("a condition is at most {count} characters", count=MAX_LENGTH))
    tokens = _tokens(source)
    parser = _Parser(tokens)
    tree = parser.condition(0)
    end = parser.peek()
    if end.kind != "end":
        raise WhenError(end.column, tr("unexpected {text}: join conditions with and / or", text=repr(end.text)))
    names: list[str] = []
    _collect(tree, names)
    return When(source, tree, tuple(names))


def _tokens(source: str) -> list[_Token]:
    out, pos = [], 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m:
            raise WhenError(pos + 1, tr('unexpected {text} (values: a saved name, nil, a number, "text"; '
                                        "operators: == != < <= > >=)", text=repr(source[pos])))
        kind, text = m.lastgroup or "", m.group()  # (every alternative of _TOKEN is a named group)
        if kind != "space":
            value: object = None
            if kind == "number":
                value = float(text) if any(c in text for c in ".") else int(text)
                if isinstance(value, int) and not _in_int64(text):
                    raise WhenError(pos + 1, tr("{text}: a number from {low} to {high}", text=_short(text),
                                                         low=INT64[0], high=INT64[1]))
            elif kind == "string":
                value = re.sub(r"\\(.)", r"\1", text[1:-1]) if text[0] == '"' else text[1:-1]
            elif kind == "word" and text == "nil":
                kind = "nil"
            elif kind == "word" and text in _KEYWORDS:
                kind = text
            out.append(_Token(kind, text, pos + 1, value))
        pos = m.end()
    out.append(_Token("end", "the end", len(source) + 1))
    return out


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        if token.kind != "end":
            self.i += 1
        return token

    def condition(self, depth: int):
        if depth > MAX_DEPTH:
            raise WhenError(self.peek().column, tr("nested more than {depth} deep", depth=MAX_DEPTH))
        left = self.conjunction(depth)
        while self.peek().kind == "or":
            self.take()
            left = Either(left, self.conjunction(depth))
        return left

    def conjunction(self, depth: int):
        left = self.negation(depth)
        while self.peek().kind == "and":
            self.take()
            left = Both(left, self.negation(depth))
        return left

    def negation(self, depth: int):
        token = self.peek()
        if token.kind == "not":
            self.take()
            if depth > MAX_DEPTH:
                raise WhenError(token.column, tr("nested more than {depth} deep", depth=MAX_DEPTH))
            return Not(self.negation(depth + 1))
        if token.kind == "paren" and token.text == "(":
            self.take()
            inner = self.condition(depth + 1)
            close = self.take()
            if close.kind != "paren" or close.text != ")":
                found = tr("'the end'") if close.kind == "end" else repr(close.text)
                raise WhenError(close.column, tr("expected ')' to close the '(' of column {column}, found {found}",
                                                 column=token.column, found=found))
            return inner
        return self.comparison()

    def comparison(self):
        left = self.value(tr("a condition"))
        op = self.take()
        if op.kind != "op":
            shown = tr("the end") if op.kind == "end" else repr(op.text)
            raise WhenError(op.column, tr("expected == != < <= > or >= after {value}, found {found}",
                                          value=left_text(left), found=shown))
        right = self.value(tr("a value after {op}", op=repr(op.text)))
        return Compare(left, op.text, right)

    def value(self, what: str):
        token = self.take()
        if token.kind == "word":
            return Name(token.text)
        if token.kind == "nil":
            return Literal(None)
        if token.kind == "number":
            return Literal(token.value)
        if token.kind == "string":
            return Literal(token.value, is_text=True)
        shown = tr("the end") if token.kind == "end" else repr(token.text)
        raise WhenError(token.column, tr('expected {what} (a saved name, nil, a number or "text"), found {found}',
                                         what=what, found=shown))


def left_text(node) -> str:
    """How a message names the left side of a comparison: its name, its literal, or "the value".

    Args:
        node: the left side, as parsed.
    """
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Literal):
        return "nil" if node.value is None else repr(node.value)
    return tr("the value")


def _collect(node, names: list[str]) -> None:
    if isinstance(node, Name):
        if node.name not in names:
            names.append(node.name)
    elif isinstance(node, Compare):
        _collect(node.left, names)
        _collect(node.right, names)
    elif isinstance(node, Not):
        _collect(node.inner, names)
    elif isinstance(node, (Both, Either)):
        _collect(node.left, names)
        _collect(node.right, names)


def _eval(node, saved: dict[str, object]) -> bool:
    if isinstance(node, Both):
        return _eval(node.left, saved) and _eval(node.right, saved)
    if isinstance(node, Either):
        return _eval(node.left, saved) or _eval(node.right, saved)
    if isinstance(node, Not):
        return not _eval(node.inner, saved)
    return _compare(node, saved)


def _compare(node: Compare, saved: dict[str, object]) -> bool:
    def resolve(side):
        return saved.get(side.name) if isinstance(side, Name) else side.value
    left, right = resolve(node.left), resolve(node.right)
    op = node.op
    if left is None or right is None:
        same = left is None and right is None
        return {"==": same, "!=": not same}.get(op, False)
    literal_number = any(isinstance(s, Literal) and not s.is_text and s.value is not None
                         for s in (node.left, node.right))
    literal_text = any(isinstance(s, Literal) and s.is_text for s in (node.left, node.right))
    a, b = as_number(left), as_number(right)
    if literal_number or (not literal_text and a is not None and b is not None):
        if a is None or b is None:
            return op == "!="
    else:
        a, b = _text(left), _text(right)
        if a is None or b is None:
            return op == "!="
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _text(value) -> str | None:
    if isinstance(value, tuple):
        return None
    return str(value)
