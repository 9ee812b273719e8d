"""The headless scenario commands: `list`, `run`, `check` (no Textual here)."""

from __future__ import annotations

import asyncio
import sys

from playground.scenario import transcript as report
from playground.engine.playground import Playground, install_exit_signals
from playground.scenario.library import resolve, scenario_files
from playground.scenario.runner import Runner, ScenarioResult, StepResult
from playground.scenario.model import Scenario, ScenarioError, load_scenario
from playground.i18n import tr


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def cmd_list(args) -> int:
    failed = 0
    for file in scenario_files(args.scenarios):
        try:
            s = load_scenario(file, args.lang)
        except ScenarioError as exc:
            print(f"redis-playground: {exc}", file=sys.stderr)
            failed += 1
            continue
        tags = ", ".join(s.tags)
        _out(f"{s.id:<24} {s.title}" + (f"  [{tags}]" if tags else "") + "\n")
    return 1 if failed else 0


def _playground(args, scenarios: list[Scenario]) -> Playground:
    clients: list[str] = []
    for s in scenarios:
        clients += [c for c in s.clients if c not in clients]
    return Playground.create(server_choice=args.server, url=args.url, allow_flush=args.allow_flush,
                             clients=clients or ("A", "B"))


def _refuse_url_without_flush(args) -> bool:
    """Every scenario part starts on an empty server: on a --url server that takes --allow-flush."""
    if args.url and not args.allow_flush:
        print("redis-playground: " + tr("{command} empties the server before every scenario (FLUSHALL); "
              "with --url add --allow-flush, and only for a server whose data may go", command=args.command), file=sys.stderr)
        return True
    return False


def cmd_run(args) -> int:
    scenario = load_scenario(resolve(args.scenario, args.scenarios), args.lang)
    if _refuse_url_without_flush(args):
        return 2
    install_exit_signals()
    pg = _playground(args, [scenario])
    result = asyncio.run(_run_one(pg, scenario, args.format))
    return 0 if result.ok else 1


async def _run_one(pg: Playground, scenario: Scenario, fmt: str) -> ScenarioResult:
    async with pg:
        state = {"part": None}

        def on_step(step: StepResult) -> None:
            if fmt == "json":
                _out(report.json_step(pg.label, scenario, step) + "\n")
            elif fmt == "text":
                if step.part != state["part"]:
                    state["part"] = step.part
                    part = next(p for p in scenario.parts if p.name == step.part)
                    _out(report.text_part(scenario, part.name, part.setup_display))
                _out(report.text_step(scenario, step))

        if fmt == "text":
            _out(report.text_header(scenario, pg.label))
        result = await Runner(pg, on_step=on_step, record_touched=(fmt == "json")).run(scenario)
        if fmt == "text":
            _out(report.text_summary(result))
        elif fmt == "markdown":
            _out(report.render_markdown(result))
        elif fmt == "json" and (result.skipped or result.error):
            print(f"redis-playground: {scenario.id}: {result.skipped or result.error}", file=sys.stderr)
        return result


def cmd_check(args) -> int:
    scenarios, broken = [], []
    if args.scenarios_to_check:
        refs = args.scenarios_to_check
        files = [resolve(r, args.scenarios) for r in refs]
    else:
        files = scenario_files(args.scenarios)
    for file in files:
        try:
            scenarios.append(load_scenario(file, args.lang))
        except ScenarioError as exc:
            broken.append(str(exc))
    if _refuse_url_without_flush(args):
        return 2
    install_exit_signals()
    pg = _playground(args, scenarios)
    passed, failed, skipped = asyncio.run(_check(pg, scenarios))
    for line in broken:
        _out(f"{report.FAIL} {line}\n")
    failed += len(broken)
    untranslated = sum(len(s.missing_translations()) for s in scenarios)
    _out(tr("{passed} passed, {failed} failed", passed=passed, failed=failed) + (tr(", {count} skipped", count=skipped) if skipped else "")
         + (tr(", {count} texts not translated into {lang}", count=untranslated, lang=args.lang) if untranslated else "") + "\n")
    return 1 if failed else 0


async def _check(pg: Playground, scenarios: list[Scenario]) -> tuple[int, int, int]:
    passed = failed = skipped = 0
    async with pg:
        for scenario in scenarios:
            result = await Runner(pg).run(scenario)
            _out(report.check_line(result) + "\n")
            if scenario.missing_translations():
                _out(report.missing_line(scenario) + "\n")
            if result.skipped:
                skipped += 1
            elif result.ok:
                passed += 1
            else:
                failed += 1
    return passed, failed, skipped
