"""A step's reply checks (`reply`, `error`, `match`, per server where the step has some),
judged against what the server answered."""

from __future__ import annotations

import re

from playground.i18n import tr
from playground.resp.replies import Err
from playground.scenario.checks import CheckResult
from playground.scenario.model import SHA_IN_TEXT, Scenario, Step


def expand_shas(scenario: Scenario, text: str) -> str:
    """`text` with each script reference replaced by that script's SHA1.

    Args:
        scenario: the scenario whose scripts are named.
        text: an expected reply or pattern.
    """
    return SHA_IN_TEXT.sub(lambda m: scenario.sha(m.group(1)), text)


def check_reply(scenario: Scenario, step: Step, reply, rendered: str,
                flavour: str | None = None) -> list[CheckResult]:
    """The step's reply checks (those for `flavour`'s server where the step has some)."""
    expect = step.expect(flavour)
    on = f" on {flavour.capitalize()}" if flavour and flavour in step.per_server else ""
    results = []
    if expect.reply is not None:
        expected = expand_shas(scenario, expect.reply).rstrip("\n")
        got = rendered.rstrip("\n")
        results.append(CheckResult("reply" + on, got == expected,
                                   "" if got == expected
                                   else tr("expected {want}, got {got}", want=repr(expected), got=repr(got))))
    if expect.error is not None:
        ok = isinstance(reply, Err) and reply.code == expect.error
        got = rendered.strip() if isinstance(reply, Err) else tr("not an error: {reply}", reply=repr(rendered.strip()))
        results.append(CheckResult(f"error {expect.error}{on}", ok,
                                   "" if ok else tr("expected {want}, got {got}", want=expect.error, got=got)))
    if expect.match is not None:
        pattern = expand_shas(scenario, expect.match)
        ok = re.search(pattern, rendered, re.DOTALL) is not None
        results.append(CheckResult("reply matches" + on, ok,
                                   "" if ok else tr("{reply} does not match {pattern}", reply=repr(rendered.strip()),
                                                    pattern=repr(pattern))))
    return results
