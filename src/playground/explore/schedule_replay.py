"""An outcome's first schedule as a scenario of its own, to step through in the app like
any other lesson (the explorer's "pick an outcome, see how it happens")."""

from __future__ import annotations

from dataclasses import replace

from playground.explore import schedules as sch
from playground.explore.explorer import programs_of
from playground.explore.outcomes import Exploration, OutcomeClass
from playground.explore.program_moves import step_of
from playground.i18n import tr
from playground.scenario.model import Part, Scenario, Step


def schedule_scenario(result: Exploration, cls: OutcomeClass) -> Scenario:
    """The class's first schedule as a scenario of its own, to step through like any
    other: the part's setup, then the steps in that order (reply checks off; a command
    that blocked in that order is marked blocking, and the reply of one whose client
    moved on without a wait step arrives as a wait step)."""
    run = cls.first_run
    if run is None:
        raise ValueError("an outcome with no run of its own")
    programs = programs_of(result.scenario, result.part)
    steps: list[Step] = []
    moves = sch.moves(run.schedule)
    label = sch.label(run.schedule)
    n = 0
    blocked_step: dict[str, Step | None] = {}   # each client's command still waiting, if any
    for client, index, blocked in run.moves:
        if index is None:
            origin = blocked_step.pop(client, None)
            steps.append(Step(len(steps) + 1, client, None, "(reply arrives)", wait=True,
                              save=origin.save if origin else None,
                              narration=tr("{client}'s blocked command gets its reply.", client=client)))
            continue
        step = step_of(programs, client, index)
        n += 1
        note = tr("Move {n} of {total} in {label}: {move}.", n=n, total=len(moves), label=label,
                  move=f"{client}{index + 1}")
        if cls.deadlock and n == len(moves):
            note += tr(" Nobody can move after this: {deadlock}.", deadlock=cls.deadlock)
        if step.wait and blocked_step.pop(client, None) is None:
            continue  # in this order the command answered at once: no reply to wait for
        if blocked:
            blocked_step[client] = step
        steps.append(replace(step, number=len(steps) + 1, blocking=blocked, narration=note))
    part = Part(result.part.name, result.part.setup, result.part.setup_display, tuple(steps),
                programs=result.part.programs)
    return replace(result.scenario, id=f"{result.scenario.id} {label}",
                   title=tr("{title} · schedule {label}", title=result.scenario.title, label=label),
                   parts=(part,), challenge=None)
