"""Steps the explorer moves differently from the scenario's own order: a timeout that is
a move of its own, and a command it cannot run at all."""

from __future__ import annotations

from dataclasses import replace

from playground.engine.catalogue import block_timeout
from playground.i18n import tr
from playground.scenario.model import Part, Step


def with_timeout_move(steps: list[Step]) -> list[Step]:
    """A client's program; when its last command blocks with a timeout (BLPOP q 1), with
    a wait step after it: when the timeout fires is a move too, before or after whoever
    would unblock it (without one, every schedule would wait for the unblocking and the
    timeout would never fire first)."""
    last = steps[-1] if steps else None
    if last is None or not last.argv or not block_timeout(last.argv):
        return steps
    return [*steps, replace(last, argv=None, display="(reply arrives)", wait=True, blocking=False,
                            bound=False, sleep=0)]


def no_reply(argv) -> bool:
    """CLIENT REPLY OFF or SKIP: the server sends no reply, and its client waits for one
    for ever (as redis-cli does)."""
    return bool(argv) and len(argv) == 3 and [bytes(a).lower() for a in argv[:2]] == [b"client", b"reply"] \
        and bytes(argv[2]).lower() in (b"off", b"skip")


def no_reply_message(scenario_id: str, part: int, step: Step) -> str:
    """The one line that says a step asks for no reply, so the explorer cannot run it.

    Args:
        scenario_id: the scenario's id.
        part: the part's number.
        step: the step.
    """
    return tr("{id}: part {part}: step {n} ({command}) asks the server for no reply, and its client would wait "
              "for one for ever; the explorer cannot run it", id=scenario_id, part=part, n=step.number,
              command=step.display)


def own_order(part: Part, programs: dict[str, list[Step]]) -> tuple[str, ...]:
    """The scenario's own order as a schedule: its steps' clients, then the wait steps
    `with_timeout_move` added (at the end: nothing of that client comes after them)."""
    own = tuple(s.client for s in part.steps)
    return own + tuple(c for c, program in programs.items() for _ in range(len(program) - own.count(c)))
