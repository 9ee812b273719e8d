"""Command-palette entries for a topology's server actions (engine/server_actions.py):
kill, pause, resume, pause/resume replication, promote a replica, settle, and point a
client at a node. Each runs in a worker; what happened is noted in every pane."""

from __future__ import annotations

from functools import partial

from textual.app import SystemCommand

from playground.i18n import N_, tr


def topology_commands(app):
    """The palette's entries for `app.playground.topology` (none without one)."""
    topology = app.playground.topology
    if topology is None:
        return
    for node in topology.nodes:
        where = f"{node.name} ({node.describe()})"
        for action, help_text in (
                ("kill", N_("SIGKILL: it dies at once")),
                ("pause", N_("SIGSTOP: it answers nobody until resumed")),
                ("resume", "SIGCONT"),
                ("pause-replication", N_("a replica answers reads but applies nothing new")),
                ("resume-replication", N_("the replica catches up")),
                ("promote", N_("a replica becomes a primary"))):
            yield SystemCommand(tr("Server: {action} {node}", action=action, node=node.name),
                                f"{where}: {tr(help_text)}",
                                lambda text=f"{action} {node.name}": run_action(app, text))
        for client in app.clients:
            yield SystemCommand(tr("Server: connect {client} to {node}", client=client, node=node.name),
                                tr("client {client} reconnects to {where} (redis-cli: connect host port)",
                                   client=client, where=where),
                                lambda text=f"connect {client} {node.name}": run_action(app, text))
    yield SystemCommand(tr("Server: settle"), tr("wait until replicas caught up / the cluster is ok"),
                        lambda: run_action(app, "settle"))


def run_action(app, text: str) -> None:
    """Run the action in a worker (one at a time): the palette returns at once."""
    app.run_worker(partial(_inner, app, text), group="server-action", exclusive=True, exit_on_error=False)


async def _inner(app, text: str) -> None:
    from playground.engine.server_actions import ActionError, apply

    try:
        said = await apply(app.playground, text)
    except ActionError as exc:
        app.notify(f"{text}: {exc}", severity="error")
        return
    app.notify(said)
    for name in app.clients:
        app.pane(name).note(f"[server] {said}")
    app.refresh_states()
