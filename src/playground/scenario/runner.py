"""Replay a scenario on a playground and check every outcome it asserts.

The runner adds little over the Redis round trips: it waits only where a scenario
asks for time to pass (`sleep`), and notices a blocked client from the server's flags.
It never hangs: a step that blocks unexpectedly fails and is cancelled, and a wait for
a pending reply gives up after WAIT_TIMEOUT seconds.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Callable

from playground.engine import events as ev
from playground.engine.executor import Executor, Job
from playground.engine.playground import Playground
from playground.engine.units import Unit
from playground.i18n import tr
from playground.resp.cli_format import render
from playground.resp.replies import Array, Bulk, Err, Int, Map, Nil, Status
from playground.resp.cli_lines import format_argv
from playground.scenario.model import SHA_IN_TEXT, TEMPLATE, Part, Requirement, Scenario, StateCheck, Step
from playground.engine.session import STREAMING

WAIT_TIMEOUT = 15.0


@dataclass
class CheckResult:
    what: str            # e.g. 'reply', 'error WRONGTYPE', 'state balance'
    ok: bool
    detail: str = ""     # on failure: expected vs got


@dataclass
class StepResult:
    part: str
    step: Step
    reply: str | None = None            # rendered exactly as redis-cli prints it
    checks: list[CheckResult] = field(default_factory=list)
    skipped: str | None = None          # why the step did not run
    note: str | None = None             # e.g. 'blocked: the reply comes later'
    touched: dict[str, dict] = field(default_factory=dict)  # key -> {type, ttl, value}
    command: str | None = None          # the command as run, when {name} templates filled it in
    value: object = None                # the typed reply (for the UI), None if there was none
    units: list[Unit] = field(default_factory=list)  # what the server ran, as the engine saw it
    seq: int | None = None              # server-order number of the reply
    argv: tuple[bytes, ...] | None = None  # what was sent (for a wait step: the blocking command)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


@dataclass
class ScenarioResult:
    scenario: Scenario
    server: str
    steps: list[StepResult] = field(default_factory=list)
    skipped: str | None = None          # the whole scenario did not run
    error: str | None = None            # it could not run to the end (setup failed, ...)

    @property
    def failed_checks(self) -> list[tuple[StepResult, CheckResult]]:
        return [(s, c) for s in self.steps for c in s.checks if not c.ok]

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failed_checks

    @property
    def check_count(self) -> int:
        return sum(len(s.checks) for s in self.steps)


async def requirement_unmet(pg: Playground, req: Requirement | None) -> str | None:
    """Why this server does not meet `req`, or None if it does."""
    if req is None:
        return None
    server_flavour = _flavour(pg)
    if req.flavour and req.flavour != server_flavour:
        return f"needs {req.describe()}; this is {pg.label}"
    if req.min_version and pg.server is not None and pg.server.version_tuple() < req.min_version:
        return f"needs {req.describe()}; this is {pg.label}"
    for command in req.commands:
        reply = (await pg.reader.run([[b"COMMAND", b"INFO", command.encode()]]))[0]
        if not isinstance(reply, Array) or not reply or reply[0] is Nil:
            return f"needs the command {command}; {pg.label} does not have it"
    return None


def _flavour(pg: Playground) -> str | None:
    if pg.server is not None:
        return pg.server.flavour.lower()
    return None


class Runner:
    """Runs one scenario; `on_step` sees each StepResult as soon as it is known.

    Commands go through the engine's executor (the same path as a typed line); pass
    `executor` to share one (the TUI does, with write attribution on)."""

    def __init__(self, pg: Playground, on_step: Callable[[StepResult], None] | None = None,
                 record_touched: bool = False, executor: Executor | None = None,
                 sink=None) -> None:
        self.pg = pg
        self.sink = sink  # the executor's events for the steps (None: the executor's own sink)
        self.on_step = on_step or (lambda result: None)
        self.record_touched = record_touched
        self.executor = executor or Executor(pg)
        self._pending: dict[str, tuple[Job, StepResult]] = {}
        self.saved: dict[str, dict[str, object]] = {}  # client -> name -> value (save = "...")
        self.HANDLERS = {"command": self._command_step, "wait": self._wait_step}

    async def run(self, scenario: Scenario) -> ScenarioResult:
        result = ScenarioResult(scenario, self.pg.label)
        why = await requirement_unmet(self.pg, scenario.requires)
        if why:
            result.skipped = why
            return result
        for name in scenario.clients:
            if name not in self.pg.sessions:
                result.error = f"needs client {name}, the playground has {', '.join(self.pg.sessions)}"
                return result
        for part in scenario.parts:
            error = await self.begin_part(scenario, part)
            if error:
                result.error = error
                return result
            for step in part.steps:
                step_result = await self.run_step(scenario, part.name, step)
                result.steps.append(step_result)
                self.on_step(step_result)
        await self._discard_pending()
        return result

    def preview(self, step: Step) -> str:
        """The command as this step would send it now ({n+1} filled in from saved replies)."""
        if not step.template or not step.argv:
            return step.display
        saved = self.saved.get(step.client, {})
        return format_argv([fill_template(a, saved) for a in step.argv])

    async def begin_part(self, scenario: Scenario, part: Part) -> str | None:
        """Fresh server state, then the part's setup; the error message if setup failed."""
        await self._discard_pending()
        self.saved = {}
        replies = await self.pg.reset(setup=part.setup, by=scenario.clients[0])
        for reply, shown in zip(replies, part.setup_display):
            if isinstance(reply, Err):
                return f"part {part.name or 1}: setup {shown!r} failed: {render(reply).decode().strip()}"
        return None

    async def run_step(self, scenario: Scenario, part: str, step: Step) -> StepResult:
        out = StepResult(part, step)
        why = await requirement_unmet(self.pg, step.requires)
        if why:
            out.skipped = why
            return out
        if step.when is not None:
            name, op, literal = step.when
            value = self.saved.get(step.client, {}).get(name)
            if not _compare(value, op, literal):
                out.skipped = f"{step.client} saw {name} = {_show(value)}, so it does not do this"
                return out
        await self.HANDLERS[step.kind](scenario, step, out)
        return out

    async def _command_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        argv = step.argv
        if step.template:
            argv = tuple(fill_template(a, self.saved.get(step.client, {})) for a in step.argv)
            out.command = format_argv(list(argv))
        out.argv = argv
        if step.sleep:
            await asyncio.sleep(step.sleep)
        job = self.executor.submit(step.client, argv, sink=self.sink)
        if not await job.settle():
            if step.blocking:
                out.note = tr("blocked: the reply comes later")
                self._pending[step.client] = (job, out)
                return
            await self.executor.cancel(step.client)
            await asyncio.gather(job.task, return_exceptions=True)
            out.checks.append(CheckResult("does not block", False,
                                          "the command blocked; mark the step blocking = true and add a wait step"))
            return
        if step.blocking and not step.server_stops:
            out.checks.append(CheckResult("blocks", False, "expected the command to block, it answered at once"))
        await self._finish(scenario, step, out, job.result(), argv)

    async def _wait_step(self, scenario: Scenario, step: Step, out: StepResult) -> None:
        pending = self._pending.pop(step.client, None)
        if pending is None:
            out.checks.append(CheckResult("reply arrives", False,
                                          f"{step.client} has no blocked command to wait for (it answered at once)"))
            return
        job, origin = pending
        try:
            await asyncio.wait_for(asyncio.shield(job.task), WAIT_TIMEOUT)
        except asyncio.TimeoutError:
            out.checks.append(CheckResult("reply arrives", False, f"no reply after {WAIT_TIMEOUT:g}s"))
            await self.executor.cancel(step.client)
            return
        out.note = tr("the reply to {command}", command=origin.step.display)
        out.argv = origin.argv
        await self._finish(scenario, step, out, job.result(), origin.argv)

    async def _finish(self, scenario: Scenario, step: Step, out: StepResult, line: ev.LineResult,
                      argv: tuple[bytes, ...]) -> None:
        out.units = list(line.units)
        out.seq = line.seqs[-1] if line.seqs else None
        if line.server_gone:
            out.note = tr("the server stopped")
            out.checks.append(CheckResult("server stops", step.server_stops,
                                          "" if step.server_stops else f"unexpected: {line.server_gone}"))
            self._pending.clear()
            await self.pg.restart()
            out.note += tr("; the playground started a fresh server")
            await self._check_state(step, out)
            return
        if line.refused or line.lost:
            why = line.refused or f"client {step.client}: connection lost ({line.lost})"
            out.note = why
            out.checks.append(CheckResult("reply", False, why))
            return
        if step.server_stops:
            out.checks.append(CheckResult("server stops", False, "the server kept running"))
        reply = STREAMING if line.streaming else line.reply
        out.value = reply
        out.reply = "" if line.streaming else line.output.decode("utf-8", "replace")
        if step.save:
            self.saved.setdefault(step.client, {})[step.save] = plain_value(reply)
        out.checks.extend(check_reply(scenario, step, reply, out.reply))
        await self._check_state(step, out)
        if self.record_touched:
            out.touched = await self.touched_keys(argv, step)

    async def _check_state(self, step: Step, out: StepResult) -> None:
        if step.state:
            out.checks.extend(await check_state(self.pg, step.state))

    async def touched_keys(self, argv: tuple[bytes, ...], step: Step) -> dict[str, dict]:
        """The keys the command touched (the server says which: COMMAND GETKEYS), and
        the keys the step checks."""
        keys = [c.key for c in step.state]
        reply = (await self.pg.reader.run([[b"COMMAND", b"GETKEYS", *argv]]))[0]
        if isinstance(reply, Array):
            keys += [bytes(k) for k in reply]
        seen, result = set(), {}
        for key in keys:
            if key in seen:
                continue
            seen.add(key)
            result[key.decode("utf-8", "replace")] = await describe_key(self.pg, key)
        return result

    async def _discard_pending(self) -> None:
        for name, (job, _) in list(self._pending.items()):
            if not job.task.done():
                try:
                    await self.executor.cancel(name)
                except Exception:
                    pass
            await asyncio.gather(job.task, return_exceptions=True)
        self._pending.clear()


def plain_value(reply) -> object:
    """A reply as a value a scenario can compare: text, an integer, or None."""
    if isinstance(reply, Int):
        return int(reply)
    if isinstance(reply, (Bulk, Status)):
        return bytes(reply).decode("utf-8", "replace")
    return None


def _number(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _compare(value, op: str, literal) -> bool:
    if isinstance(literal, int):
        value = _number(value)
        if value is None:
            return False
    return {"==": value == literal, "!=": value != literal, ">": value is not None and value > literal,
            "<": value is not None and value < literal, ">=": value is not None and value >= literal,
            "<=": value is not None and value <= literal}[op]


def _show(value) -> str:
    return "(nil)" if value is None else repr(value) if isinstance(value, str) else str(value)


def fill_template(arg: bytes, saved: dict[str, object]) -> bytes:
    """`{n}`, `{n+1}`, `{n-1}`: a saved value, with integer arithmetic."""
    def sub(m: re.Match) -> str:
        name, delta = m.group(1), m.group(2)
        if name not in saved:
            return m.group(0)
        value = saved[name]
        if delta:
            number = _number(value)
            return m.group(0) if number is None else str(number + int(delta))
        return "" if value is None else str(value)
    return TEMPLATE.sub(sub, arg.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def expand_shas(scenario: Scenario, text: str) -> str:
    return SHA_IN_TEXT.sub(lambda m: scenario.sha(m.group(1)), text)


def check_reply(scenario: Scenario, step: Step, reply, rendered: str) -> list[CheckResult]:
    if step.reply is not None:
        expected = expand_shas(scenario, step.reply).rstrip("\n")
        got = rendered.rstrip("\n")
        return [CheckResult("reply", got == expected, "" if got == expected else f"expected {expected!r}, got {got!r}")]
    if step.error is not None:
        ok = isinstance(reply, Err) and reply.code == step.error
        got = rendered.strip() if isinstance(reply, Err) else f"not an error: {rendered.strip()!r}"
        return [CheckResult(f"error {step.error}", ok, "" if ok else f"expected {step.error}, got {got}")]
    if step.match is not None:
        pattern = expand_shas(scenario, step.match)
        ok = re.search(pattern, rendered, re.DOTALL) is not None
        return [CheckResult("reply matches", ok, "" if ok else f"{rendered.strip()!r} does not match {pattern!r}")]
    return []


async def describe_key(pg: Playground, key: bytes) -> dict:
    """type, ttl and value of one key, as plain JSON-able values."""
    type_, ttl = await pg.reader.run([[b"TYPE", key], [b"TTL", key]])
    t = bytes(type_).decode() if isinstance(type_, (Status, Bulk)) else "?"
    kind = "value" if t == "string" else t
    value = None
    if kind in _READS:
        raw, = await pg.reader.run([_READS[kind](key)])
        value = _decode_value(kind, raw)
    return {"type": t, "ttl": int(ttl) if isinstance(ttl, Int) else None, "value": value}


def _decode_value(kind: str, raw) -> object:
    if isinstance(raw, Bulk):
        return bytes(raw).decode("utf-8", "replace")
    if isinstance(raw, (Array, Map)):
        items = [bytes(x).decode("utf-8", "replace") for pair in raw
                 for x in (pair if isinstance(raw, Map) else (pair,))]
        return sorted(items) if kind == "set" else items
    if isinstance(raw, Int):
        return int(raw)
    return None


_READS = {"value": lambda k: [b"GET", k], "list": lambda k: [b"LRANGE", k, b"0", b"-1"],
          "set": lambda k: [b"SMEMBERS", k], "hash": lambda k: [b"HGETALL", k],
          "zset": lambda k: [b"ZRANGE", k, b"0", b"-1", b"WITHSCORES"],
          "scard": lambda k: [b"SCARD", k], "llen": lambda k: [b"LLEN", k]}


async def check_state(pg: Playground, checks: tuple[StateCheck, ...]) -> list[CheckResult]:
    """Each state check against the server: one pipeline for all of a step's checks
    (TYPE, TTL and the reads each check needs), over the read-only connection."""
    commands, plan = [], []
    for check in checks:
        reads = [kind for kind in _READS if getattr(check, kind) is not None]
        plan.append((check, reads))
        commands += [[b"TYPE", check.key], [b"TTL", check.key]] + [_READS[k](check.key) for k in reads]
    replies = await pg.reader.run(commands) if commands else []
    results, i = [], 0
    for check, reads in plan:
        type_, ttl = replies[i], replies[i + 1]
        got = {kind: _decode_value(kind, replies[i + 2 + j]) for j, kind in enumerate(reads)}
        i += 2 + len(reads)
        t = bytes(type_).decode() if isinstance(type_, (Status, Bulk)) else "?"
        results.append(_judge(check, t, int(ttl) if isinstance(ttl, Int) else None, got))
    return results


def _judge(check: StateCheck, type_: str, ttl: int | None, got: dict) -> CheckResult:
    problems = []
    exists = type_ != "none"
    if check.absent and exists:
        problems.append(f"expected absent, it is a {type_}")
    if check.exists and not exists:
        problems.append("expected to exist, it is absent")
    if check.type and type_ != check.type:
        problems.append(f"expected type {check.type}, got {type_}")
    if check.value is not None and (type_ != "string" or got["value"] != check.value):
        shown = repr(got["value"]) if type_ == "string" else ("absent" if not exists else f"a {type_}")
        problems.append(f"expected {check.value!r}, got {shown}")
    if check.ttl is not None:
        low, high = check.ttl
        if not (low <= (ttl if ttl is not None else -2) <= high):
            want = f"{low}" if low == high else f"{low}..{high}"
            problems.append(f"expected TTL {want}, got {ttl}")
    if check.list is not None and (type_ != "list" or tuple(got["list"] or ()) != check.list):
        problems.append(f"expected list {list(check.list)}, got {got['list'] if type_ == 'list' else type_}")
    if check.set is not None and (type_ != "set" or frozenset(got["set"] or ()) != check.set):
        problems.append(f"expected set {sorted(check.set)}, got {got['set'] if type_ == 'set' else type_}")
    if check.hash is not None:
        pairs = got["hash"] or []
        value = dict(zip(pairs[::2], pairs[1::2])) if type_ == "hash" else None
        if value != check.hash:
            problems.append(f"expected hash {check.hash}, got {value}")
    if check.zset is not None:
        pairs = got["zset"] or []
        value = tuple((pairs[i], float(pairs[i + 1])) for i in range(0, len(pairs), 2)) if type_ == "zset" else None
        if value != check.zset:
            problems.append(f"expected zset {list(check.zset)}, got {value}")
    for count in ("scard", "llen"):
        want = getattr(check, count)
        if want is not None and got[count] != want:
            problems.append(f"expected {count} {want}, got {got[count]!r}")
    name = check.key.decode("utf-8", "replace")
    return CheckResult(f"state {name}", not problems, "; ".join(problems))
