"""A step's own fields, read from its TOML table: the command (script references
resolved), the reply it expects, its `when` condition, its prediction question. Every
complaint is one line, as the loader's (scenario/loader.py)."""

from __future__ import annotations

import re

from playground.i18n import reworded, tr
from playground.resp.cli_lines import RepeatError, SplitError, parse_line
from playground.scenario.fields import Where, check_unknown, read_list, read_typed
from playground.scenario.model import SCRIPT_REF, SHA_IN_TEXT, Expect, Prediction, script_sha
from playground.scenario.substitution import escape
from playground.scenario.when import WhenError, parse_when

EXPECT_FIELDS = {"reply", "error", "match"}
PREDICT_FIELDS = {"question", "choices", "answer", "explain"}


def read_expect(raw: dict, where: Where, scripts: dict, part, n, prefix: str | None) -> Expect:
    """A step's expected reply (reply, or error and/or match), checked; script references must name a script.

    Args:
        raw: the table holding the fields as the TOML has it.
        where: the file, for messages.
        scripts: the scenario's scripts by name.
        part: the part's name, for messages.
        n: the step's number, for messages.
        prefix: the table's own field name, put before each field in messages (None: the step's own).
    """
    def name(f: str) -> str:
        return f"{prefix}.{f}" if prefix else f
    for f in EXPECT_FIELDS:
        if f in raw and not isinstance(raw[f], str):
            raise where.error(tr("must be text"), part=part, step=n, field_name=name(f))
    if "reply" in raw and ("error" in raw or "match" in raw):
        raise where.error(tr("reply is the whole reply: use it alone, or error and/or match"),
                          part=part, step=n, field_name=name("reply"))
    if "match" in raw:
        try:
            re.compile(raw["match"])
        except re.error as exc:
            raise where.error(tr("bad regular expression: {error}", error=exc), part=part, step=n,
                              field_name=name("match")) from None
    if "error" in raw and not re.match(r"^\S+$", raw["error"]):
        raise where.error(tr("only the error code, one word (\"WRONGTYPE\"); check the message with match"),
                          part=part, step=n, field_name=name("error"))
    for f in ("reply", "match"):
        for ref in SHA_IN_TEXT.findall(raw.get(f, "")):
            if ref not in scripts:
                raise where.error(tr("unknown script ${name}", name=ref), part=part, step=n, field_name=name(f))
    return Expect(raw.get("reply"), raw.get("error"), raw.get("match"))


def read_when(raw: dict, where: Where, part, n, client: str, known: set[str]):
    """A step's `when` condition, parsed; every name it uses must be one `client` saved before.

    Args:
        raw: the step's table as the TOML has it.
        where: the file, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
        client: the step's client.
        known: the names that client saved in earlier steps.
    """
    source = raw["when"]
    if not isinstance(source, str):
        raise where.error(tr('a condition as text, like: seen > 0, or seen == "active"'),
                          part=part, step=n, field_name="when")
    quoted_nil = re.search(r"""["']\(nil\)["']""", source)
    if quoted_nil:
        raise where.error(tr('column {column}: "(nil)" is text; a nil reply is written nil (or (nil)), without quotes',
                             column=quoted_nil.start() + 1), part=part, step=n, field_name="when")
    try:
        when = parse_when(source)
    except WhenError as exc:
        raise where.error(str(exc), part=part, step=n, field_name="when") from None
    for name in when.names:
        if name not in known:
            column = re.search(rf"\b{re.escape(name)}\b", source)
            problem = tr("{name} is not saved by an earlier step of client {client}", name=repr(name), client=client)
            if column:
                problem = tr("column {column}: {message}", column=column.start() + 1, message=problem)
            raise where.error(problem,
                              part=part, step=n, field_name="when")
    return when


def read_command(command, where: Where, scripts: dict, part=None, step=None, field_name="command") -> tuple[bytes, ...]:
    """The arguments as template text: script references replaced (their `$` doubled),
    everything else as written."""
    if isinstance(command, list):
        if not command or not all(isinstance(a, str) for a in command):
            raise where.error(tr("a list of arguments must hold text"), part=part, step=step, field_name=field_name)
        argv = [a.encode() for a in command]
    elif isinstance(command, str):
        try:
            parsed = parse_line(command)
        except SplitError:
            raise where.error(tr("{command}: Invalid argument(s) (unbalanced quotes?)", command=repr(command)),
                              part=part, step=step, field_name=field_name) from None
        except RepeatError:
            raise where.error(tr("{command}: bad repeat count", command=repr(command)), part=part, step=step,
                              field_name=field_name) from None
        if parsed is None:
            raise where.error(tr("empty command"), part=part, step=step, field_name=field_name)
        if parsed.repeat != 1:
            raise where.error(tr("repeat counts are not for scenarios: write the step again"),
                              part=part, step=step, field_name=field_name)
        argv = parsed.argv
    else:
        raise where.error(tr("text, or a list of arguments"), part=part, step=step, field_name=field_name)
    out = []
    for arg in argv:
        ref = SCRIPT_REF.match(arg.decode("utf-8", "replace"))
        if ref:
            name, sha = ref.group(1), ref.group(2)
            if name not in scripts:
                raise where.error(tr("unknown script ${name} (scripts: {scripts}; a literal $ is written $$)",
                                     name=name, scripts=", ".join(scripts) or tr("none")),
                                  part=part, step=step, field_name=field_name)
            arg = escape(script_sha(scripts[name]) if sha else scripts[name]).encode()
        out.append(arg)
    return tuple(out)


def read_predict(raw, where: Where, part, n) -> Prediction:
    """A step's `predict` table (question, choices, answer, explain) as a Prediction.

    Args:
        raw: the table as the TOML has it.
        where: the file, for messages.
        part: the part's name, for messages.
        n: the step's number, for messages.
    """
    if not isinstance(raw, dict):
        raise where.error(tr("a table with question, choices, answer, explain"), part=part, step=n,
                          field_name="predict")
    check_unknown(raw, PREDICT_FIELDS, where, part=part, step=n, prefix="predict")
    question = read_typed(raw, "question", str, where, part, n, "predict", required=True)
    choices = read_list(raw.get("choices"), where, "predict.choices", part, n)
    if len(choices) < 2:
        raise where.error(tr("at least two choices"), part=part, step=n, field_name="predict.choices")
    answer = read_typed(raw, "answer", int, where, part, n, "predict", required=True)
    if not 1 <= answer <= len(choices):
        raise where.error(tr("answer {answer}: the number of a choice, 1 to {count}", answer=answer,
                             count=len(choices)),
                          part=part, step=n, field_name="predict.answer")
    explain = read_typed(raw, "explain", str, where, part, n, "predict", required=True)
    return Prediction(question, tuple(choices), answer, reworded(explain, str.strip))
