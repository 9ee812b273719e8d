"""Server-action steps: `server = "kill primary"` instead of a client's command.

    [[steps]]
    server = "pause-replication replica-1"
    narration = "The replica stops applying what the primary sends."

The actions are engine/server_actions.py's (kill, stop, pause, resume, pause-replication,
resume-replication, promote, settle, connect CLIENT NODE). A server step may have
narration, pause, predict, state checks, `match` (a regex on the line saying what
happened), requires, and `client` (the lane it is shown in; default the first client).
The step passes when the action had its effect; it needs the scenario's `topology`
to be replica or cluster.
"""

from __future__ import annotations

import re

from playground.engine.server_actions import ActionError, apply, parse_action
from playground.i18n import reworded, tr
from playground.scenario.checks import CheckResult, check_state
from playground.topology_kinds import KINDS, MAX_REPLICAS, NAMES, SINGLE, WITH_NODES

SERVER_STEP_FIELDS = {"server", "client", "narration", "pause", "predict", "state", "match", "requires"}


def topology_unmet(pg, scenario) -> str | None:
    """Why `scenario` cannot run on `pg`'s servers (another topology), or None."""
    have = pg.topology.kind.name if pg.topology is not None else SINGLE.name if pg.private else None
    if have is None or have == scenario.topology:  # --url: the user's servers, as they are
        return None
    return tr("needs --topology {topology} (run and check start it themselves)", topology=scenario.topology)


def parse_topology(data: dict, where) -> tuple[str, int | None]:
    """The scenario's top-level `topology` (a name of topology_kinds.NAMES) and `replicas`."""
    topology = data.get("topology", SINGLE.name)
    if topology not in NAMES:
        raise where.error(tr("one of {choices}", choices=", ".join(NAMES)), field_name="topology")
    kind, replicas = KINDS[topology], data.get("replicas")
    if replicas is not None and not kind.takes_replicas:
        raise where.error(tr("goes with topology {names}", names=tr(", ").join(WITH_NODES)), field_name="replicas")
    if replicas is not None and (not isinstance(replicas, int) or isinstance(replicas, bool)
                                 or not kind.replicas_allowed(replicas)):
        raise where.error(tr("with topology {name}: a number from {fewest} to {most}", name=topology,
                             fewest=kind.fewest_replicas, most=MAX_REPLICAS), field_name="replicas")
    return topology, replicas


def parse_server_step(raw: dict, n: int, where, clients: tuple, part, topology: str, *,
                      step_class, predict, state, requires, pause_text):
    """A Step whose kind is "server" (model.py's helpers passed in, to keep one loader)."""
    for key in raw:
        if key not in SERVER_STEP_FIELDS:
            raise where.error(tr("not a field of a server step (it has {fields})",
                                 fields=", ".join(sorted(SERVER_STEP_FIELDS))),
                              part=part, step=n, field_name=key)
    text = raw["server"]
    if not isinstance(text, str):
        raise where.error(tr("the action as text, e.g. \"kill primary\""), part=part, step=n, field_name="server")
    try:
        action, args = parse_action(text)
    except ValueError as exc:
        raise where.error(str(exc), part=part, step=n, field_name="server") from None
    if not KINDS[topology].takes_replicas:
        raise where.error(tr("a server step needs topology = {names} at the top",
                             names=" | ".join(f'"{name}"' for name in WITH_NODES)),
                          part=part, step=n, field_name="server")
    if action == "connect" and args[0] not in clients:
        raise where.error(tr("unknown client {name}", name=repr(args[0])), part=part, step=n, field_name="server")
    client = raw.get("client", clients[0])
    if client not in clients:
        raise where.error(tr("unknown client {name} (this scenario has {clients})", name=repr(client),
                             clients=", ".join(clients)),
                          part=part, step=n, field_name="client")
    match = raw.get("match")
    if match is not None:
        try:
            re.compile(match)
        except (re.error, TypeError) as exc:
            raise where.error(tr("bad regular expression: {error}", error=exc), part=part, step=n,
                              field_name="match") from None
    narration = raw.get("narration", "")
    if not isinstance(narration, str):
        raise where.error(tr("must be text"), part=part, step=n, field_name="narration")
    pause = raw.get("pause")
    if pause is True:
        pause = pause_text
    elif pause is False:
        pause = None
    elif pause is not None and not isinstance(pause, str):
        raise where.error(tr("true, or the question to discuss"), part=part, step=n, field_name="pause")
    return step_class(
        n, client, None, f"[server] {' '.join(text.split())}", reworded(narration, str.strip), match=match,
        state=state(raw.get("state", {}), where, part, n),
        predict=predict(raw["predict"], where, part, n) if "predict" in raw else None,
        pause=pause, requires=requires(raw["requires"], where, "requires", part, n) if "requires" in raw else None,
        server=" ".join(text.split()))


async def run_server_step(runner, scenario, step, out) -> None:
    """Do the action; the step's line is what happened; checks: it happened, `match`, state."""
    try:
        said = await apply(runner.pg, step.server)
    except ActionError as exc:
        out.note = str(exc)
        out.checks.append(CheckResult(step.server, False, str(exc)))
        return
    out.reply = said + "\n"
    out.checks.append(CheckResult(step.server, True))
    if step.match is not None:
        ok = re.search(step.match, said) is not None
        out.checks.append(CheckResult("match", ok, "" if ok else tr("expected /{pattern}/, got {got}",
                                                                         pattern=step.match, got=repr(said))))
    if step.state:
        out.checks.extend(await check_state(runner.pg, step.state))
