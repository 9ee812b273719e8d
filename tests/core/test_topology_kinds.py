"""The topologies' facts (playground/topology_kinds.py) are what every place that checks,
offers or starts a topology goes by: a scenario's `topology` and `replicas`, the `Topology`
that starts the nodes, `--topology` and `--replicas` (tests/project/test_one_place.py:
nothing else spells them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.cli.main import _server_options
from playground.errors import ScenarioError
from playground.scenario.fields import Where
from playground.scenario.server_steps import parse_topology
from playground.server.private import ServerError
from playground.server.topology import Topology
from playground.topology_kinds import KINDS, MAX_REPLICAS, NAMES, SINGLE

COUNTS = range(-1, MAX_REPLICAS + 2)


def _scenario_takes(name: str, count: int | None) -> bool:
    data = {"topology": name} if count is None else {"topology": name, "replicas": count}
    try:
        return parse_topology(data, Where(Path("s.toml"))) == (name, count)
    except ScenarioError:
        return False


def _topology_takes(name: str, count: int | None) -> bool:
    try:
        return Topology(None, name, count).replicas == KINDS[name].replicas(count)  # (not started)
    except ServerError:
        return False


@pytest.mark.parametrize("name", NAMES)
def test_a_scenario_takes_the_replicas_its_topology_takes(name):
    kind = KINDS[name]
    assert _scenario_takes(name, None)
    assert [n for n in COUNTS if _scenario_takes(name, n)] == [n for n in COUNTS if kind.replicas_allowed(n)]


@pytest.mark.parametrize("name", NAMES)
def test_the_nodes_started_are_those_of_the_topology(name, tmp_path):
    kind = KINDS[name]
    if kind is SINGLE:  # the private server itself (server/private.py), no Topology of nodes
        assert not _topology_takes(name, None) and not kind.takes_replicas
        return
    assert [n for n in COUNTS if _topology_takes(name, n)] == [n for n in COUNTS if kind.replicas_allowed(n)]
    topology = Topology(None, name)
    topology.dir = str(tmp_path)
    topology._make_nodes()   # (names and roles only: nothing is spawned)
    primaries = [node for node in topology.nodes if node.replica_of is None]
    assert len(primaries) == kind.primaries
    assert len(topology.nodes) == kind.primaries * (1 + kind.default_replicas)


def test_the_command_line_offers_every_topology_and_count():
    parser = _server_options()
    for name in NAMES:
        assert parser.parse_args(["--topology", name]).topology == name
    for count in range(MAX_REPLICAS + 1):
        assert parser.parse_args(["--replicas", str(count)]).replicas == count
    for wrong in (["--topology", "ring"], ["--replicas", str(MAX_REPLICAS + 1)]):
        with pytest.raises(SystemExit):
            parser.parse_args(wrong)
