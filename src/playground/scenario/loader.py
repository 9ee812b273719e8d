"""Read a scenario file into a Scenario; every complaint is one line.

One TOML file per scenario (read with `tomllib`), written for a teacher to read and edit.
The format is documented in docs/scenarios.md. A mistake is reported as
`FILE: part P: step N: FIELD: what is wrong` (with TOML's own line number when it has one).
"""

from __future__ import annotations

from dataclasses import replace

import re
import tomllib
from pathlib import Path

from playground.errors import ScenarioError  # noqa: F401 (re-exported)
from playground.i18n import ENGLISH, PAUSE_TEXT, reworded, tr
from playground.resp.cli_lines import format_argv
from playground.scenario.checks import parse_state
from playground.scenario.fields import (Where, check_unknown, read_bool, read_list, read_requires,
                                        read_text, read_typed)
from playground.scenario.model import (CLIENT_RE, FLAVOURS, MAX_CLIENTS, STEP_KINDS, ChallengeSpec, Part,
                                       Requirement, Scenario, Step)
from playground.scenario.setup_rules import setup_problem
from playground.scenario.source import MAX_FILE_BYTES, read_source  # noqa: F401 (MAX_FILE_BYTES re-exported)
from playground.scenario.substitution import (TEMPLATE, fill_template, names_in,
                                              template_problem, unescape)
from playground.scenario.translations import localise
from playground.topology_kinds import SINGLE
from playground.scenario.step_fields import (EXPECT_FIELDS, read_command, read_expect, read_predict,
                                             read_when)

_TOP = {"title", "lesson", "order", "tags", "requires", "scripts", "clients", "setup", "steps", "parts", "challenge",
        "topology", "replicas", "script_time_limit_ms", "time_limit", "programs", "program_time_limit",
        "programs_need", "explore_by", "expect"}
_PART = {"name", "setup", "steps", "requires", "programs", "expect"}
_STEP = {"client", "command", "args", "narration", "reply", "error", "match", "state", "predict",
         "pause", "blocking", "sleep", "server_stops", "requires", "save", "when", "bound", *STEP_KINDS, *FLAVOURS}
EXPLORE_BY = ("state", "replies", "both")  # the explorer's own (explore/explorer.py BY), checked by a test
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

def load_scenario(path: str | Path, lang: str = ENGLISH) -> Scenario:
    """Read and validate one scenario file; ScenarioError (one line) if anything is off.
    Its texts are in `lang` ("en", "zh", see playground.i18n), English where not translated."""
    path = Path(path)
    where = Where(path)
    raw = read_source(path, where)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise where.error(tr("not UTF-8 text ({reason})", reason=exc.reason)) from None
    except tomllib.TOMLDecodeError as exc:
        raise where.error(tr("not valid TOML: {error}", error=exc)) from None
    except RecursionError:
        raise where.error(tr("too deeply nested (arrays or tables inside each other)")) from None
    except ValueError:  # tomllib's int() of a number past Python's 4300 digits
        raise where.error(tr("not valid TOML: a number of more than 4300 digits")) from None
    return parse_scenario(data, path, lang)


def parse_scenario(data: dict, path: Path, lang: str = ENGLISH) -> Scenario:
    where = Where(path)
    data, missing = localise(data, lang, where)
    check_unknown(data, _TOP, where)
    title = read_text(data, "title", where, required=True)
    lesson = read_text(data, "lesson", where, required=True)
    tags = tuple(read_list(data.get("tags", []), where, "tags"))
    requires = read_requires(data.get("requires"), where, "requires") if "requires" in data else None
    scripts = data.get("scripts", {})
    if not isinstance(scripts, dict) or not all(isinstance(v, str) for v in scripts.values()):
        raise where.error(tr("a table of name = \"\"\"lua source\"\"\""), field_name="scripts")
    for name in scripts:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", name):
            raise where.error(tr("script name {name}: use letters, digits, - and _", name=repr(name)),
                              field_name="scripts")
    clients = tuple(read_list(data.get("clients", ["A", "B"]), where, "clients"))
    if len(clients) > MAX_CLIENTS:
        raise where.error(tr("at most {count} clients", count=MAX_CLIENTS), field_name="clients")
    for c in clients:
        if not CLIENT_RE.match(c):
            raise where.error(tr("client name {name}: use letters, digits, - and _", name=repr(c)), field_name="clients")
    if "parts" in data:
        if "steps" in data or "setup" in data or "expect" in data:
            raise where.error(tr("use either top-level setup/steps/expect or [[parts]], not both"), field_name="parts")
        raw_parts = data["parts"]
        if not isinstance(raw_parts, list) or not raw_parts or not all(isinstance(p, dict) for p in raw_parts):
            raise where.error(tr("[[parts]] tables, each with name, setup and steps"), field_name="parts")
    else:
        raw_parts = [{"name": "", "setup": data.get("setup", []), "steps": data.get("steps"),
                      **({"expect": data["expect"]} if "expect" in data else {})}]
    from playground.scenario.programs.lesson_format import mark_program_steps, parse_needs, parse_part_programs, parse_programs
    programs, program_time_limit = parse_programs(data, where, clients)
    needs = parse_needs(data, where)
    raw_parts = mark_program_steps(raw_parts, programs, where)
    from playground.scenario.server_steps import parse_topology
    topology, replicas = parse_topology(data, where)
    parts = []
    for i, raw in enumerate(raw_parts, 1):
        check_unknown(raw, _PART, where, part=raw.get("name") or str(i))
        part = _part(raw, i, where, scripts, clients, topology,
                     stepless=bool(programs) and set(clients) <= set(programs))
        label = raw.get("name") or (str(i) if len(raw_parts) > 1 else None)
        part = replace(part, programs=parse_part_programs(raw, programs, where, part=raw.get("name") or str(i)))
        if "expect" in raw:
            from playground.scenario.expectations import parse_expect
            part = replace(part, expect=parse_expect(raw["expect"], where, {**programs, **dict(part.programs)}, label))
        parts.append(part)
    challenge = _challenge(data["challenge"], where, parts) if "challenge" in data else None
    order = data.get("order")
    if order is not None and (type(order) is not int or not 1 <= order <= 9999):
        raise where.error(tr("its place in the course: a whole number from 1 to 9999"), field_name="order")
    limit = data.get("script_time_limit_ms")
    if limit is not None and (type(limit) is not int or not 1 <= limit <= 60000):
        raise where.error(tr("milliseconds a script runs before others get BUSY: a whole number from 1 to 60000"),
                          field_name="script_time_limit_ms")
    seconds = data.get("time_limit")
    if seconds is not None and (type(seconds) not in (int, float) or not 0 < seconds <= 600):
        raise where.error(tr("seconds a setup or step may take: a number above 0, at most 600"), field_name="time_limit")
    explore_by = data.get("explore_by")
    if explore_by is not None and explore_by not in EXPLORE_BY:
        raise where.error(tr("what its explored outcomes compare: one of {choices}", choices=", ".join(EXPLORE_BY)),
                          field_name="explore_by")
    return Scenario(path.stem, path, title, reworded(lesson, str.strip), tags, requires, dict(scripts),
                    clients, tuple(parts), challenge, lang, missing, order, topology, replicas, limit,
                    programs, program_time_limit, needs, time_limit=seconds, explore_by=explore_by)


def _part(raw: dict, index: int, where: Where, scripts: dict, clients: tuple, topology: str = SINGLE.name,
          stepless: bool = False) -> Part:
    """One part; `stepless`: every client is a program, so its steps may be left out (the
    moves are then the commands the programs send)."""
    name = raw.get("name", "")
    label = name or (str(index) if index > 1 else None)
    if not isinstance(name, str):
        raise where.error(tr("must be text"), part=str(index), field_name="name")
    requires = read_requires(raw["requires"], where, "requires", part=label) if "requires" in raw else None
    setup_raw = raw.get("setup", [])
    if not isinstance(setup_raw, list) or not all(isinstance(c, str) for c in setup_raw):
        raise where.error(tr('a list of commands, e.g. ["SET balance 150"]'), part=label, field_name="setup")
    setup, shown = [], []
    for line in setup_raw:
        texts = read_command(line, where, scripts, part=label, field_name="setup")
        for text in texts:
            problem = template_problem(text.decode("utf-8", "surrogateescape"), set())
            if problem:
                raise where.error(problem, part=label, field_name="setup")
        setup.append(tuple(fill_template(t, {}) for t in texts))
        shown.append(unescape(line))
    problem = setup_problem(setup)
    if problem:
        raise where.error(tr("command {n}: {problem}", n=problem[0], problem=problem[1]), part=label, field_name="setup")
    steps_raw = raw.get("steps")
    if steps_raw is None and stepless:
        steps_raw = []
    elif not isinstance(steps_raw, list) or not steps_raw:
        raise where.error(tr("at least one [[steps]] table is needed"), part=label, field_name="steps")
    steps = []
    blocked: set[str] = set()
    saved: dict[str, set[str]] = {c: set() for c in clients}
    for n, step_raw in enumerate(steps_raw, 1):
        step = _bound(step_raw, n, where, label, _step(
            {k: v for k, v in step_raw.items() if k != "bound"} if isinstance(step_raw, dict) else step_raw,
            n, where, scripts, clients, label, saved, requires, topology))
        if step.wait:
            if step.client not in blocked:
                raise where.error(tr("client {name} has no blocking step to wait for", name=step.client),
                                  part=label, step=n, field_name="wait")
            blocked.discard(step.client)
        elif step.client in blocked and not step.server_stops:
            raise where.error(tr("client {name} is still blocked; add a wait step first", name=step.client),
                              part=label, step=n, field_name="client")
        if step.blocking:
            blocked.add(step.client)
        if step.server_stops:
            blocked.clear()
        steps.append(step)
    return Part(name, tuple(setup), tuple(shown), tuple(steps), requires)


def _bound(raw, n: int, where: Where, part, step: Step) -> Step:
    """`bound = true`: the step runs right after the one before it (TTL lessons): it has
    no `predict` or `pause` of its own, and the first step of a part cannot be bound."""
    if not isinstance(raw, dict) or not read_bool(raw, "bound", where, part, n):
        return step
    if n == 1:
        raise where.error(tr("the first step of a part has no step before it to be bound to"),
                          part=part, step=n, field_name="bound")
    for name in ("predict", "pause"):
        if name in raw:
            raise where.error(tr("a bound step runs right after the one before it: it cannot have {field}",
                                 field=name), part=part, step=n, field_name="bound")
    return replace(step, bound=True)


def _step(raw, n: int, where: Where, scripts: dict, clients: tuple, part: str | None,
          saved: dict[str, set[str]], part_requires: Requirement | None = None,
          topology: str = SINGLE.name) -> Step:
    if not isinstance(raw, dict):
        raise where.error(tr("each step is a [[steps]] table"), part=part, step=n)
    if "server" in raw:
        from playground.scenario.server_steps import parse_server_step
        return parse_server_step(raw, n, where, clients, part, topology, step_class=Step, predict=read_predict,
                                 state=parse_state, requires=read_requires, pause_text=PAUSE_TEXT)
    check_unknown(raw, _STEP, where, part=part, step=n)
    client = raw.get("client")
    if client is None:
        raise where.error(tr("missing (which client: {clients})", clients=", ".join(clients)),
                          part=part, step=n, field_name="client")
    if client not in clients:
        raise where.error(tr("unknown client {name} (this scenario has {clients})", name=repr(client),
                             clients=", ".join(clients)),
                          part=part, step=n, field_name="client")
    kinds = [k for k in STEP_KINDS if read_bool(raw, k, where, part, n)]
    if len(kinds) > 1:
        raise where.error(tr("a step is one of {kinds}", kinds=tr(" or ").join(kinds)), part=part, step=n,
                          field_name=kinds[1])
    kind = kinds[0] if kinds else "command"
    command = raw.get("command")
    if "args" in raw:
        if command is not None:
            raise where.error(tr("use command or args, not both"), part=part, step=n, field_name="args")
        if not isinstance(raw["args"], list):
            raise where.error(tr('a list of arguments: ["SET", "k", "a b"]'), part=part, step=n, field_name="args")
        command = raw["args"]
    known = saved[client]
    template = False
    if kind != "command":
        if command is not None:
            what = tr("it collects the pending reply") if kind == "wait" else tr("it opens a new connection")
            raise where.error(tr("a {kind} step has no command: {what}", kind=kind, what=what),
                              part=part, step=n, field_name="command")
        argv, display = None, {"wait": "(reply arrives)", "release": "(its next command)"}.get(kind, "(reconnects)")
    else:
        if command is None:
            raise where.error(tr("missing (the command as typed, or a list of arguments)"),
                              part=part, step=n, field_name="command")
        texts = read_command(command, where, scripts, part=part, step=n, field_name="command")
        for text in texts:
            problem = template_problem(text.decode("utf-8", "surrogateescape"), known)
            if problem:
                raise where.error(problem, part=part, step=n, field_name="command")
        template = any(names_in(t.decode("utf-8", "surrogateescape")) for t in texts)
        argv = texts if template else tuple(fill_template(t, {}) for t in texts)
        shown = command if isinstance(command, str) else format_argv([t.decode("utf-8", "surrogateescape")
                                                                      .encode() for t in texts])
        display = shown if template else unescape(shown)
    expect = read_expect(raw, where, scripts, part, n, None)
    per_server = {}
    for flavour in FLAVOURS:
        if flavour in raw:
            table = raw[flavour]
            if not isinstance(table, dict) or not table:
                raise where.error(tr("a table of reply, error and/or match for this server"),
                                  part=part, step=n, field_name=flavour)
            check_unknown(table, EXPECT_FIELDS, where, part=part, step=n, prefix=flavour)
            per_server[flavour] = read_expect(table, where, scripts, part, n, flavour)
    if kind == "reconnect" and (expect or per_server):
        raise where.error(tr("a reconnect step gets no reply to check"), part=part, step=n, field_name="reply")
    state = parse_state(raw.get("state", {}), where, part, n)
    predict = read_predict(raw["predict"], where, part, n) if "predict" in raw else None
    pause = raw.get("pause")
    if pause is True:
        pause = PAUSE_TEXT
    elif pause is False:
        pause = None
    elif pause is not None and not isinstance(pause, str):
        raise where.error(tr("true, or the question to discuss"), part=part, step=n, field_name="pause")
    sleep = raw.get("sleep", 0)
    if not isinstance(sleep, (int, float)) or isinstance(sleep, bool) or not 0 <= sleep <= 30:
        raise where.error(tr("seconds to wait, 0 to 30"), part=part, step=n, field_name="sleep")
    blocking = read_bool(raw, "blocking", where, part, n)
    if blocking and kind not in ("command", "release"):
        raise where.error(tr("a {kind} step cannot block", kind=kind), part=part, step=n, field_name="blocking")
    requires = read_requires(raw["requires"], where, "requires", part, n) if "requires" in raw else None
    if part_requires is not None:
        requires = part_requires.merged(requires)
    narration = raw.get("narration", "")
    if not isinstance(narration, str):
        raise where.error(tr("must be text"), part=part, step=n, field_name="narration")
    when = read_when(raw, where, part, n, client, known) if "when" in raw else None
    save = raw.get("save")
    if save is not None:
        if not isinstance(save, str) or not NAME_RE.match(save):
            raise where.error(tr("a name: letters, digits and _"), part=part, step=n, field_name="save")
        if kind == "reconnect":
            raise where.error(tr("a reconnect step has no reply to save"), part=part, step=n, field_name="save")
        known.add(save)
    return Step(n, client, argv, display, reworded(narration, str.strip), expect.reply, expect.error, expect.match,
                state, predict, pause, blocking, kind == "wait", float(sleep),
                read_bool(raw, "server_stops", where, part, n), requires, save, when, template,
                kind == "reconnect", per_server, release=kind == "release")


def _challenge(raw, where: Where, parts: list) -> ChallengeSpec:
    if not isinstance(raw, dict):
        raise where.error(tr("a table with goal, state and (optionally) part"), field_name="challenge")
    check_unknown(raw, {"goal", "part", "state"}, where, prefix="challenge")
    goal = read_typed(raw, "goal", str, where, None, None, "challenge", required=True)
    part = read_typed(raw, "part", int, where, None, None, "challenge") or 1
    if not 1 <= part <= len(parts):
        raise where.error(tr("part {part}: the number of a part, 1 to {count}", part=part, count=len(parts)),
                          field_name="challenge.part")
    if "state" not in raw:
        raise where.error(tr("missing: the state that means the race happened"), field_name="challenge.state")
    state = parse_state(raw["state"], where, None, None)
    if not state:
        raise where.error(tr("at least one key to check"), field_name="challenge.state")
    return ChallengeSpec(goal, part - 1, state)


__all__ = ["load_scenario", "parse_scenario", "MAX_FILE_BYTES", "TEMPLATE"]
