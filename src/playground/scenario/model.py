"""Scenario files: the model, and a loader whose every complaint is one line.

One TOML file per scenario (read with `tomllib`), written for a teacher to read and edit.
The format is documented in docs/scenarios.md. A mistake is reported as
`FILE: step N: FIELD: what is wrong` (with TOML's own line number when it has one).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from playground.resp.cli_lines import RepeatError, SplitError, format_argv, parse_line
from playground.errors import ScenarioError
from playground.i18n import ENGLISH, PAUSE_TEXT
from playground.scenario.setup_rules import setup_problem
from playground.scenario.translations import localise

CLIENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
SCRIPT_REF = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_-]*)(\.sha)?$")
SHA_IN_TEXT = re.compile(r"\$([A-Za-z_][A-Za-z0-9_-]*)\.sha")


@dataclass(frozen=True)
class Requirement:
    """What a server must be or have: flavour, minimum version, commands."""

    flavour: str | None = None
    min_version: tuple[int, ...] | None = None
    commands: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = []
        if self.flavour:
            parts.append(self.flavour.capitalize())
        if self.min_version:
            parts.append(">= " + ".".join(map(str, self.min_version)))
        if self.commands:
            parts.append("command " + ", ".join(self.commands))
        return " ".join(parts)


@dataclass(frozen=True)
class StateCheck:
    """One expectation on a key after a step."""

    key: bytes
    value: str | None = None
    absent: bool = False
    exists: bool = False
    type: str | None = None
    ttl: tuple[int, int] | None = None   # inclusive range in seconds; (-1, -1) = no expiry
    list: tuple[str, ...] | None = None
    set: frozenset[str] | None = None
    hash: dict | None = None
    zset: tuple[tuple[str, float], ...] | None = None
    scard: int | None = None
    llen: int | None = None


@dataclass(frozen=True)
class Prediction:
    question: str
    choices: tuple[str, ...]
    answer: int          # 1-based
    explain: str


@dataclass(frozen=True)
class Step:
    """One move of one client, and what must be true after it."""

    number: int                      # 1-based within its part
    client: str
    argv: tuple[bytes, ...] | None   # None for a `wait` step (collects a pending reply)
    display: str                     # the command as shown to a learner
    narration: str = ""
    reply: str | None = None         # exact rendered reply
    error: str | None = None         # error code only
    match: str | None = None         # regex on the rendered reply
    state: tuple[StateCheck, ...] = ()
    predict: Prediction | None = None
    pause: str | None = None
    blocking: bool = False           # the reply comes later; a `wait` step checks it
    wait: bool = False
    sleep: float = 0.0               # seconds to let pass before the step (TTL lessons)
    server_stops: bool = False       # the command stops the server (SHUTDOWN)
    requires: Requirement | None = None
    save: str | None = None          # remember this reply under a name (for {name} and when)
    when: tuple[str, str, object] | None = None  # (name, op, literal): run only if true
    template: bool = False           # the command uses {name} / {name+1} / {name-1}
    server: str | None = None        # a server action instead of a command (scenario/server_steps.py)

    @property
    def has_reply_check(self) -> bool:
        return self.reply is not None or self.error is not None or self.match is not None

    @property
    def kind(self) -> str:
        """What the step does, one handler each in the runner (`Runner.HANDLERS`):
        "command" sends a command (after `sleep`, if any); "wait" collects the reply
        of the client's earlier blocking command."""
        if self.server is not None:
            return "server"
        return "wait" if self.wait else "command"


@dataclass(frozen=True)
class Part:
    name: str
    setup: tuple[tuple[bytes, ...], ...]
    setup_display: tuple[str, ...]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class ChallengeSpec:
    """The learner schedules each client's program; the goal is a state to reach."""

    goal: str
    part: int                         # 0-based index of the part whose programs are used
    state: tuple[StateCheck, ...]


@dataclass(frozen=True)
class Scenario:
    id: str
    path: Path
    title: str
    lesson: str
    tags: tuple[str, ...]
    requires: Requirement | None
    scripts: dict[str, str]
    clients: tuple[str, ...]
    parts: tuple[Part, ...]
    challenge: ChallengeSpec | None = None
    language: str = ENGLISH             # the language its texts were loaded in
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lang -> untranslated fields
    topology: str = "single"            # "replica" or "cluster": run and check start one
    replicas: int | None = None         # replicas (per primary in a cluster); None: the default

    def missing_translations(self, lang: str | None = None) -> tuple[str, ...]:
        """The texts with no translation into `lang` (default: the loaded language), which
        are shown in English: ("step 3 narration", "step 5 predict explain", ...)."""
        return self.missing.get(lang or self.language, ())

    def sha(self, name: str) -> str:
        return script_sha(self.scripts[name])

    @property
    def steps(self) -> list[Step]:
        return [s for p in self.parts for s in p.steps]


def script_sha(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


# -- loading ----------------------------------------------------------------------

_TOP = {"title", "lesson", "tags", "requires", "scripts", "clients", "setup", "steps", "parts", "challenge",
        "topology", "replicas"}
_PART = {"name", "setup", "steps"}
_STEP = {"client", "command", "args", "narration", "reply", "error", "match", "state", "predict",
         "pause", "blocking", "wait", "sleep", "server_stops", "requires", "save", "when"}
TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)([+-]\d+)?\}")
WHEN = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=|>=|<=|>|<)\s*(-?\d+|"[^"]*")\s*$')
_STATE = {"value", "absent", "exists", "type", "ttl", "list", "set", "hash", "zset", "scard", "llen"}
_PREDICT = {"question", "choices", "answer", "explain"}
_REQUIRES = {"flavour", "min_version", "command", "commands"}
_TYPES = {"string", "list", "set", "zset", "hash", "stream", "none"}


class _Where:
    """Builds `FILE: part P: step N: FIELD: message` lines."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, message: str, *, part: str | None = None, step: int | None = None,
              field_name: str | None = None) -> ScenarioError:
        where = [str(self.path)]
        if part:
            where.append(f"part {part!r}")
        if step is not None:
            where.append(f"step {step}")
        if field_name:
            where.append(field_name)
        return ScenarioError(": ".join(where + [message]))


MAX_FILE_BYTES = 4 * 1024 * 1024
"""A scenario is a page of text; a bigger file is refused before it is read."""


def load_scenario(path: str | Path, lang: str = ENGLISH) -> Scenario:
    """Read and validate one scenario file; ScenarioError (one line) if anything is off.
    Its texts are in `lang` ("en", "zh", see playground.i18n), English where not translated."""
    path = Path(path)
    where = _Where(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise where.error(f"too big for a scenario (more than {MAX_FILE_BYTES // 2**20} MB)")
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise where.error("no such file") from None
    except IsADirectoryError:
        raise where.error("a directory, not a scenario file") from None
    except OSError as exc:
        raise where.error(f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise where.error(f"not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise where.error(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise where.error("too deeply nested (arrays or tables inside each other)") from None
    except ValueError:  # tomllib's int() of a number past Python's 4300 digits
        raise where.error("not valid TOML: a number of more than 4300 digits") from None
    return parse_scenario(data, path, lang)


def parse_scenario(data: dict, path: Path, lang: str = ENGLISH) -> Scenario:
    where = _Where(path)
    data, missing = localise(data, lang, where)
    _unknown(data, _TOP, where)
    title = _text(data, "title", where, required=True)
    lesson = _text(data, "lesson", where, required=True)
    tags = tuple(_list_of_str(data.get("tags", []), where, "tags"))
    requires = _requires(data.get("requires"), where, "requires") if "requires" in data else None
    scripts = data.get("scripts", {})
    if not isinstance(scripts, dict) or not all(isinstance(v, str) for v in scripts.values()):
        raise where.error("a table of name = \"\"\"lua source\"\"\"", field_name="scripts")
    for name in scripts:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", name):
            raise where.error(f"script name {name!r}: use letters, digits, - and _", field_name="scripts")
    clients = tuple(_list_of_str(data.get("clients", ["A", "B"]), where, "clients"))
    for c in clients:
        if not CLIENT_RE.match(c):
            raise where.error(f"client name {c!r}: use letters, digits, - and _", field_name="clients")
    if "parts" in data:
        if "steps" in data or "setup" in data:
            raise where.error("use either top-level setup/steps or [[parts]], not both", field_name="parts")
        raw_parts = data["parts"]
        if not isinstance(raw_parts, list) or not raw_parts or not all(isinstance(p, dict) for p in raw_parts):
            raise where.error("[[parts]] tables, each with name, setup and steps", field_name="parts")
    else:
        raw_parts = [{"name": "", "setup": data.get("setup", []), "steps": data.get("steps")}]
    from playground.scenario.server_steps import parse_topology
    topology, replicas = parse_topology(data, where)
    parts = []
    for i, raw in enumerate(raw_parts, 1):
        _unknown(raw, _PART, where, part=raw.get("name") or str(i))
        parts.append(_part(raw, i, where, scripts, clients, topology))
    challenge = _challenge(data["challenge"], where, parts) if "challenge" in data else None
    return Scenario(path.stem, path, title, lesson.strip(), tags, requires, dict(scripts),
                    clients, tuple(parts), challenge, lang, missing, topology, replicas)


def _part(raw: dict, index: int, where: _Where, scripts: dict, clients: tuple, topology: str = "single") -> Part:
    name = raw.get("name", "")
    label = name or (str(index) if index > 1 else None)
    if not isinstance(name, str):
        raise where.error("must be text", part=str(index), field_name="name")
    setup_raw = raw.get("setup", [])
    if not isinstance(setup_raw, list) or not all(isinstance(c, str) for c in setup_raw):
        raise where.error('a list of commands, e.g. ["SET balance 150"]', part=label, field_name="setup")
    setup, shown = [], []
    for line in setup_raw:
        argv = _command(line, where, scripts, part=label, field_name="setup")
        setup.append(argv)
        shown.append(line)
    problem = setup_problem(setup)
    if problem:
        raise where.error(f"command {problem[0]}: {problem[1]}", part=label, field_name="setup")
    steps_raw = raw.get("steps")
    if not isinstance(steps_raw, list) or not steps_raw:
        raise where.error("at least one [[steps]] table is needed", part=label, field_name="steps")
    steps = []
    blocked: set[str] = set()
    saved: dict[str, set[str]] = {c: set() for c in clients}
    for n, step_raw in enumerate(steps_raw, 1):
        step = _step(step_raw, n, where, scripts, clients, label, saved, topology)
        if step.wait:
            if step.client not in blocked:
                raise where.error(f"client {step.client} has no blocking step to wait for",
                                  part=label, step=n, field_name="wait")
            blocked.discard(step.client)
        elif step.client in blocked and not step.server_stops:
            raise where.error(f"client {step.client} is still blocked; add a wait step first",
                              part=label, step=n, field_name="client")
        if step.blocking:
            blocked.add(step.client)
        if step.server_stops:
            blocked.clear()
        steps.append(step)
    return Part(name, tuple(setup), tuple(shown), tuple(steps))


def _step(raw, n: int, where: _Where, scripts: dict, clients: tuple, part: str | None,
          saved: dict[str, set[str]], topology: str = "single") -> Step:
    if not isinstance(raw, dict):
        raise where.error("each step is a [[steps]] table", part=part, step=n)
    if "server" in raw:
        from playground.scenario.server_steps import parse_server_step
        return parse_server_step(raw, n, where, clients, part, topology, step_class=Step, predict=_predict,
                                 state=_state, requires=_requires, pause_text=PAUSE_TEXT[ENGLISH])
    _unknown(raw, _STEP, where, part=part, step=n)
    client = raw.get("client")
    if client is None:
        raise where.error("missing (which client: " + ", ".join(clients) + ")", part=part, step=n, field_name="client")
    if client not in clients:
        raise where.error(f"unknown client {client!r} (this scenario has {', '.join(clients)})",
                          part=part, step=n, field_name="client")
    wait = _bool(raw, "wait", where, part, n)
    command = raw.get("command")
    if wait:
        if command is not None:
            raise where.error("a wait step has no command: it collects the pending reply",
                              part=part, step=n, field_name="command")
        argv, display = None, "(reply arrives)"
    else:
        if command is None:
            raise where.error("missing (the command as typed, or a list of arguments)",
                              part=part, step=n, field_name="command")
        argv = _command(command, where, scripts, part=part, step=n, field_name="command")
        display = command if isinstance(command, str) else format_argv(list(argv))
    for f in ("reply", "error", "match"):
        if f in raw and not isinstance(raw[f], str):
            raise where.error("must be text", part=part, step=n, field_name=f)
    if sum(f in raw for f in ("reply", "error", "match")) > 1:
        raise where.error("use one of reply, error, match", part=part, step=n, field_name="reply")
    if "match" in raw:
        try:
            re.compile(raw["match"])
        except re.error as exc:
            raise where.error(f"bad regular expression: {exc}", part=part, step=n, field_name="match") from None
    for f in ("reply", "match"):
        for ref in SHA_IN_TEXT.findall(raw.get(f, "")):
            if ref not in scripts:
                raise where.error(f"unknown script ${ref}", part=part, step=n, field_name=f)
    state = _state(raw.get("state", {}), where, part, n)
    predict = _predict(raw["predict"], where, part, n) if "predict" in raw else None
    pause = raw.get("pause")
    if pause is True:
        pause = PAUSE_TEXT[ENGLISH]
    elif pause is False:
        pause = None
    elif pause is not None and not isinstance(pause, str):
        raise where.error("true, or the question to discuss", part=part, step=n, field_name="pause")
    sleep = raw.get("sleep", 0)
    if not isinstance(sleep, (int, float)) or isinstance(sleep, bool) or not 0 <= sleep <= 30:
        raise where.error("seconds to wait, 0 to 30", part=part, step=n, field_name="sleep")
    blocking = _bool(raw, "blocking", where, part, n)
    if blocking and wait:
        raise where.error("a step cannot both block and wait", part=part, step=n, field_name="blocking")
    requires = _requires(raw["requires"], where, "requires", part, n) if "requires" in raw else None
    narration = raw.get("narration", "")
    if not isinstance(narration, str):
        raise where.error("must be text", part=part, step=n, field_name="narration")
    known = saved[client]
    for a in argv or ():
        for m in TEMPLATE.finditer(a.decode("utf-8", "replace")):
            if m.group(2) and not _in_int64(m.group(2)):
                raise where.error(f"{{{m.group(1)}{_short(m.group(2))}}}: add or subtract a number "
                                  f"from {-2**63} to {2**63 - 1}", part=part, step=n, field_name="command")
    template = bool(argv) and any(m.group(1) in known for a in argv
                                  for m in TEMPLATE.finditer(a.decode("utf-8", "replace")))
    when = None
    if "when" in raw:
        m = WHEN.match(raw["when"]) if isinstance(raw["when"], str) else None
        if not m:
            raise where.error('like: seen > 0, or seen == "active"', part=part, step=n, field_name="when")
        if m.group(1) not in known:
            raise where.error(f"{m.group(1)!r} is not saved by an earlier step of client {client}",
                              part=part, step=n, field_name="when")
        literal = m.group(3)
        if not literal.startswith('"') and not _in_int64(literal):
            raise where.error(f"{_short(literal)}: a number from {-2**63} to {2**63 - 1}",
                              part=part, step=n, field_name="when")
        when = (m.group(1), m.group(2), literal[1:-1] if literal.startswith('"') else int(literal))
    save = raw.get("save")
    if save is not None:
        if not isinstance(save, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", save):
            raise where.error("a name: letters, digits and _", part=part, step=n, field_name="save")
        known.add(save)
    return Step(n, client, argv, display, narration.strip(), raw.get("reply"), raw.get("error"),
                raw.get("match"), state, predict, pause, blocking, wait, float(sleep),
                _bool(raw, "server_stops", where, part, n), requires, save, when, template)


def _command(command, where: _Where, scripts: dict, part=None, step=None, field_name="command") -> tuple[bytes, ...]:
    if isinstance(command, list):
        if not command or not all(isinstance(a, str) for a in command):
            raise where.error("a list of arguments must hold text", part=part, step=step, field_name=field_name)
        argv = [a.encode() for a in command]
    elif isinstance(command, str):
        try:
            parsed = parse_line(command)
        except SplitError:
            raise where.error(f"{command!r}: Invalid argument(s) (unbalanced quotes?)",
                              part=part, step=step, field_name=field_name) from None
        except RepeatError:
            raise where.error(f"{command!r}: bad repeat count", part=part, step=step, field_name=field_name) from None
        if parsed is None:
            raise where.error("empty command", part=part, step=step, field_name=field_name)
        if parsed.repeat != 1:
            raise where.error("repeat counts are not for scenarios: write the step again",
                              part=part, step=step, field_name=field_name)
        argv = parsed.argv
    else:
        raise where.error("text, or a list of arguments", part=part, step=step, field_name=field_name)
    out = []
    for arg in argv:
        ref = SCRIPT_REF.match(arg.decode("utf-8", "replace"))
        if ref:
            name, sha = ref.group(1), ref.group(2)
            if name not in scripts:
                raise where.error(f"unknown script ${name} (scripts: {', '.join(scripts) or 'none'})",
                                  part=part, step=step, field_name=field_name)
            arg = (script_sha(scripts[name]) if sha else scripts[name]).encode()
        out.append(arg)
    return tuple(out)


def _state(raw, where: _Where, part, n) -> tuple[StateCheck, ...]:
    if not isinstance(raw, dict):
        raise where.error('a table: key = "value" or key = { absent = true, ttl = [1, 60], ... }',
                          part=part, step=n, field_name="state")
    checks = []
    for key, spec in raw.items():
        fname = f"state.{key}"
        if isinstance(spec, str):
            checks.append(StateCheck(key.encode(), value=spec))
            continue
        if not isinstance(spec, dict) or not spec:
            raise where.error("text (the string value) or a table of checks", part=part, step=n, field_name=fname)
        _unknown(spec, _STATE, where, part=part, step=n, prefix=fname)
        kw: dict = {}
        if "value" in spec:
            kw["value"] = _typed(spec, "value", str, where, part, n, fname)
        for flag in ("absent", "exists"):
            if flag in spec:
                kw[flag] = _typed(spec, flag, bool, where, part, n, fname)
        if "type" in spec:
            t = _typed(spec, "type", str, where, part, n, fname)
            if t not in _TYPES:
                raise where.error(f"type {t!r}: one of {', '.join(sorted(_TYPES))}", part=part, step=n, field_name=fname)
            kw["type"] = t
        if "ttl" in spec:
            ttl = spec["ttl"]
            if isinstance(ttl, int) and not isinstance(ttl, bool):
                kw["ttl"] = (ttl, ttl)
            elif (isinstance(ttl, list) and len(ttl) == 2 and all(isinstance(x, int) for x in ttl)
                  and ttl[0] <= ttl[1]):
                kw["ttl"] = (ttl[0], ttl[1])
            else:
                raise where.error("ttl: seconds, -1 for no expiry, or [min, max]", part=part, step=n, field_name=fname)
        if "list" in spec:
            kw["list"] = tuple(_list_of_str(spec["list"], where, fname + ".list", part, n))
        if "set" in spec:
            kw["set"] = frozenset(_list_of_str(spec["set"], where, fname + ".set", part, n))
        if "hash" in spec:
            h = spec["hash"]
            if not isinstance(h, dict) or not all(isinstance(v, str) for v in h.values()):
                raise where.error("hash: a table of field = \"value\"", part=part, step=n, field_name=fname)
            kw["hash"] = dict(h)
        if "zset" in spec:
            z = spec["zset"]
            if not isinstance(z, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                                  and isinstance(p[1], (int, float)) for p in z):
                raise where.error('zset: a list of ["member", score] pairs', part=part, step=n, field_name=fname)
            kw["zset"] = tuple((p[0], float(p[1])) for p in z)
        for count in ("scard", "llen"):
            if count in spec:
                kw[count] = _typed(spec, count, int, where, part, n, fname)
        if kw.get("absent") and len(kw) > 1:
            raise where.error("absent = true cannot be combined with other checks", part=part, step=n, field_name=fname)
        checks.append(StateCheck(key.encode(), **kw))
    return tuple(checks)


def _challenge(raw, where: _Where, parts: list) -> ChallengeSpec:
    if not isinstance(raw, dict):
        raise where.error("a table with goal, state and (optionally) part", field_name="challenge")
    _unknown(raw, {"goal", "part", "state"}, where, prefix="challenge")
    goal = _typed(raw, "goal", str, where, None, None, "challenge", required=True)
    part = _typed(raw, "part", int, where, None, None, "challenge") or 1
    if not 1 <= part <= len(parts):
        raise where.error(f"part {part}: the number of a part, 1 to {len(parts)}", field_name="challenge.part")
    if "state" not in raw:
        raise where.error("missing: the state that means the race happened", field_name="challenge.state")
    state = _state(raw["state"], where, None, None)
    if not state:
        raise where.error("at least one key to check", field_name="challenge.state")
    return ChallengeSpec(goal, part - 1, state)


def _predict(raw, where: _Where, part, n) -> Prediction:
    if not isinstance(raw, dict):
        raise where.error("a table with question, choices, answer, explain", part=part, step=n, field_name="predict")
    _unknown(raw, _PREDICT, where, part=part, step=n, prefix="predict")
    question = _typed(raw, "question", str, where, part, n, "predict", required=True)
    choices = _list_of_str(raw.get("choices"), where, "predict.choices", part, n)
    if len(choices) < 2:
        raise where.error("at least two choices", part=part, step=n, field_name="predict.choices")
    answer = _typed(raw, "answer", int, where, part, n, "predict", required=True)
    if not 1 <= answer <= len(choices):
        raise where.error(f"answer {answer}: the number of a choice, 1 to {len(choices)}",
                          part=part, step=n, field_name="predict.answer")
    explain = _typed(raw, "explain", str, where, part, n, "predict", required=True)
    return Prediction(question, tuple(choices), answer, explain.strip())


def _requires(raw, where: _Where, fname: str, part=None, n=None) -> Requirement:
    if not isinstance(raw, dict):
        raise where.error("a table: flavour, min_version, command", part=part, step=n, field_name=fname)
    _unknown(raw, _REQUIRES, where, part=part, step=n, prefix=fname)
    flavour = raw.get("flavour")
    if flavour is not None and flavour not in ("redis", "valkey"):
        raise where.error("flavour: \"redis\" or \"valkey\"", part=part, step=n, field_name=fname)
    version = raw.get("min_version")
    parsed_version = None
    if version is not None:
        if not isinstance(version, str) or not re.match(r"^\d{1,5}(\.\d{1,5}){0,2}$", version):
            raise where.error('min_version: like "7.0" or "8.4.0"', part=part, step=n, field_name=fname)
        parsed_version = tuple(int(x) for x in version.split("."))
    commands = raw.get("commands", [])
    if "command" in raw:
        commands = [raw["command"]]
    commands = _list_of_str(commands, where, fname + ".command", part, n)
    return Requirement(flavour, parsed_version, tuple(c.upper() for c in commands))


def _in_int64(digits: str) -> bool:
    """Is this decimal text (sign allowed) a 64-bit integer? Checked by length first:
    Python refuses int() of more than 4300 digits."""
    body = digits.lstrip("+-")
    return len(body) <= 19 and -2**63 <= int(digits) <= 2**63 - 1


def _short(text: str) -> str:
    """A value for a message: a 5000-digit number is not printed whole."""
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} characters)"


def _unknown(raw: dict, allowed: set, where: _Where, part=None, step=None, prefix=None) -> None:
    for key in raw:
        if key not in allowed:
            name = f"{prefix}.{key}" if prefix else key
            raise where.error(f"unknown field (known: {', '.join(sorted(allowed))})",
                              part=part, step=step, field_name=name)


def _text(data: dict, key: str, where: _Where, required: bool = False) -> str:
    if key not in data:
        if required:
            raise where.error("missing", field_name=key)
        return ""
    if not isinstance(data[key], str) or not data[key].strip():
        raise where.error("must be non-empty text", field_name=key)
    return data[key]


def _typed(raw: dict, key: str, kind, where: _Where, part, n, prefix, required: bool = False):
    if key not in raw:
        if required:
            raise where.error("missing", part=part, step=n, field_name=f"{prefix}.{key}")
        return None
    value = raw[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise where.error(f"must be {kind.__name__}", part=part, step=n, field_name=f"{prefix}.{key}")
    return value


def _bool(raw: dict, key: str, where: _Where, part, n) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise where.error("true or false", part=part, step=n, field_name=key)
    return value


def _list_of_str(value, where: _Where, fname: str, part=None, n=None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise where.error("a list of text", part=part, step=n, field_name=fname)
    return list(value)
